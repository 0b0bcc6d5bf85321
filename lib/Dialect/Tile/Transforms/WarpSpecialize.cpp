//===- WarpSpecialize.cpp - Producer and consumer warpgroups --------------===//
//
// Input: a kernel whose tile loop holds one loop pipelined by tile-pipeline
// (its prologue `scf.if` before it, its refill `scf.if` at the top of its
// body). Output: TK's load/compute/store template.
//
//   tile.warp_specialize producer(warpgroups = 1, registers = P) {
//     tile.foreach_tile ... group G {      // the loads of every k-step
//       scf.for %j = 0 to trips { <prologue body> }
//     }
//   } consumer(warpgroups = W, registers = R) {
//     tile.foreach_tile ... group G {      // the tile loop without loads,
//       ...                                 // split by rows over W
//     }
//   }
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {

/// Top-level ops of `body` that `roots` need, in order, and the roots.
SmallVector<Operation *> neededBy(Block &body, ArrayRef<Operation *> roots) {
  llvm::SetVector<Operation *> needed;
  SmallVector<Operation *> work(roots);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!needed.insert(op))
      continue;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp())
          if (Operation *top = body.findAncestorOpInBlock(*def))
            if (!op->isAncestor(top))
              work.push_back(top);
    });
  }
  SmallVector<Operation *> ordered = needed.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// When every shared tile the consumers write in `tiles` is accessed there
/// only as the warpgroup's own row slice (subtile [wg, 0]), no shared data
/// passes between consumer warpgroups: their block barriers (which order
/// shared-memory traffic) become warpgroup barriers, and the warpgroups no
/// longer run in step.
void privatizeBarriers(ForeachTileOp tiles, Value wg) {
  auto root = [](Value tile) {
    while (true) {
      if (auto sub = tile.getDefiningOp<SubtileOp>())
        tile = sub.getSource();
      else if (auto slot = tile.getDefiningOp<SlotOp>())
        tile = slot.getRing();
      else
        return tile;
    }
  };
  llvm::DenseSet<Value> written;
  tiles.walk([&](StoreOp store) {
    if (isa<SharedTileType>(store.getDst().getType()))
      written.insert(root(store.getDst()));
  });
  if (written.empty())
    return;
  auto own = [&](Value tile) {
    auto sub = tile.getDefiningOp<SubtileOp>();
    return sub && sub.getRow() == wg && matchPattern(sub.getCol(), m_Zero());
  };
  bool shared = false;
  tiles.walk([&](Operation *op) {
    if (isa<SubtileOp, SlotOp>(op))
      return;
    for (Value operand : op->getOperands())
      if (isa<SharedTileType>(operand.getType()) &&
          written.contains(root(operand)) && !own(operand))
        shared = true;
  });
  if (shared)
    return;
  tiles.walk([&](BarrierOp barrier) {
    if (barrier.getScope() == Scope::block)
      barrier.setScope(Scope::warpgroup);
  });
}

/// Whether something in the tile `body` other than `store` accesses what
/// `store` writes (its view on its device operand), after it or in the same
/// loop (which repeats it): a read, or a write that is not an add-reduction
/// like `store` itself. An async copy out is ordered with neither.
bool accessedAfter(Block &body, StoreOp store) {
  Operation *storeAt = body.findAncestorOpInBlock(*store);
  WalkResult found = body.walk([&](Operation *op) {
    if (op == store.getOperation())
      return WalkResult::advance();
    Value view, device;
    bool reduces = false;
    if (auto other = dyn_cast<StoreOp>(op)) {
      view = other.getDst(), device = other.getDevice();
      reduces = other.getReduce().has_value();
    } else if (auto other = dyn_cast<StoreAsyncOp>(op)) {
      view = other.getDst(), device = other.getDevice();
      reduces = other.getReduce().has_value();
    } else if (auto load = dyn_cast<LoadOp>(op)) {
      view = load.getSrc();
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      view = copy.getSrc(), device = copy.getDevice();
    } else if (auto load = dyn_cast<LoadAsyncOp>(op)) {
      view = load.getSrc(), device = load.getDevice();
    }
    if (view != store.getDst() || device != store.getDevice() ||
        (reduces && store.getReduce()))
      return WalkResult::advance();
    Operation *at = body.findAncestorOpInBlock(*op);
    return at == storeAt || storeAt->isBeforeInBlock(at)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Routes the consumers' stores of whole tiles to global memory through a
/// shared buffer and an async (TMA) store, as TK's epilogue does, when the
/// buffer fits in shared memory: the consumers write the buffer and move on
/// while the copy drains. A store whose view the tile reads or overwrites
/// later stays synchronous. `wg` is the consumer's warpgroup index.
void storeThroughShared(KernelOp kernel, ForeachTileOp tiles, Value wg,
                        int64_t warpgroups) {
  const tk::TargetInfo &target = getTargetInfo(kernel);
  if (!target.hasAsyncCopyEngine)
    return;
  bool any = false;
  // Add-reducing stores anywhere in the tile (attention's dQ, per k-step)
  // come first: without a buffer each element is an atomic add. Then the
  // tile's plain stores.
  SmallVector<StoreOp> stores;
  tiles.walk([&](StoreOp store) {
    if (store.getReduce())
      stores.push_back(store);
  });
  for (auto store : tiles.getBody().front().getOps<StoreOp>())
    if (!store.getReduce())
      stores.push_back(store);
  for (StoreOp store : stores) {
    auto value = dyn_cast<RegTileType>(store.getValue().getType());
    if (!value || value.getScope() != Scope::warpgroup ||
        !isa<GlobalType>(store.getDst().getType()) ||
        llvm::any_of(value.getShape(), [](int64_t d) { return d > 256; }) ||
        accessedAfter(tiles.getBody().front(), store))
      continue;
    // After the last shared tile, before any semaphores: no alignment gap.
    AllocOp last;
    for (auto alloc : kernel.getBody().getOps<AllocOp>())
      if (!last || isa<SharedTileType>(alloc.getType()))
        last = alloc;
    OpBuilder b(last->getBlock(), std::next(last->getIterator()));
    Location loc = store.getLoc();
    // A view in fragment order is staged in the same order, one shared
    // vector per warpgroup (conflict-free 16-byte stores, one bulk copy).
    bool fragments = cast<GlobalType>(store.getDst().getType()).getFragments();
    int64_t elements = value.getShape()[0] * value.getShape()[1];
    Type bufferType =
        fragments ? Type(SharedVecType::get(kernel.getContext(),
                                            {warpgroups, elements},
                                            value.getElementType()))
                  : Type(SharedTileType::get(
                        kernel.getContext(),
                        {value.getShape()[0] * warpgroups, value.getShape()[1]},
                        value.getElementType(), {}));
    auto buffer = AllocOp::create(b, loc, bufferType);
    if (int64_t needed = kernel.getSharedMemoryBytes();
        needed > kernel.getSharedMemoryBudget()) {
      buffer.erase();
      // Visible, because the fallback is slow: a reducing store becomes one
      // atomic add per element (e.g. too many pipeline stages left no room).
      store.emitRemark()
          << "store not staged through shared memory: its buffer would "
             "bring the kernel to "
          << needed << " bytes, over the target's "
          << kernel.getSharedMemoryBudget() << "; it and the stores after it "
          << (store.getReduce() ? "add element by element (atomics)"
                                : "write to global memory directly");
      break;
    }
    b.setInsertionPoint(store);
    Value slice;
    if (fragments) {
      slice = SlotOp::create(b, loc,
                             SharedVecType::get(kernel.getContext(), {elements},
                                                value.getElementType()),
                             buffer, wg);
    } else {
      auto sliceType = SharedTileType::get(
          kernel.getContext(), value.getShape(), value.getElementType(), {});
      slice = SubtileOp::create(b, loc, sliceType, buffer, wg,
                                constIndex(b, loc, 0));
    }
    // The buffer's previous copy out must have read it.
    StoreAsyncWaitOp::create(b, loc);
    StoreOp::create(b, loc, store.getValue(), slice, ValueRange{}, nullptr,
                    Value{});
    StoreAsyncOp::create(b, loc, slice, store.getDst(), store.getCoords(),
                         store.getReduceAttr(), store.getDevice());
    store.erase();
    any = true;
  }
  if (!any)
    return;
  // Shared memory must outlive the last copies out.
  OpBuilder b(tiles->getBlock(), std::next(tiles->getIterator()));
  StoreAsyncWaitOp::create(b, tiles.getLoc());
  // A counter signal in the tile loop or after it announced stores that are
  // now async: it must wait until they are written and publish them (a
  // multi-device signal always does).
  auto publish = [](SignalAddOp add) {
    if (add.getCounters().getType().getDevices() == 0)
      add.setAfterAsyncStores(true);
  };
  tiles.walk(publish);
  for (Operation *op = tiles->getNextNode(); op; op = op->getNextNode())
    op->walk(publish);
}

/// Makes register values that the tile loop `tiles` reads but that are
/// made before it (a tile.fill hoisted out of the tile) again at the top of
/// each tile, where splitting the tile's work over the consumers splits
/// them too. Returns the original ops.
SmallVector<Operation *> remakeRegisterValues(ForeachTileOp tiles) {
  Block &body = tiles.getBody().front();
  OpBuilder b(&body, body.begin());
  IRMapping map;
  SmallVector<Operation *> originals;
  std::function<Value(Value)> remake = [&](Value v) -> Value {
    Operation *def = v.getDefiningOp();
    if (!isa<RegTileType, RegVecType>(v.getType()) || !def ||
        tiles->isAncestor(def) || !isMemoryEffectFree(def) ||
        def->getNumRegions())
      return v;
    if (!map.contains(v)) {
      for (Value operand : def->getOperands())
        remake(operand);
      b.clone(*def, map);
      originals.push_back(def);
    }
    return map.lookup(v);
  };
  SmallVector<OpOperand *> operands;
  body.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands())
      operands.push_back(&operand);
  });
  for (OpOperand *operand : operands)
    operand->set(remake(operand->get()));
  return originals;
}

/// Whether `op` only signals or waits on counters (tile.signal_add /
/// tile.signal_wait / tile.device_barrier, possibly in loops and branches
/// of them) or, with `registerWork`, also moves register tiles between
/// global memory and registers (tile.load / tile.store on global views,
/// tile.fill and elementwise register ops): the work the consumers can run
/// after their tile loop, with no shared memory, semaphores or MMA.
bool onlySignals(Operation *op, bool registerWork = false) {
  auto allowed = [&](Operation *inner) {
    if (isa<SignalAddOp, SignalWaitOp, DeviceBarrierOp>(inner) ||
        isMemoryEffectFree(inner))
      return true;
    if (!registerWork)
      return false;
    if (auto load = dyn_cast<LoadOp>(inner))
      return isa<GlobalType>(load.getSrc().getType());
    if (auto store = dyn_cast<StoreOp>(inner))
      return isa<GlobalType>(store.getDst().getType());
    return false;
  };
  if (allowed(op) && !isMemoryEffectFree(op))
    return true;
  if (!isa<scf::ForOp, scf::IfOp>(op))
    return false;
  WalkResult walk = op->walk([&](Operation *inner) {
    if (inner == op || allowed(inner) ||
        isa<scf::ForOp, scf::IfOp, scf::YieldOp>(inner))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

/// Whether the ops after the tile loop (`after`) load or store through
/// registers (not only signal).
bool movesData(ArrayRef<Operation *> after) {
  return llvm::any_of(after, [](Operation *op) {
    return op
        ->walk([](Operation *inner) {
          return isa<LoadOp, StoreOp>(inner) ? WalkResult::interrupt()
                                             : WalkResult::advance();
        })
        .wasInterrupted();
  });
}

/// Why the ops after the tile loop (`after`, accepted by onlySignals)
/// cannot move into the consumers' role, or "": register work there must
/// not read block-scope values made before the loop (the consumers' split
/// by rows sees only what comes after it), nor have a barrier or fence
/// after the loop order anything (they stay in the kernel body, after the
/// roles).
std::string checkAfterLoop(ForeachTileOp foreach, ArrayRef<Operation *> after) {
  Block *block = foreach->getBlock();
  for (Operation *op : after) {
    WalkResult walk = op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        auto reg = dyn_cast<RegisterType>(v.getType());
        if (!reg || reg.getScope() != Scope::block)
          continue;
        Operation *def = v.getDefiningOp();
        Operation *top = def ? block->findAncestorOpInBlock(*def) : nullptr;
        if (!top || !foreach->isBeforeInBlock(top))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return "'" + op->getName().getStringRef().str() +
             "' after the tile loop reads a block-scope value made before "
             "it";
  }
  if (movesData(after))
    for (Operation *op = foreach->getNextNode(); op; op = op->getNextNode())
      if (isa<BarrierOp, FenceOp>(op))
        return "'" + op->getName().getStringRef().str() +
               "' after the tile loop would stay behind the register work "
               "that moves into the consumers";
  return "";
}

/// Clones the ops after the tile loop `foreach` that `after` names (counter
/// signals and register work, see onlySignals), with the memory-effect-free
/// ops after the loop they use (constants, index arithmetic on the loop's
/// results, register values), after the consumers' loop: the consumers make
/// the block's results, which they publish or finish there, reading what
/// their loop carries (the last tiles a block ran). Returns those
/// memory-effect-free originals; the originals stay until placeSignals, so
/// a split that fails later leaves the kernel as it was.
SmallVector<Operation *> cloneAfterLoop(ForeachTileOp foreach,
                                        ForeachTileOp consumerLoop,
                                        ArrayRef<Operation *> after) {
  OpBuilder b(consumerLoop->getBlock(), std::next(consumerLoop->getIterator()));
  IRMapping results;
  results.map(foreach.getResults(), consumerLoop.getResults());
  SmallVector<Operation *> pure;
  for (Operation *op : neededBy(*foreach->getBlock(), after)) {
    if (!foreach->isBeforeInBlock(op))
      continue;
    bool listed = llvm::is_contained(after, op);
    if (!listed && !isMemoryEffectFree(op))
      continue;
    if (!listed)
      pure.push_back(op);
    b.clone(*op, results);
  }
  return pure;
}

/// Moves the counter signals before the tile loop `foreach` into the roles:
/// into the consumers' role before its loop, and the waits also into the
/// producer's (it must not load what is not ready), a device barrier there
/// as the wait for its count (the consumers add for the block). Waits need
/// nothing of each other, so running them in two roles is the same
/// handshake. Then erases the originals of `before`, of the ops after the
/// loop (`after`, cloned into the consumers' role by cloneAfterLoop) and of
/// the memory-effect-free ops that came along (`pure`).
void placeSignals(ForeachTileOp producerLoop, ForeachTileOp consumerLoop,
                  ArrayRef<Operation *> before, ArrayRef<Operation *> after,
                  ArrayRef<Operation *> pure) {
  OpBuilder b(consumerLoop);
  for (Operation *op : before)
    b.clone(*op);
  b.setInsertionPoint(producerLoop);
  for (Operation *op : before) {
    Operation *copy = b.clone(*op);
    SmallVector<DeviceBarrierOp> barriers;
    copy->walk([&](DeviceBarrierOp barrier) { barriers.push_back(barrier); });
    for (DeviceBarrierOp barrier : barriers) {
      OpBuilder at(barrier);
      SignalWaitOp::create(at, barrier.getLoc(), barrier.getCounters(),
                           barrier.getIndex(), barrier.getExpected(),
                           /*device=*/Value(), /*at_least=*/true);
      if (barrier == copy)
        copy = nullptr;
      barrier.erase();
    }
    if (copy && copy->walk([](SignalAddOp) { return WalkResult::interrupt(); })
                    .wasInterrupted())
      copy->erase();
  }
  for (Operation *op : before)
    op->erase();
  // The originals after the loop, last first: an op goes before the ones
  // whose results it reads (some read the loop's results, which go away
  // with it); the memory-effect-free ones only when nothing else uses
  // them.
  SmallVector<Operation *> gone(after);
  gone.append(pure.begin(), pure.end());
  llvm::sort(gone,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : gone)
    if (llvm::is_contained(after, op) || op->use_empty())
      op->erase();
}

/// The consumers need not poll a counter the producer waits on before its
/// loads: each of their ring waits (`full`) acquires what the producer
/// released with its arrival after that wait, so what the counter
/// publishes is visible to them from the tile's first k-step on. Only a
/// tile whose pipelined loop runs no step gives them no ring wait; they
/// wait themselves there. Applies to the waits of the consumers' tile body
/// that nothing touching memory follows before the pipelined loop (they
/// move down to it). Measured on the all-gather GEMM (4 x H200, M = 32768,
/// N = 7168, K = 8192, the kernel alone): 6.02 ms polling in both roles,
/// 5.61 ms with the consumers' polls removed.
void waitThroughRing(ForeachTileOp consumerLoop) {
  Block &body = consumerLoop.getBody().front();
  scf::ForOp pipelined;
  SmallVector<SignalWaitOp> waits;
  for (Operation &op : body) {
    if (op.hasAttr(kPipelinedAttr)) {
      pipelined = cast<scf::ForOp>(op);
      break;
    }
    if (auto wait = dyn_cast<SignalWaitOp>(op))
      waits.push_back(wait);
    else if (!isMemoryEffectFree(&op))
      waits.clear();
  }
  if (!pipelined || waits.empty())
    return;
  OpBuilder b(pipelined);
  Location loc = pipelined.getLoc();
  Value trips = tripCount(b, loc, pipelined.getLowerBound(),
                          pipelined.getUpperBound(), pipelined.getStep());
  Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, trips,
                                     constIndex(b, loc, 0));
  auto guard = scf::IfOp::create(b, loc, none, /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  for (SignalWaitOp wait : waits) {
    b.clone(*wait);
    wait.erase();
  }
}

/// The communicate region of tile.block_roles runs on every warpgroup of
/// the block, the new producer's included: the rings tile-pipeline built
/// there count one arrival per warpgroup on their `empty` semaphores,
/// `before` of them until now, `after` from now on.
void recountCommunicateRings(KernelOp kernel, int64_t before, int64_t after) {
  llvm::SmallPtrSet<Value, 4> sems;
  kernel.walk([&](SemArriveOp arrive) {
    if (!inCommunicateRegion(arrive))
      return;
    Value sem = arrive.getSem();
    if (auto slot = sem.getDefiningOp<SlotOp>())
      sem = slot.getRing();
    sems.insert(sem);
  });
  kernel.walk([&](SemInitOp init) {
    if (sems.contains(init.getSem()) && init.getCount() == before)
      init.setCount(after);
  });
}

struct WarpSpecializePass
    : public tk::tile::impl::TileWarpSpecializeBase<WarpSpecializePass> {
  using TileWarpSpecializeBase::TileWarpSpecializeBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!kernel.getBody().getOps<WarpSpecializeOp>().empty() ||
        kernel->walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return;
    SmallVector<scf::ForOp> pipelined;
    bool copies = false;
    // (The communicate region of tile.block_roles stays with all of the
    // block's warpgroups.)
    kernel.walk([&](Operation *op) {
      if (inCommunicateRegion(op))
        return;
      if (auto loop = dyn_cast<scf::ForOp>(op);
          loop && loop->hasAttr(kPipelinedAttr))
        pipelined.push_back(loop);
      copies |= isa<CopyOp>(op);
    });
    if (pipelined.empty() && !copies)
      return;
    if (std::string why = split(kernel, pipelined); !why.empty())
      kernel.emitRemark("not warp-specialized: ") << why;
  }

  /// Rewrites `kernel`; "" or why it was left alone (unchanged).
  std::string split(KernelOp kernel, ArrayRef<scf::ForOp> pipelined) {
    const tk::TargetInfo &target = getTargetInfo(kernel);
    if (!target.hasRegisterBudgets)
      return "target " + target.name.str() +
             " has no per-role register "
             "budgets";
    if (pipelined.size() != 1)
      return pipelined.empty() ? "no loop pipelined by tile-pipeline"
                               : "it has " + std::to_string(pipelined.size()) +
                                     " pipelined loops; one is supported";
    scf::ForOp loop = pipelined.front();
    // The tile loop's block: the kernel body, or the compute region of
    // grid-level roles.
    auto foreach = dyn_cast<ForeachTileOp>(loop->getParentOp());
    auto blockRoles = foreach ? dyn_cast<BlockRolesOp>(foreach->getParentOp())
                              : BlockRolesOp();
    if (!foreach || (foreach->getParentOp() != kernel.getOperation() &&
                     !(blockRoles &&
                       foreach->getParentRegion() == &blockRoles.getCompute())))
      return "the pipelined loop is not directly in a 'tile.foreach_tile' "
             "of the kernel body (or of a 'tile.block_roles' compute region)";
    if (kernel.getClusterBlocks() > 1)
      return "cluster kernels are not split yet";
    // Counter signals around the tile loop (a start or end handshake between
    // blocks or devices) go with the roles (placeSignals); after it, the
    // consumers may also finish the block's work through registers
    // (cloneAfterLoop).
    SmallVector<Operation *> before, after;
    for (Operation &op : *foreach->getBlock()) {
      if (&op == foreach.getOperation() || isMemoryEffectFree(&op) ||
          isa<AllocOp, SemInitOp, FenceOp, BarrierOp, ReturnOp, YieldOp>(op))
        continue;
      bool isBefore = op.isBeforeInBlock(foreach);
      if (!onlySignals(&op, /*registerWork=*/!isBefore))
        return "'" + op.getName().getStringRef().str() +
               "' does work outside the tile loop" +
               (isBefore ? ""
                         : " (after it only counter signals and register "
                           "loads and stores of global memory run, in "
                           "the consumers)");
      (isBefore ? before : after).push_back(&op);
    }
    if (std::string why = checkAfterLoop(foreach, after); !why.empty())
      return why;
    // Values the tile loop carries (iter_args) stay with the consumers,
    // whose loop runs the carried work; what reads its results after the
    // loop (the check above) moves into the consumers' role.
    Operation *prologue = nullptr;
    for (Operation &op : foreach.getBody().getOps())
      if (op.hasAttr(kPrologueAttr))
        prologue = &op;
    if (!prologue)
      return "the pipelined loop's prologue is missing";
    int64_t consumers = *kernel.getWarpgroups();
    if (consumers + 1 > int64_t(target.maxWarpgroups()))
      return "a producer warpgroup would exceed the target's " +
             std::to_string(target.maxWarpgroups()) + " warpgroups";
    if (mmaSplit != "columns" && mmaSplit != "contraction") {
      kernel.emitError("'mma-split' must be 'columns' or 'contraction', got '")
          << mmaSplit << "'";
      signalPassFailure();
      return "";
    }
    if (group < 0) {
      kernel.emitError("'group' must be 0 (row-major) or positive, got ")
          << int64_t(group);
      signalPassFailure();
      return "";
    }
    if (producerRegisters < 24 || producerRegisters > 256 ||
        producerRegisters % 8) {
      kernel.emitError("'producer-registers' must be a multiple of 8 in "
                       "[24, 256], got ")
          << int64_t(producerRegisters);
      signalPassFailure();
      return "";
    }
    // The block owns what its threads start with (a multiple of 8 each, at
    // most 248, of the 64K register file); the consumers get the most that
    // leaves after the producer's budget (setmaxnreg waits forever for
    // registers the block does not own).
    int64_t threads = 128 * (consumers + 1);
    int64_t start = kernel.getStartRegisters(threads);
    int64_t consumerRegisters =
        std::min<int64_t>(256, (start * threads - 128 * producerRegisters) /
                                   (128 * consumers) / 8 * 8);
    if (consumerRegisters < start)
      return "the register file leaves the consumers fewer registers than "
             "each thread starts with";

    // A negative option defers to the kernel's attribute (the dialect
    // verifies its type and range), if any.
    int64_t cycles = stagger;
    if (cycles < 0) {
      auto attr = kernel->getAttrOfType<IntegerAttr>(kStaggerAttr);
      cycles = attr ? attr.getInt() : 0;
    }
    if (cycles > kMaxStaggerCycles) {
      kernel.emitError("consumer stagger must be in [0, ")
          << kMaxStaggerCycles << "] cycles, got " << cycles;
      signalPassFailure();
      return "";
    }

    MLIRContext *ctx = kernel.getContext();
    OpBuilder b(foreach);
    Location loc = foreach.getLoc();
    auto roles = WarpSpecializeOp::create(
        b, loc, b.getI32IntegerAttr(1), b.getI32IntegerAttr(consumers),
        b.getI32IntegerAttr(producerRegisters),
        b.getI32IntegerAttr(consumerRegisters),
        cycles ? b.getI32IntegerAttr(cycles) : IntegerAttr());
    for (Region *region : {&roles.getProducer(), &roles.getConsumer()}) {
      Block *block = b.createBlock(region);
      b.setInsertionPointToEnd(block);
      YieldOp::create(b, loc);
    }

    // Consumers: the tile loop without its loads, split by rows.
    b.setInsertionPointToStart(&roles.getConsumer().front());
    Value wg = WarpgroupIdOp::create(b, loc);
    auto consumerLoop = cast<ForeachTileOp>(b.clone(*foreach));
    SmallVector<Operation *> loads;
    consumerLoop.walk([&](Operation *op) {
      if (op->hasAttr(kPrologueAttr) || op->hasAttr(kRefillAttr) ||
          op->hasAttr(kTileCopyAttr))
        loads.push_back(op);
    });
    for (Operation *op : loads)
      op->erase();
    waitThroughRing(consumerLoop);
    SmallVector<Operation *> remade = remakeRegisterValues(consumerLoop);
    SmallVector<Operation *> pure =
        cloneAfterLoop(foreach, consumerLoop, after);
    if (std::string why = splitWork(roles.getConsumer().front(), wg, consumers,
                                    mmaSplit == "contraction");
        !why.empty()) {
      roles.erase();
      return why;
    }

    // Producer: the prologue's loop body run for every k-step.
    b.setInsertionPointToStart(&roles.getProducer().front());
    auto producerLoop = cast<ForeachTileOp>(b.clone(*foreach));
    Block &body = producerLoop.getBody().front();
    Operation *prologueCopy = nullptr, *loopCopy = nullptr;
    // The loads of per-tile buffers stay as they are (the producer is
    // warpgroup 0 of its role).
    SmallVector<Operation *> roots;
    for (Operation &op : body.getOperations()) {
      // A counter wait before the tile's k-loop guards what the tile
      // reads: the producer, which loads it, waits too. One after it
      // guards the tile's stores, which are the consumers' alone: the
      // producer does not wait there (its last tile's poll would not be
      // ordered before anything the consumers do after their stores, such
      // as taking a count off the counter).
      if (isa<SignalWaitOp>(op) && !prologueCopy && !loopCopy)
        roots.push_back(&op);
      if (op.hasAttr(kPrologueAttr))
        prologueCopy = &op;
      if (op.hasAttr(kPipelinedAttr))
        loopCopy = &op;
      if (op.hasAttr(kTileCopyAttr))
        roots.push_back(&op);
    }
    auto pipelinedCopy = cast<scf::ForOp>(loopCopy);
    scf::ForOp prologueLoop;
    prologueCopy->walk([&](scf::ForOp f) { prologueLoop = f; });
    b.setInsertionPoint(pipelinedCopy);
    Value trips =
        tripCount(b, loc, pipelinedCopy.getLowerBound(),
                  pipelinedCopy.getUpperBound(), pipelinedCopy.getStep());
    Value zero = constIndex(b, loc, 0);
    Value one = constIndex(b, loc, 1);
    auto loads2 = scf::ForOp::create(b, loc, zero, trips, one);
    IRMapping map;
    map.map(prologueLoop.getInductionVar(), loads2.getInductionVar());
    b.setInsertionPoint(loads2.getBody()->getTerminator());
    for (Operation &op : prologueLoop.getBody()->without_terminator())
      b.clone(op, map);
    // The producer carries nothing: its loop yields its carried values back
    // unchanged, and its loads must not depend on them.
    Operation *yield = body.getTerminator();
    for (auto [operand, arg] :
         llvm::zip(yield->getOpOperands(), producerLoop.getRegionIterArgs()))
      operand.set(arg);
    // Keep only what the loads need.
    roots.push_back(loads2);
    SmallVector<Operation *> keep = neededBy(body, roots);
    llvm::SmallPtrSet<Operation *, 32> kept(keep.begin(), keep.end());
    // What the loads need besides the loads and waits themselves runs in
    // the producer as well as in the consumers: it must have no effects.
    for (Operation *op : keep)
      if (!llvm::is_contained(roots, op) && !isMemoryEffectFree(op)) {
        std::string name = op->getName().getStringRef().str();
        roles.erase(); // (erases `op`, a clone in the producer)
        return "the producer's loads depend on '" + name +
               "', which has side effects (the producer would run them too)";
      }
    SmallVector<Operation *> drop;
    for (Operation &op : body.without_terminator())
      if (!kept.contains(&op))
        drop.push_back(&op);
    for (Operation *op : llvm::reverse(drop)) {
      op->dropAllUses();
      op->erase();
    }
    for (BlockArgument arg : producerLoop.getRegionIterArgs())
      if (llvm::any_of(arg.getUsers(),
                       [&](Operation *user) { return user != yield; })) {
        roles.erase();
        return "the producer's loads or waits depend on values the tile "
               "loop carries (iter_args)";
      }

    // (Only now, when the split cannot fail any more: they add the
    // consumers' shared buffers to the kernel.)
    privatizeBarriers(consumerLoop, wg);
    storeThroughShared(kernel, consumerLoop, wg, consumers);

    // Register work after the loop may read or overwrite what the loop's
    // staged stores wrote: each consumer warpgroup waits until its stores
    // are written, not only read.
    if (auto wait =
            dyn_cast_or_null<StoreAsyncWaitOp>(consumerLoop->getNextNode());
        wait && movesData(after))
      wait.setWritten(true);
    placeSignals(producerLoop, consumerLoop, before, after, pure);

    // A persistent grid keeps the ring's phases across tiles only when every
    // tile runs the same number of k-steps (bounds from outside the tile
    // loop); otherwise each block keeps its one tile.
    bool sameTrips = sameTripsPerTile(loop, foreach);
    foreach
      .erase();
    for (Operation *op : llvm::reverse(remade))
      if (op->use_empty())
        op->erase();
    kernel.setWarpgroupsAttr(b.getI32IntegerAttr(consumers + 1));
    recountCommunicateRings(kernel, consumers, consumers + 1);
    // Persistent when every tile runs the same number of steps (the ring
    // position follows from the tile iteration), or when the program asks
    // for it (`grid = persistent`; tile-pipeline's running sum of the trip
    // counts keeps the position). Otherwise one tile per block: a static
    // order balances tiles of different work worse than the hardware's
    // block scheduler (measured on causal attention).
    bool persistent = sameTrips || kernel.getGrid() == GridPolicy::persistent;
    if (sameTrips)
      for (ForeachTileOp tiles : {producerLoop, consumerLoop})
        if (group > 0 && tiles.getBounds().size() == 2 && !tiles.getGroup())
          tiles.setGroupAttr(b.getI64IntegerAttr(group));
    if (persistent)
      kernel.setGridAttr(GridPolicyAttr::get(ctx, GridPolicy::persistent));
    return "";
  }
};
} // namespace
