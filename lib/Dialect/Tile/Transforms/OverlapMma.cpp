//===- OverlapMma.cpp - One iteration's second MMA under the next's first -===//
//
// FlashAttention-3's intra-warpgroup overlap, as a loop rotation. A loop
//
//   scf.for %i iter_args(%o = %o0) {
//     S = tile.mma Q, K_i              // M1
//     ...softmax of S...  -> P, and %acc from %o (O · alpha)
//     wait V_i; O' = tile.mma P, V_i, %acc     // M2, yielded as %o
//     release V_i
//   }
//
// becomes a prologue (iteration 0 up to M2), a loop over the other
// iterations, and an epilogue (the last M2):
//
//   scf.for %i = 1 .. iter_args(P, acc) {
//     S_i   = tile.mma_async Q, K_i
//     wait V_{i-1}; O_{i-1} = tile.mma_async P, V_{i-1}, acc
//     tile.mma_wait 1                  // S_i is ready: its softmax runs
//     ...softmax of S_i...             // while P V still multiplies
//     tile.mma_wait 0
//     release V_{i-1}; acc_i = O_{i-1} · alpha_i
//   }
//
// so one warpgroup's tensor cores work on P V while it computes the next
// softmax. Loops that do not have this shape are left alone.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEOVERLAPMMA
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {

/// A loop the rotation applies to.
struct Rotation {
  scf::ForOp loop;
  MmaOp first, second;
  unsigned carried = 0; // the iter_arg the second MMA's result is yielded to
  /// Body ops that run one iteration late: the second MMA, the ops before
  /// it that only serve it (its buffer's wait and slot), those after it.
  llvm::SetVector<Operation *> late;
  /// Values of the iteration the late ops read that are computed from the
  /// first MMA's result or the loop-carried values: carried to the next
  /// iteration.
  SmallVector<Value> handed;
  /// Body ops that depend on the carried accumulator: after the wait for
  /// the second MMA.
  llvm::SetVector<Operation *> deferred;
  /// The producer's expect, when one semaphore signals both MMAs' buffers
  /// (the loop is rotated only after separateSecondBuffer splits it).
  SemExpectOp sharedExpect;
};

/// Whether `value` depends (within `body`) on any of `roots`.
bool dependsOn(Block *body, Value value, const llvm::DenseSet<Value> &roots,
               llvm::DenseMap<Value, bool> &memo) {
  if (roots.contains(value))
    return true;
  if (auto it = memo.find(value); it != memo.end())
    return it->second;
  memo[value] = false;
  Operation *def = value.getDefiningOp();
  bool result = false;
  if (def && def->getBlock() && body->findAncestorOpInBlock(*def)) {
    Operation *top = body->findAncestorOpInBlock(*def);
    top->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (!result && dependsOn(body, operand, roots, memo))
          result = true;
    });
  }
  memo[value] = result;
  return result;
}

bool opDependsOn(Block *body, Operation *op, const llvm::DenseSet<Value> &roots,
                 llvm::DenseMap<Value, bool> &memo) {
  bool result = false;
  op->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (!result && dependsOn(body, operand, roots, memo))
        result = true;
  });
  return result;
}

/// The allocation a ring slot (or the buffer itself) comes from.
Value rootOf(Value v) {
  while (auto slot = v.getDefiningOp<SlotOp>())
    v = slot.getRing();
  return v;
}

/// The producer's `tile.sem_expect` that names the second MMA's buffer ring
/// (null when there is none); `namesFirst` when it names the first MMA's
/// ring too (one semaphore signals both).
SemExpectOp expectFor(MmaOp first, MmaOp second, bool &namesFirst) {
  Value ring = rootOf(second.getB()), firstRing = rootOf(first.getB());
  SemExpectOp found;
  namesFirst = false;
  second->getParentOfType<KernelOp>().walk([&](SemExpectOp expect) {
    bool names = false, both = false;
    for (Value buffer : expect.getBuffers()) {
      names |= rootOf(buffer) == ring;
      both |= rootOf(buffer) == firstRing;
    }
    if (names) {
      found = expect;
      namesFirst = both;
    }
  });
  return found;
}

/// The wait in `body` for the semaphore `expect` signals, or null.
SemWaitOp waitFor(Block *body, SemExpectOp expect) {
  Value sem = rootOf(expect.getSem());
  for (auto wait : body->getOps<SemWaitOp>())
    if (rootOf(wait.getSem()) == sem)
      return wait;
  return {};
}

/// Registers per thread of a warpgroup register tile (32-bit each).
int64_t registersOf(Type type) {
  auto tile = dyn_cast<RegTileType>(type);
  if (!tile)
    return 0;
  int64_t bits = llvm::product_of(tile.getShape()) *
                 tile.getElementType().getIntOrFloatBitWidth();
  return llvm::divideCeil(bits, 128 * 32);
}

/// What the rotated loop keeps in registers besides the two MMA results:
/// addresses, row statistics, indices (measured on attention).
constexpr int64_t kReservedRegisters = 40;

/// Why `loop` is not rotated ("" when it is, with `r` filled in). An empty
/// reason with `r.first` null: not a candidate at all (not two MMAs).
SmallVector<Operation *> recomputeSlice(Block *body, ArrayRef<Value> values,
                                        Rotation &r);

std::string match(scf::ForOp loop, Rotation &r) {
  // Hand-scheduled loops (not pipelined by tile-pipeline) are left alone.
  if (!loop->hasAttr(kPipelinedAttr))
    return "";
  Block *body = loop.getBody();
  if (!loop.getInductionVar().getType().isIndex())
    return "the loop's induction variable is not of type 'index'";
  SmallVector<MmaOp> mmas;
  int64_t others = 0;
  for (Operation &op : body->without_terminator()) {
    if (auto mma = dyn_cast<MmaOp>(op))
      mmas.push_back(mma);
    else
      op.walk(
          [&](Operation *inner) { others += isa<MmaOp, MmaAsyncOp>(inner); });
  }
  if (mmas.size() + others != 2)
    return "";
  if (others)
    return "an MMA is asynchronous already or nested in a region";
  r.loop = loop;
  r.first = mmas[0];
  r.second = mmas[1];
  if (r.second.getType().getScope() != Scope::warpgroup)
    return "the MMAs are not warpgroup-scope (run tile-warp-specialize "
           "first)";
  Value result = r.second.getResult();
  if (!result.hasOneUse() || !isa<scf::YieldOp>(*result.user_begin()))
    return "the second MMA's result is used in the iteration";
  r.carried = result.use_begin()->getOperandNumber();
  Value carriedArg = loop.getRegionIterArgs()[r.carried];
  Value acc = r.second.getAcc();
  llvm::DenseMap<Value, bool> memo;
  llvm::DenseSet<Value> fromCarried{carriedArg};
  if (!acc || !dependsOn(body, acc, fromCarried, memo))
    return "the second MMA does not accumulate into the loop-carried value";
  llvm::DenseSet<Value> fromFirst{r.first.getResult()};
  llvm::DenseMap<Value, bool> memoFirst;
  if (!dependsOn(body, r.second.getA(), fromFirst, memoFirst))
    return "the second MMA does not read the first one's result";
  if (opDependsOn(body, r.first, fromCarried, memo))
    return "the first MMA depends on the loop-carried accumulator";
  for (Operation *user : r.first.getResult().getUsers())
    if (Operation *top = body->findAncestorOpInBlock(*user);
        top && r.second->isBeforeInBlock(top))
      return "the first MMA's result is used after the second MMA";

  // Late ops: everything after the second MMA (side effects only), and the
  // ops right before it that only serve it and depend on nothing computed
  // from the first MMA or the loop-carried values.
  llvm::DenseSet<Value> iterValues{r.first.getResult()};
  for (Value arg : loop.getRegionIterArgs())
    iterValues.insert(arg);
  llvm::DenseMap<Value, bool> memoIter;
  for (Operation *op = r.second->getNextNode(); op != body->getTerminator();
       op = op->getNextNode()) {
    if (op->getNumRegions() || (op->getNumResults() && !isMemoryEffectFree(op)))
      return "'" + op->getName().getStringRef().str() +
             "' after the second MMA is not a plain side effect";
    if (llvm::any_of(op->getUsers(),
                     [&](Operation *user) { return isa<scf::YieldOp>(user); }))
      return "'" + op->getName().getStringRef().str() +
             "' after the second MMA computes a loop-carried value";
    if (opDependsOn(body, op, iterValues, memoIter))
      return "'" + op->getName().getStringRef().str() +
             "' after the second MMA depends on this iteration's results";
    r.late.insert(op);
  }
  r.late.insert(r.second);
  for (Operation *op = r.second->getPrevNode(); op && op != r.first;
       op = op->getPrevNode()) {
    bool servesLate = llvm::all_of(op->getUsers(), [&](Operation *user) {
      Operation *top = body->findAncestorOpInBlock(*user);
      return top && r.late.contains(top);
    });
    bool movable = isMemoryEffectFree(op) || isa<SemWaitOp>(op);
    if (!servesLate || !movable || op->getNumRegions() ||
        opDependsOn(body, op, iterValues, memoIter))
      break;
    r.late.insert(op);
  }

  // The wait for the second MMA's buffer runs late too (just before it),
  // so the next round of that buffer can be loaded while this one is read.
  bool shared = false;
  SemExpectOp expect = expectFor(r.first, r.second, shared);
  SemWaitOp wait = expect ? waitFor(body, expect) : SemWaitOp();
  if (wait && !shared) {
    if (opDependsOn(body, wait, iterValues, memoIter))
      return "the wait for the second MMA's buffer depends on this "
             "iteration's results";
    r.late.insert(wait);
  } else if (expect && !shared) {
    return "the loop does not wait on the semaphore that signals the second "
           "MMA's buffer";
  }
  SmallVector<Operation *> inOrder = r.late.takeVector();
  llvm::sort(inOrder,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  r.late.insert(inOrder.begin(), inOrder.end());

  // What the late ops read from the rest of the iteration: recomputed for
  // the previous iteration when it follows from the induction variable
  // alone, handed over otherwise.
  // A loop-carried value read by a late op directly (the second MMA
  // accumulating into the carried value itself, with no rescale between) is
  // handed over too: the rotated loop no longer carries the accumulator.
  llvm::SetVector<Value> inputs;
  for (Operation *op : r.late)
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands()) {
        if (auto arg = dyn_cast<BlockArgument>(operand)) {
          if (arg.getOwner() == body && arg != loop.getInductionVar())
            inputs.insert(operand);
          continue;
        }
        if (Operation *top =
                body->findAncestorOpInBlock(*operand.getDefiningOp());
            top && !r.late.contains(top))
          inputs.insert(operand);
      }
    });
  SmallVector<Value> recomputed;
  for (Value input : inputs)
    (dependsOn(body, input, iterValues, memoIter) ? r.handed : recomputed)
        .push_back(input);
  // The rest is computed again for the previous iteration: it must be free
  // of side effects, which would otherwise run twice.
  for (Operation *op : recomputeSlice(body, recomputed, r))
    if (!isMemoryEffectFree(op) || op->getNumRegions())
      return "the second MMA's operands are computed by '" +
             op->getName().getStringRef().str() +
             "', which has side effects or regions";

  // The rotated body holds both MMA results and the handed-over operands at
  // once: it must fit the warp role's register budget (spilling costs more
  // than the overlap gains; measured on attention with head dim 64 and three
  // consumer warpgroups). The register tiles handed over are the second
  // MMA's A operand, computed from the first MMA's result (checked above):
  // the next step's value is written into the registers that result frees
  // as it is consumed, so it is not counted again.
  auto roles = loop->getParentOfType<WarpSpecializeOp>();
  if (!roles || !roles.getConsumerRegisters() ||
      !roles.getConsumer().isAncestor(loop->getParentRegion()))
    return "the loop is not in a consumer warp role with a register budget";
  int64_t live = registersOf(r.first.getType()) +
                 registersOf(r.second.getType()) + kReservedRegisters;
  for (Value v : r.handed)
    if (v != acc)
      live += registersOf(v.getType());
  // Register tiles from before the loop that the body reads (an MMA operand
  // kept in registers for the whole loop, e.g. attention's Q) stay live
  // throughout.
  llvm::SetVector<Value> invariant;
  body->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isa<RegTileType>(operand.getType()) &&
          loop.isDefinedOutsideOfLoop(operand))
        invariant.insert(operand);
  });
  for (Value v : invariant)
    live += registersOf(v.getType());
  int64_t budget = *roles.getConsumerRegisters();
  if (live > budget)
    return "it would keep about " + std::to_string(live) +
           " registers per thread live, over the consumers' " +
           std::to_string(budget);

  // Ops that need the carried accumulator wait for the second MMA; they
  // must be free of side effects to move.
  for (Operation &op : body->without_terminator()) {
    if (r.late.contains(&op) || !opDependsOn(body, &op, fromCarried, memo))
      continue;
    if (!isMemoryEffectFree(&op))
      return "'" + op.getName().getStringRef().str() +
             "' uses the loop-carried accumulator and has side effects";
    r.deferred.insert(&op);
  }
  // Everything else fits: the caller may give the second buffer its own
  // semaphore pair and match again.
  if (shared) {
    r.sharedExpect = expect;
    return "the second MMA's buffer is signalled by the same semaphore as "
           "the first's, and its ring is not set up the way tile-pipeline "
           "leaves it, so it cannot be given a semaphore pair of its own";
  }
  return "";
}

/// The body ops (not late ones) that `values` need, recomputed from the
/// induction variable: pure, region-free ops in body order.
SmallVector<Operation *> recomputeSlice(Block *body, ArrayRef<Value> values,
                                        Rotation &r) {
  llvm::SetVector<Operation *> needed;
  SmallVector<Value> work(values);
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || r.late.contains(def) ||
        needed.contains(def))
      continue;
    needed.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered = needed.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Clones `op`, an MMA, as the other form (mma <-> mma_async).
Value cloneMma(OpBuilder &b, Operation *op, IRMapping &map, bool async) {
  auto mma = cast<MmaOp>(op);
  Value acc = mma.getAcc() ? map.lookupOrDefault(mma.getAcc()) : Value();
  Value a = map.lookupOrDefault(mma.getA());
  Value bOperand = map.lookupOrDefault(mma.getB());
  Value result;
  if (async)
    result = MmaAsyncOp::create(b, op->getLoc(), mma.getType(),
                                mma.getFormAttr(), a, bOperand, acc);
  else
    result = MmaOp::create(b, op->getLoc(), mma.getType(), mma.getFormAttr(), a,
                           bOperand, acc);
  map.map(mma.getResult(), result);
  return result;
}

/// Clones the late ops of the step whose induction variable is `iv`, with
/// the handed-over values `handed`: with `upToMma`, the index arithmetic
/// they need, the ops before the second MMA and the MMA itself
/// (asynchronous or not; its result is returned); otherwise the ops after
/// it. Both calls for one step share `map`.
Value cloneLate(OpBuilder &b, Rotation &r, Value iv, ValueRange handed,
                IRMapping &map, bool async, bool upToMma) {
  Block *body = r.loop.getBody();
  if (upToMma) {
    map.map(r.loop.getInductionVar(), iv);
    for (auto [value, h] : llvm::zip(r.handed, handed))
      map.map(value, h);
    SmallVector<Value> inputs;
    for (Operation *op : r.late)
      op->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands())
          if (!map.contains(operand))
            inputs.push_back(operand);
      });
    for (Operation *op : recomputeSlice(body, inputs, r))
      b.clone(*op, map);
  }
  Value result;
  bool before = true;
  for (Operation *op : r.late) {
    if (op == r.second.getOperation()) {
      before = false;
      if (upToMma)
        result = cloneMma(b, op, map, async);
      continue;
    }
    if (before == upToMma)
      b.clone(*op, map);
  }
  return result;
}

/// When the first and second MMA's buffers share one ring semaphore pair
/// (tile-pipeline gives a loop's copies one), the second MMA's buffer could
/// only be released after that MMA, one iteration late, so the producer
/// could not refill the stage in time. This gives it its own pair: the
/// producer waits for it and loads it separately; the loop waits for it just
/// before the second MMA and releases the first MMA's buffer right after the
/// first MMA. Returns false (nothing changed) when the ring is not set up
/// the way tile-pipeline and tile-warp-specialize leave it.
bool separateSecondBuffer(const Rotation &r) {
  scf::ForOp loop = r.loop;
  MmaOp first = r.first, second = r.second;
  SemExpectOp expect = r.sharedExpect;
  Block *body = loop.getBody();
  auto kernel = loop->getParentOfType<KernelOp>();
  Value ring = rootOf(second.getB());
  auto fullSlot = expect.getSem().getDefiningOp<SlotOp>();
  // The loop's release: its one arrive after the second MMA.
  SemArriveOp release;
  for (auto arrive : body->getOps<SemArriveOp>())
    if (second->isBeforeInBlock(arrive))
      release = arrive;
  SemWaitOp loopWait = waitFor(body, expect);
  if (!fullSlot || !release || !loopWait ||
      !loopWait.getSem().getDefiningOp<SlotOp>() ||
      !release.getSem().getDefiningOp<SlotOp>())
    return false;
  // The first buffer's release moves to just after the first MMA: its slot
  // index must be available there, and nothing after that MMA may still
  // read the buffer.
  Operation *index =
      release.getSem().getDefiningOp<SlotOp>().getIndex().getDefiningOp();
  if (index && index->getBlock() == body && !index->isBeforeInBlock(first))
    return false;
  Value firstRing = rootOf(first.getB());
  auto readsFirst = [&](Value v) {
    while (auto sub = v.getDefiningOp<SubtileOp>())
      v = sub.getSource();
    return rootOf(v) == firstRing;
  };
  for (Operation *op = first->getNextNode(); op; op = op->getNextNode()) {
    WalkResult found = op->walk([&](Operation *inner) {
      return llvm::any_of(inner->getOperands(), readsFirst)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (found.wasInterrupted())
      return false;
  }
  Value full = rootOf(expect.getSem()), empty = rootOf(release.getSem());
  SemWaitOp producerWait;
  for (Operation *op = expect->getPrevNode(); op; op = op->getPrevNode())
    if (auto wait = dyn_cast<SemWaitOp>(op);
        wait && rootOf(wait.getSem()) == empty)
      producerWait = wait;
  SemInitOp fullInit, emptyInit;
  kernel.walk([&](SemInitOp init) {
    if (init.getSem() == full)
      fullInit = init;
    if (init.getSem() == empty)
      emptyInit = init;
  });
  if (!producerWait || !fullInit || !emptyInit ||
      !full.getDefiningOp<AllocOp>() || !empty.getDefiningOp<AllocOp>())
    return false;

  // The new pair, allocated and initialised beside the old one.
  Location loc = loop.getLoc();
  OpBuilder b(empty.getDefiningOp());
  b.setInsertionPointAfter(empty.getDefiningOp());
  Value full2 = AllocOp::create(b, loc, full.getType());
  Value empty2 = AllocOp::create(b, loc, empty.getType());
  b.setInsertionPointAfter(emptyInit);
  SemInitOp::create(b, loc, full2, fullInit.getCount());
  SemInitOp::create(b, loc, empty2, emptyInit.getCount());

  // Producer: the second buffer's loads wait for and signal the new pair.
  SmallVector<Value> kept, moved;
  for (Value buffer : expect.getBuffers())
    (rootOf(buffer) == ring ? moved : kept).push_back(buffer);
  SmallVector<LoadAsyncOp> loads;
  for (Operation *op = expect->getNextNode(); op; op = op->getNextNode())
    if (auto load = dyn_cast<LoadAsyncOp>(op);
        load && rootOf(load.getDst()) == ring)
      loads.push_back(load);
  if (loads.empty())
    return false;
  b.setInsertionPoint(loads.front());
  Value stage = fullSlot.getIndex();
  Value emptySlot2 = SlotOp::create(b, loc, empty2, stage);
  SemWaitOp::create(b, loc, emptySlot2, producerWait.getPhase());
  Value fullSlot2 = SlotOp::create(b, loc, full2, stage);
  SemExpectOp::create(b, loc, fullSlot2, moved);
  for (LoadAsyncOp load : loads)
    load.getSemMutable().assign(fullSlot2);
  b.setInsertionPoint(expect);
  SemExpectOp::create(b, loc, expect.getSem(), kept);
  expect.erase();

  // Consumers: wait for the second buffer just before the second MMA,
  // release the first buffer after the first MMA, the second after the
  // second.
  Value loopStage = loopWait.getSem().getDefiningOp<SlotOp>().getIndex();
  b.setInsertionPoint(second);
  SemWaitOp::create(b, loc, SlotOp::create(b, loc, full2, loopStage),
                    loopWait.getPhase());
  Value releaseStage = release.getSem().getDefiningOp<SlotOp>().getIndex();
  b.setInsertionPointAfter(release);
  SemArriveOp::create(b, loc, SlotOp::create(b, loc, empty2, releaseStage));
  release->moveAfter(first);
  if (auto slot = release.getSem().getDefiningOp<SlotOp>();
      slot->getBlock() == body && !slot->isBeforeInBlock(release))
    slot->moveBefore(release);
  return true;
}

void rotate(Rotation &r) {
  scf::ForOp loop = r.loop;
  Block *body = loop.getBody();
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  unsigned k = r.carried;
  auto early = [&]() {
    SmallVector<Operation *> ops;
    for (Operation &op : body->without_terminator())
      if (!r.late.contains(&op))
        ops.push_back(&op);
    return ops;
  }();

  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), any,
                                 /*withElseRegion=*/true);
  b.setInsertionPointToStart(guard.elseBlock());
  scf::YieldOp::create(b, loc, loop.getInitArgs());

  // Prologue: iteration lb up to the second MMA.
  b.setInsertionPointToStart(guard.thenBlock());
  IRMapping pro;
  pro.map(loop.getInductionVar(), lb);
  for (auto [arg, init] :
       llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    pro.map(arg, init);
  for (Operation *op : early)
    b.clone(*op, pro);
  // The rotated loop's values: the original ones but the accumulator, then
  // what the late ops of that step read.
  auto carriedValues = [&](IRMapping &map) {
    SmallVector<Value> values;
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      if (i != k)
        values.push_back(map.lookupOrDefault(v));
    for (Value v : r.handed)
      values.push_back(map.lookupOrDefault(v));
    return values;
  };
  SmallVector<Value> inits = carriedValues(pro);

  // The rotated loop over the other iterations.
  Value start = arith::AddIOp::create(b, loc, lb, step);
  auto rotated = scf::ForOp::create(b, loc, start, ub, step, inits);
  unsigned kept = loop.getNumRegionIterArgs() - 1;
  {
    OpBuilder::InsertionGuard g(b);
    Block *newBody = rotated.getBody();
    b.setInsertionPointToStart(newBody);
    Value iv = rotated.getInductionVar();
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    ValueRange args = rotated.getRegionIterArgs();
    unsigned j = 0;
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
      if (i != k)
        map.map(arg, args[j++]);
    ValueRange handed = args.drop_front(kept);
    Value previous = arith::SubIOp::create(b, loc, iv, step);
    IRMapping late;
    Value o;
    for (Operation *op : early) {
      if (r.deferred.contains(op))
        continue;
      if (op == r.first.getOperation()) {
        cloneMma(b, op, map, /*async=*/true);
        o = cloneLate(b, r, previous, handed, late, /*async=*/true,
                      /*upToMma=*/true);
        MmaWaitOp::create(b, loc, 1);
        continue;
      }
      b.clone(*op, map);
    }
    MmaWaitOp::create(b, loc, 0);
    cloneLate(b, r, previous, handed, late, true, /*upToMma=*/false);
    map.map(loop.getRegionIterArgs()[k], o);
    for (Operation *op : r.deferred)
      b.clone(*op, map);
    scf::YieldOp::create(b, loc, carriedValues(map));
  }

  // Epilogue: the last iteration's second MMA.
  b.setInsertionPointAfter(rotated);
  Value trips = tripCount(b, loc, lb, ub, step);
  Value lastIv = arith::AddIOp::create(
      b, loc, lb,
      arith::MulIOp::create(
          b, loc, arith::SubIOp::create(b, loc, trips, constIndex(b, loc, 1)),
          step));
  IRMapping epi;
  Value o = cloneLate(b, r, lastIv, rotated.getResults().drop_front(kept), epi,
                      /*async=*/false, /*upToMma=*/true);
  cloneLate(b, r, lastIv, rotated.getResults().drop_front(kept), epi, false,
            /*upToMma=*/false);
  SmallVector<Value> results;
  unsigned j = 0;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    results.push_back(i == k ? o : rotated.getResult(j++));
  scf::YieldOp::create(b, loc, results);

  loop.replaceAllUsesWith(guard.getResults());
  loop.erase();
}

struct OverlapMmaPass
    : public tk::tile::impl::TileOverlapMmaBase<OverlapMmaPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      Rotation r;
      std::string why = match(loop, r);
      if (r.sharedExpect && separateSecondBuffer(r)) {
        r = Rotation();
        why = match(loop, r);
      }
      if (!why.empty()) {
        loop.emitRemark("MMAs not overlapped: ") << why;
        continue;
      }
      if (r.first)
        rotate(r);
    }
  }
};
} // namespace
