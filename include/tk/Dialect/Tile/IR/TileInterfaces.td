//===- TileInterfaces.td - Interfaces of the tile dialect --*- tablegen -*-===//
#ifndef TK_TILE_INTERFACES_TD
#define TK_TILE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_LayoutAttrInterface : AttrInterface<"LayoutAttrInterface"> {
  let cppNamespace = "::tk::tile";
  let description = [{
    A register layout: says which (register, lane, warp) holds each element
    of a register tile or vector. Every layout answers through one mechanism,
    the `FragmentMap` it builds for a given shape and warp count, so the
    lowerings of elementwise ops, reductions, broadcasts and conversions are
    written once against `FragmentMap` rather than per layout.
  }];
  let methods = [
    InterfaceMethod<"Lanes per warp the layout is defined for (32 or 64).",
      "unsigned", "getLanes">,
    InterfaceMethod<[{Builds the fragment map for a value of `shape` owned by
      `numWarps` warps (0: the count is not known yet, check only what does
      not depend on it). On failure `why` says which rule the shape breaks.}],
      "::llvm::LogicalResult", "buildFragmentMap",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "unsigned":$numWarps,
           "::tk::tile::FragmentMap &":$map, "std::string &":$why)>,
    InterfaceMethod<"Whether this layout describes a vector (rank 1).",
      "bool", "isVectorLayout", (ins), [{}], [{ return false; }]>,
  ];
}

def Tile_RegisterTypeInterface : TypeInterface<"RegisterType"> {
  let cppNamespace = "::tk::tile";
  let description = [{
    A value held in registers: a register tile (rank 2) or vector (rank 1).
  }];
  let methods = [
    InterfaceMethod<"", "::llvm::ArrayRef<int64_t>", "getShape">,
    InterfaceMethod<"", "::mlir::Type", "getElementType">,
    InterfaceMethod<"", "::tk::tile::Scope", "getScope">,
    InterfaceMethod<"The layout, or null when left open.", "::mlir::Attribute",
      "getLayout">,
    InterfaceMethod<"The same type with another element type and layout.",
      "::tk::tile::RegisterType", "cloneWith",
      (ins "::mlir::Type":$elementType, "::mlir::Attribute":$layout)>,
  ];
}

#endif // TK_TILE_INTERFACES_TD
