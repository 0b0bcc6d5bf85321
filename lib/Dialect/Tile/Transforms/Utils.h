//===- Utils.h - Helpers shared by the tile passes --------------*- C++ -*-===//
#ifndef TK_LIB_DIALECT_TILE_TRANSFORMS_UTILS_H
#define TK_LIB_DIALECT_TILE_TRANSFORMS_UTILS_H

#include "tk/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace tk::tile {

inline mlir::Value constIndex(mlir::OpBuilder &b, mlir::Location loc,
                              int64_t value) {
  return mlir::arith::ConstantIndexOp::create(b, loc, value);
}

/// Iterations of `for (i = lb; i < ub; i += step)`, 0 when ub <= lb.
inline mlir::Value tripCount(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value lb, mlir::Value ub, mlir::Value step) {
  using namespace mlir;
  Value zero = constIndex(b, loc, 0);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value count = arith::CeilDivSIOp::create(b, loc, span, step);
  Value positive =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, span, zero);
  return arith::SelectOp::create(b, loc, positive, count, zero);
}

/// Whether every tile of `tiles` runs `loop` the same number of times: its
/// bounds and step are defined outside the tile loop.
inline bool sameTripsPerTile(mlir::scf::ForOp loop, mlir::Operation *tiles) {
  return llvm::all_of(mlir::ValueRange{loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep()},
                      [&](mlir::Value v) {
                        return !tiles->isAncestor(
                            v.getParentBlock()->getParentOp());
                      });
}

/// Calls `fn` for each use of the shared buffer `buffer` and of the views
/// tile.subtile and tile.slot make of it (the view ops themselves included):
/// every place the buffer's memory is named.
inline void forEachBufferUse(mlir::Value buffer,
                             llvm::function_ref<void(mlir::OpOperand &)> fn) {
  for (mlir::OpOperand &use : buffer.getUses()) {
    fn(use);
    mlir::Operation *user = use.getOwner();
    if (mlir::isa<SubtileOp, SlotOp>(user))
      forEachBufferUse(user->getResult(0), fn);
  }
}

/// Splits the block's work in `body` (a consumer's tile loop body) over
/// `warpgroups` consumer warpgroups by rows; `wg` is the warpgroup's index.
/// An mma whose rows do not split is split by columns, or, with
/// `contraction` and when its result is only scaled and add-reduced to
/// global memory, along K. Returns "" or why not (SplitWork.cpp).
std::string splitWork(mlir::Block &body, mlir::Value wg, int64_t warpgroups,
                      bool contraction);

} // namespace tk::tile

#endif // TK_LIB_DIALECT_TILE_TRANSFORMS_UTILS_H
