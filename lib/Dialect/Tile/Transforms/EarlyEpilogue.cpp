//===- EarlyEpilogue.cpp - Epilogue work before the last MMA's wait -------===//
//
// After tile-overlap-mma and tile-pingpong, a consumer's rotated key loop
// ends in its guard:
//
//   %r:3 = scf.if %any {
//     ...the loop...
//     tile.mma_turn take
//     %o = tile.mma_async AB %p, %v, %acc      // the last P V
//     tile.mma_turn pass
//     tile.mma_wait 0
//     tile.sem_arrive %empty_v
//     scf.yield %m, %l, %o
//   } else {
//     scf.yield %m0, %l0, %o0
//   }
//   %inv = tile.div %ones, %r#1                // does not read %r#2
//   %lse = ...%r#0, %r#1...; tile.store %lse, %L[...]
//   %on = tile.mul %r#2, %inv_b                // reads the MMA's result
//
// The warpgroup waits for its last P V before any of the tile's epilogue,
// and with turns the other warpgroup's next MMA waits for it. This pass
// moves the epilogue ops that do not read an in-flight MMA result into both
// branches of the guard, in the then-branch just before the wait, so they
// run while the MMA multiplies. The guard's condition is the loop's trip
// test, the same in every thread of a warpgroup (its MMAs are
// warpgroup-wide), so a warpgroup barrier a moved op brings (the copy-out
// wait's) runs in all of a warpgroup's threads or in none.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEEARLYEPILOGUE
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {

/// The then-branch's final `tile.mma_wait`, when only operand releases
/// (slots, arrivals) follow it and an asynchronous MMA precedes it.
MmaWaitOp trailingWait(scf::IfOp guard) {
  if (guard.getElseRegion().empty() || guard.getNumResults() == 0)
    return {};
  Block *then = guard.thenBlock();
  Operation *op = then->getTerminator()->getPrevNode();
  while (op && isa<SlotOp, SemArriveOp>(op))
    op = op->getPrevNode();
  auto wait = dyn_cast_or_null<MmaWaitOp>(op);
  if (!wait)
    return {};
  for (Operation *before = wait->getPrevNode(); before;
       before = before->getPrevNode())
    if (isa<MmaAsyncOp>(before))
      return wait;
  return {};
}

/// Whether `op` may run before the wait, given its operands are available
/// there: it computes in registers, or it only writes global memory or
/// waits for earlier copies out.
bool movableKind(Operation *op) {
  if (op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>())
    return false;
  // A broadcast stays: it only repeats a row's value along the columns, and
  // a whole tile leaving the guard would hold registers across it.
  if (isa<MmaOp, MmaAsyncOp, MmaWaitOp, MmaTurnOp, BroadcastOp>(op))
    return false;
  // A running sum belongs directly in its tile loop's body.
  if (isa<PrefixSumOp>(op))
    return false;
  // Values only: views of shared memory and semaphores stay where they are
  // (later passes give their types a layout; a guard result would not).
  if (llvm::any_of(op->getResultTypes(), [](Type t) {
        return !isa<RegisterType, IntegerType, IndexType, FloatType>(t);
      }))
    return false;
  if (isMemoryEffectFree(op))
    return true;
  if (isa<StoreAsyncWaitOp>(op))
    return true;
  if (auto store = dyn_cast<StoreOp>(op))
    return isa<GlobalType>(store.getDst().getType()) && !store.getReduce();
  return false;
}

/// Moves what it can of the ops after `guard` before `wait`.
void hoist(scf::IfOp guard, MmaWaitOp wait) {
  auto thenYield = cast<scf::YieldOp>(guard.thenBlock()->getTerminator());
  auto elseYield = cast<scf::YieldOp>(guard.elseBlock()->getTerminator());
  // Results the wait completes: yielded straight from an async MMA.
  llvm::DenseSet<Value> blocked;
  for (auto [result, yielded] :
       llvm::zip(guard.getResults(), thenYield.getOperands()))
    if (yielded.getDefiningOp<MmaAsyncOp>())
      blocked.insert(result);
  if (blocked.empty())
    return;

  SmallVector<Operation *> moved;
  llvm::DenseSet<Operation *> movedSet;
  for (Operation *op = guard->getNextNode(); op; op = op->getNextNode()) {
    // Every op that stays has blocked its results, so an operand not
    // blocked is defined before the guard or by a moved op.
    bool ready = llvm::none_of(op->getOperands(),
                               [&](Value v) { return blocked.contains(v); });
    if (ready && movableKind(op)) {
      moved.push_back(op);
      movedSet.insert(op);
      continue;
    }
    // An op that stays: its results are not available before the wait,
    // and memory operations keep their order.
    for (Value result : op->getResults())
      blocked.insert(result);
    if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
      break;
  }
  // Nothing worth moving: only constants or index arithmetic would go.
  if (llvm::none_of(moved, [](Operation *op) {
        return isa<TileDialect>(op->getDialect());
      }))
    return;

  // Clone into both branches; the guard's results stand for what each
  // branch yields.
  IRMapping thenMap, elseMap;
  for (auto [result, t, e] :
       llvm::zip(guard.getResults(), thenYield.getOperands(),
                 elseYield.getOperands())) {
    thenMap.map(result, t);
    elseMap.map(result, e);
  }
  OpBuilder b(wait);
  for (Operation *op : moved)
    b.clone(*op, thenMap);
  b.setInsertionPoint(elseYield);
  for (Operation *op : moved)
    b.clone(*op, elseMap);

  // Moved results still read after the guard become results of it.
  SmallVector<Value> escaping;
  for (Operation *op : moved)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !movedSet.contains(user);
          }))
        escaping.push_back(result);
  SmallVector<Type> types(guard.getResultTypes());
  for (Value v : escaping)
    types.push_back(v.getType());
  b.setInsertionPoint(guard);
  auto widened =
      scf::IfOp::create(b, guard.getLoc(), types, guard.getCondition(),
                        /*addThenBlock=*/false,
                        /*addElseBlock=*/false);
  widened.getThenRegion().takeBody(guard.getThenRegion());
  widened.getElseRegion().takeBody(guard.getElseRegion());
  for (Value v : escaping) {
    thenYield.getResultsMutable().append(thenMap.lookup(v));
    elseYield.getResultsMutable().append(elseMap.lookup(v));
  }
  unsigned n = guard.getNumResults();
  guard.replaceAllUsesWith(widened.getResults().take_front(n));
  for (auto [i, v] : llvm::enumerate(escaping))
    v.replaceAllUsesWith(widened.getResult(n + i));
  for (Operation *op : llvm::reverse(moved))
    op->erase();
  guard.erase();
}

struct EarlyEpiloguePass
    : public tk::tile::impl::TileEarlyEpilogueBase<EarlyEpiloguePass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::IfOp, MmaWaitOp>> guards;
    getOperation().walk([&](scf::IfOp guard) {
      if (MmaWaitOp wait = trailingWait(guard))
        guards.push_back({guard, wait});
    });
    for (auto [guard, wait] : guards)
      hoist(guard, wait);
  }
};
} // namespace
