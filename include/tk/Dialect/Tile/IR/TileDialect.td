//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
#ifndef TK_TILE_DIALECT_TD
#define TK_TILE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tk::tile";
  let summary = "ThunderKittens-style tiles, scopes and async pipelines for GPU kernels";
  let description = [{
    The `tile` dialect expresses GPU kernels at the level ThunderKittens (TK)
    programs are written: register tiles and vectors owned by a warp, a
    warpgroup or the whole block; shared tiles with a swizzle; global views
    of up to four dimensions; asynchronous copies completing on semaphores;
    producer/consumer warp specialization; persistent grids.

    Register layouts, shared swizzles, pipeline stages and warp roles may be
    left open by the author and filled in by passes, or given explicitly and
    then kept.

    Discardable attributes the dialect verifies: `tile.target = "sm_90a"`
    (module: the target; also `gfx942`, `gfx950`); `tile.stages = N` (on an
    `scf.for`: the ring depth tile-pipeline should use, N >= 1);
    `tile.split = "columns" | "contraction"` (on a `tile.mma` or
    `tile.mma_async` of block scope: how tile-warp-specialize splits it over
    the consumer warpgroups, overriding its `mma-split` option);
    `tile.stagger = C` (on a `tile.kernel`: the cycles, in [0, 100000],
    between its consumer warpgroups' starts that tile-warp-specialize gives
    the roles it makes; see `tile.warp_specialize`); and the
    hand-off marks tile-pipeline writes for tile-warp-specialize:
    `tile.pipelined = N` (`scf.for`), `tile.pipeline_prologue`,
    `tile.pipeline_refill`, `tile.pipeline_copy` (unit, `scf.if`).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
    /// Module attribute naming the target (`tile.target = "sm_90a"`).
    static ::llvm::StringRef getTargetAttrName() { return "tile.target"; }
  }];
}

#endif // TK_TILE_DIALECT_TD
