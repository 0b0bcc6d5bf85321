//===- TileAttrs.h - Layouts, swizzles and enums ----------------*- C++ -*-===//
#ifndef TK_DIALECT_TILE_IR_TILEATTRS_H
#define TK_DIALECT_TILE_IR_TILEATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "tk/Dialect/Tile/IR/FragmentMap.h"

#include "tk/Dialect/Tile/IR/TileEnums.h.inc"

namespace tk::tile {
/// Parses an integer for an `unsigned` parameter of a tile attribute or
/// type: fails with a located error naming it `what` when the number is
/// negative or does not fit in 32 bits (instead of wrapping it).
mlir::FailureOr<unsigned> parseUnsignedParameter(mlir::AsmParser &parser,
                                                 llvm::StringRef what);
} // namespace tk::tile

#include "tk/Dialect/Tile/IR/TileAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tk/Dialect/Tile/IR/TileAttrs.h.inc"

namespace tk::tile {
/// Warps that own a value of `scope`; 0 for `block` (known only from the
/// enclosing kernel's launch shape).
unsigned getScopeWarps(Scope scope);
} // namespace tk::tile

#endif // TK_DIALECT_TILE_IR_TILEATTRS_H
