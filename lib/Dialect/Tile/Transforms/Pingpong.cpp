//===- Pingpong.cpp - Consumer warpgroups take turns issuing MMAs ---------===//
//
// For a kernel with `tile.pingpong`, after tile-warp-specialize and
// tile-overlap-mma: the consumer role's MMAs are grouped into issue phases
// (MMAs of one block with no wait, barrier or nested region between them),
// and each phase gets the turn:
//
//   sem_wait K_i
//   tile.mma_turn take
//   S_i = tile.mma_async Q, K_i
//   sem_wait V_{i-1}; O = tile.mma_async P, V_{i-1}, acc
//   tile.mma_turn pass
//   tile.mma_wait 1
//
// A synchronous tile.mma becomes tile.mma_async + tile.mma_wait 0 with the
// turn passed in between, so the next warpgroup issues while this one
// waits. Every consumer warpgroup must reach the same phases, so a role
// with an MMA under control flow that may differ between its warpgroups
// (a condition or bound computed from tile.warpgroup_id, tile.part_rows or
// register data) is left alone with a remark.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"
#include "tk/Target/TargetInfo.h"

#include "llvm/ADT/DenseSet.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEPINGPONG
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {
/// MMAs issued together: from `first` to `last` in one block.
struct Phase {
  Operation *first;
  Operation *last;
};

/// A warpgroup-scope MMA (a wgmma): the ones worth taking turns for.
bool isWarpgroupMma(Operation &op) {
  if (!isa<MmaOp, MmaAsyncOp>(op))
    return false;
  auto result = dyn_cast<RegTileType>(op.getResult(0).getType());
  return result && result.getScope() == Scope::warpgroup;
}

/// Appends the issue phases of `block` and the blocks nested in it.
void collectPhases(Block &block, SmallVectorImpl<Phase> &phases) {
  Operation *first = nullptr, *last = nullptr;
  auto close = [&] {
    if (first)
      phases.push_back({first, last});
    first = last = nullptr;
  };
  for (Operation &op : block) {
    if (isWarpgroupMma(op)) {
      if (!first)
        first = &op;
      last = &op;
      if (isa<MmaOp>(op)) // waits for itself
        close();
      continue;
    }
    if (isa<MmaWaitOp, BarrierOp, MmaTurnOp>(op) || op.getNumRegions() > 0)
      close();
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        collectPhases(nested, phases);
  }
  close();
}

bool isRegister(Type type) { return isa<RegTileType, RegVecType>(type); }

/// The scalar values of `role` that may differ between its warpgroups:
/// warpgroup ids, row parts, values read out of registers, and whatever is
/// computed from them (to a fixed point through loops).
DenseSet<Value> warpgroupVarying(Region &role) {
  DenseSet<Value> varying;
  auto mark = [&](Value v) {
    return !isRegister(v.getType()) && varying.insert(v).second;
  };
  auto anyVarying = [&](ValueRange values) {
    return llvm::any_of(values, [&](Value v) { return varying.contains(v); });
  };
  auto yielded = [](Operation *op) {
    SmallVector<Value> values;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
          llvm::append_range(values, block.back().getOperands());
    return values;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    role.walk([&](Operation *op) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        bool bounds = anyVarying(
            {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
        if (bounds)
          changed |= mark(loop.getInductionVar());
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        for (auto [init, arg, next, result] :
             llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                       yield.getOperands(), loop.getResults()))
          if (bounds || varying.contains(init) || varying.contains(next)) {
            changed |= mark(arg);
            changed |= mark(result);
          }
        return;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        bool all = varying.contains(branch.getCondition());
        for (OpResult result : branch.getResults()) {
          unsigned i = result.getResultNumber();
          bool v = all || llvm::any_of(branch->getRegions(), [&](Region &r) {
                     return !r.empty() &&
                            varying.contains(
                                r.front().getTerminator()->getOperand(i));
                   });
          if (v)
            changed |= mark(result);
        }
        return;
      }
      bool v = isa<WarpgroupIdOp, PartRowsOp>(op) ||
               anyVarying(op->getOperands()) ||
               llvm::any_of(op->getOperandTypes(), isRegister);
      if (op->getNumRegions() > 0 && !v)
        v = anyVarying(yielded(op));
      if (!v)
        return;
      for (Value result : op->getResults())
        changed |= mark(result);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Value arg : block.getArguments())
            changed |= mark(arg);
    });
  }
  return varying;
}

/// The op around `op` (inside `role`) whose control flow may differ between
/// the role's warpgroups, or null.
Operation *divergentAncestor(Operation *op, Region &role,
                             const DenseSet<Value> &varying) {
  for (Operation *p = op->getParentOp();
       p && role.isAncestor(p->getParentRegion()); p = p->getParentOp()) {
    if (isa<scf::WhileOp>(p))
      return p;
    if (llvm::any_of(p->getOperands(),
                     [&](Value v) { return varying.contains(v); }))
      return p;
  }
  return nullptr;
}

/// Why the consumer role of `ws` cannot take turns, or "".
std::string whyNotPingpong(WarpSpecializeOp ws, ArrayRef<Phase> phases,
                           Operation *&at) {
  int64_t consumers = ws.getConsumerWarpgroups();
  if (consumers < 2 || consumers > kMaxTurnWarpgroups)
    return "turns are taken among 2 to " + std::to_string(kMaxTurnWarpgroups) +
           " consumer warpgroups, the role has " + std::to_string(consumers);
  if (phases.empty())
    return "the consumer role issues no warpgroup MMA";
  DenseSet<Value> varying = warpgroupVarying(ws.getConsumer());
  for (const Phase &phase : phases)
    if (Operation *p =
            divergentAncestor(phase.first, ws.getConsumer(), varying)) {
      at = p;
      return "an MMA is under control flow that may differ between the "
             "consumer warpgroups";
    }
  return "";
}

/// Gives `phase` the turn; a synchronous last MMA becomes asynchronous with
/// its wait after the pass.
void takeTurns(const Phase &phase) {
  OpBuilder b(phase.first);
  MmaTurnOp::create(b, phase.first->getLoc(), TurnAction::take);
  Operation *last = phase.last;
  auto sync = dyn_cast<MmaOp>(last);
  if (sync) {
    b.setInsertionPoint(sync);
    auto async =
        MmaAsyncOp::create(b, sync.getLoc(), sync.getType(), sync.getFormAttr(),
                           sync.getA(), sync.getB(), sync.getAcc());
    async->setDiscardableAttrs(sync->getDiscardableAttrDictionary());
    sync.replaceAllUsesWith(async.getResult());
    sync.erase();
    last = async;
  }
  b.setInsertionPointAfter(last);
  MmaTurnOp::create(b, last->getLoc(), TurnAction::pass);
  if (sync)
    MmaWaitOp::create(b, last->getLoc(), 0);
}

struct PingpongPass : public tk::tile::impl::TilePingpongBase<PingpongPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!kernel->hasAttr(kPingpongAttr))
      return;
    if (getTargetInfo(kernel).vendor != tk::Vendor::nvidia) {
      kernel.emitRemark("MMAs not ping-ponged: MMA turns are lowered for "
                        "NVIDIA targets only");
      return;
    }
    SmallVector<WarpSpecializeOp> roles;
    kernel.walk([&](WarpSpecializeOp ws) { roles.push_back(ws); });
    if (roles.empty()) {
      kernel.emitRemark("MMAs not ping-ponged: the kernel has no consumer "
                        "role (tile-warp-specialize did not split it)");
      return;
    }
    for (WarpSpecializeOp ws : roles) {
      // Hand-scheduled turns stay as they are.
      if (ws.getConsumer()
              .walk([](MmaTurnOp) { return WalkResult::interrupt(); })
              .wasInterrupted())
        continue;
      SmallVector<Phase> phases;
      collectPhases(ws.getConsumer().front(), phases);
      Operation *at = ws;
      if (std::string why = whyNotPingpong(ws, phases, at); !why.empty()) {
        at->emitRemark("MMAs not ping-ponged: ") << why;
        continue;
      }
      for (const Phase &phase : phases)
        takeTurns(phase);
    }
  }
};
} // namespace
