//===- DynamicTiles.cpp - Persistent tile loops take tiles as they ask ----===//
//
// Marks every tile loop of a persistent kernel `dynamic` (and drops `snake`,
// which a dynamic order replaces), so that one program can be compiled a
// second time with a counter-driven tile order. Kernels the dynamic walk
// cannot lower are left alone with a remark saying why.
//
//===----------------------------------------------------------------------===//
#include "tk/Dialect/Tile/IR/TileDialect.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"
#include "tk/Target/TargetInfo.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEDYNAMICTILES
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {
/// Why `kernel`'s tile loops cannot all take the dynamic order, or "".
std::string whyNotDynamic(KernelOp kernel, ArrayRef<ForeachTileOp> loops) {
  if (getTargetInfo(kernel).vendor != tk::Vendor::nvidia)
    return "the dynamic tile order is lowered for NVIDIA targets only";
  if (kernel.getGrid() != GridPolicy::persistent)
    return "one tile per block (grid = tiles): there is no order to change";
  if (kernel.getClusterBlocks() > 1)
    return "cluster kernels hand out tiles per cluster";
  llvm::SmallPtrSet<Region *, 4> regions;
  for (ForeachTileOp loop : loops) {
    // One tile counter and queue per block serve one walk of the tiles.
    if (!regions.insert(loop->getParentRegion()).second)
      return "several tile loops run one after another in a block";
    if (loop.getKSteps())
      return "a stream_k loop deals out its own order";
    if (!isa<KernelOp, WarpSpecializeOp>(loop->getParentOp()))
      return "a tile loop is neither directly in the kernel nor in a warp "
             "role";
  }
  std::string why;
  kernel.walk([&](WarpSpecializeOp ws) {
    ProducerWalk producer = producerWalk(ws);
    if (!producer.walks)
      why = "the producer role runs no tile loop (its first thread would "
            "take the tiles)";
    else if (producer.sync)
      why = "the producer role synchronises its warps (only its first warp "
            "walks a dynamic loop)";
    else if (producer.allWarps)
      why = "the producer role works per thread (only its first warp walks "
            "a dynamic loop)";
  });
  return why;
}

struct DynamicTilesPass
    : public tk::tile::impl::TileDynamicTilesBase<DynamicTilesPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    SmallVector<ForeachTileOp> loops;
    kernel.walk([&](ForeachTileOp op) { loops.push_back(op); });
    if (loops.empty())
      return;
    if (std::string why = whyNotDynamic(kernel, loops); !why.empty()) {
      kernel.emitRemark("tile loops left in their static order: ") << why;
      return;
    }
    UnitAttr unit = UnitAttr::get(&getContext());
    for (ForeachTileOp loop : loops) {
      loop.setDynamicAttr(unit);
      loop.removeSnakeAttr();
    }
  }
};
} // namespace
