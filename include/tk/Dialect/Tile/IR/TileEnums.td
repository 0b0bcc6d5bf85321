//===- TileEnums.td - Enumerations of the tile dialect -----*- tablegen -*-===//
#ifndef TK_TILE_ENUMS_TD
#define TK_TILE_ENUMS_TD

include "mlir/IR/EnumAttr.td"

// Which threads own a register tile and execute a collective op.
def Tile_Scope : I32EnumAttr<"Scope", "owning scope of a register value", [
    I32EnumAttrCase<"warp", 0>,
    I32EnumAttrCase<"warpgroup", 1>,
    I32EnumAttrCase<"block", 2>]> {
  let cppNamespace = "::tk::tile";
}

def Tile_GridPolicy : I32EnumAttr<"GridPolicy", "how blocks map to output tiles", [
    I32EnumAttrCase<"tiles", 0>,
    I32EnumAttrCase<"persistent", 1>]> {
  let cppNamespace = "::tk::tile";
}

// The four transpose forms of TK's mma_AB / mma_ABt / mma_AtB / mma_AtBt.
def Tile_MmaForm : I32EnumAttr<"MmaForm", "operand transposition of an mma", [
    I32EnumAttrCase<"AB", 0>,
    I32EnumAttrCase<"ABt", 1>,
    I32EnumAttrCase<"AtB", 2>,
    I32EnumAttrCase<"AtBt", 3>]> {
  let cppNamespace = "::tk::tile";
}

// `row` means "one element per row": the result of a row reduction.
def Tile_Axis : I32EnumAttr<"Axis", "tile axis a vector runs along", [
    I32EnumAttrCase<"row", 0>,
    I32EnumAttrCase<"col", 1>]> {
  let cppNamespace = "::tk::tile";
}

def Tile_MaskFill : I32EnumAttr<"MaskFill", "value written to masked elements", [
    I32EnumAttrCase<"zero", 0>,
    I32EnumAttrCase<"neg_inf", 1>]> {
  let cppNamespace = "::tk::tile";
}

def Tile_FenceKind : I32EnumAttr<"FenceKind", "memory ordering a fence provides", [
    // Generic-proxy writes (st.shared, stmatrix) made visible to the async
    // proxy (TMA, wgmma) that reads the same shared memory next.
    I32EnumAttrCase<"async_proxy", 0>,
    // Semaphore initialisation made visible to other threads and the async proxy.
    I32EnumAttrCase<"sem_init", 1>,
    // Ordinary memory fence at block scope.
    I32EnumAttrCase<"block", 2>]> {
  let cppNamespace = "::tk::tile";
}

// What a consumer warpgroup does with the MMA turn (tile.mma_turn).
def Tile_TurnAction : I32EnumAttr<"TurnAction", "what a warpgroup does with the MMA turn", [
    I32EnumAttrCase<"take", 0>,
    I32EnumAttrCase<"pass", 1>]> {
  let cppNamespace = "::tk::tile";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction applied by a store", [
    I32EnumAttrCase<"add", 0>]> {
  let cppNamespace = "::tk::tile";
}

def Tile_Combine : I32EnumAttr<"Combine", "how a reduction combines elements", [
    I32EnumAttrCase<"max", 0>,
    I32EnumAttrCase<"sum", 1>]> {
  let cppNamespace = "::tk::tile";
}

#endif // TK_TILE_ENUMS_TD
