//===- Pipeline.cpp - Copies in a loop become an N-stage async ring -------===//
//
// Before (naive): each iteration copies its tiles into shared buffers, then
// computes on them.
//
//   scf.for %k = %lb to %ub step %s {
//     tile.copy %A[%m, %k] -> %a
//     ... reads %a ...
//   }
//
// After: %a is a ring of N buffers; warpgroup 0 issues N - 1 loads ahead
// and, at the top of iteration i, the load of iteration i + N - 1 (after the
// stage's `empty` semaphore says every warpgroup is done with it); every
// warpgroup waits on the stage's `full` semaphore, computes, and arrives on
// `empty`. The ring position is base + i, where base counts the iterations
// the block ran in earlier executions of the loop (earlier tiles).
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {

/// A loop the pass can pipeline, and what it needs to rewrite it.
struct LoopPlan {
  scf::ForOp loop;
  SmallVector<CopyOp> copies;     // in body order
  SmallVector<AllocOp> allocs;    // the buffer of each copy
  SmallVector<Operation *> slice; // body ops the coordinates need, in order
  ForeachTileOp foreach;          // the tile loop around it, or null
};

/// Adds the body ops `value` depends on to `needed`; "" or why not.
/// Whether `user` is a tile.mma_async that a later `tile.mma_wait 0` of its
/// own block completes: it reads its operands only while that block runs.
bool waitedInItsBlock(Operation *user) {
  if (!isa<MmaAsyncOp>(user))
    return false;
  for (Operation *op = user->getNextNode(); op; op = op->getNextNode())
    if (auto wait = dyn_cast<MmaWaitOp>(op); wait && wait.getPending() == 0)
      return true;
  return false;
}

std::string collectSlice(scf::ForOp loop, Value value,
                         llvm::SetVector<Operation *> &needed) {
  Block *body = loop.getBody();
  if (value == loop.getInductionVar())
    return "";
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() == body ? "copy coordinates depend on a "
                                    "loop-carried value"
                                  : "";
  Operation *def = value.getDefiningOp();
  if (def->getBlock() != body)
    return "";
  // Recomputed for the iteration N - 1 ahead: it must have no side effects
  // (operations that only may trap, like integer division, are fine: the
  // loop computes the same values in that iteration anyway).
  if (!isMemoryEffectFree(def) || def->getNumRegions())
    return "copy coordinates are computed by '" +
           def->getName().getStringRef().str() +
           "', which has side effects or regions";
  for (Value operand : def->getOperands())
    if (std::string why = collectSlice(loop, operand, needed); !why.empty())
      return why;
  needed.insert(def);
  return "";
}

/// Whether `region` stores (tile.store, tile.store_async) to what `copy`
/// reads: a load issued ahead of those stores would read stale data. Views
/// are kernel parameters, and distinct ones, or one view on distinct device
/// operands, are taken not to overlap.
bool storesTo(Region &region, CopyOp copy) {
  WalkResult found = region.walk([&](Operation *op) {
    Value dst, device;
    if (auto store = dyn_cast<StoreOp>(op))
      dst = store.getDst(), device = store.getDevice();
    else if (auto store = dyn_cast<StoreAsyncOp>(op))
      dst = store.getDst(), device = store.getDevice();
    return dst == copy.getSrc() && device == copy.getDevice()
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Why `loop` cannot be pipelined, or "" with `plan` filled in.
std::string planLoop(KernelOp kernel, scf::ForOp loop, LoopPlan &plan,
                     bool usesBeforeLoop = false) {
  plan.loop = loop;
  if (loop->getParentOfType<WarpSpecializeOp>())
    return "the loop is in a warp role, whose loads are scheduled by hand";
  if (!kernel.getWarpgroups())
    return "the kernel has no launch(warpgroups = N), so it is unknown how "
           "many warpgroups release each stage";
  if (!loop.getInductionVar().getType().isIndex())
    return "the loop's induction variable is not of type 'index'";
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> needed;
  for (auto copy : body->getOps<CopyOp>()) {
    auto alloc = copy.getDst().getDefiningOp<AllocOp>();
    if (!alloc)
      return "a copy's destination is not a 'tile.alloc'";
    std::string why;
    forEachBufferUse(alloc, [&](OpOperand &use) {
      Operation *user = use.getOwner();
      Operation *inBody = body->findAncestorOpInBlock(*user);
      if (!why.empty() ||
          (!inBody && usesBeforeLoop && user->getBlock() == loop->getBlock() &&
           user->isBeforeInBlock(loop)))
        return;
      if (!inBody)
        why = "a copied buffer is used outside the loop";
      else if (inBody != copy && inBody->isBeforeInBlock(copy))
        why = "a copied buffer is used before its copy in the iteration";
      else if (isa<MmaAsyncOp>(user) && !waitedInItsBlock(user))
        why = "a copied buffer is read by 'tile.mma_async', which may still "
              "read it when the iteration ends";
      else if (isa<CopyOp>(user) && user != copy.getOperation())
        why = "a copied buffer is copied into twice";
    });
    if (!why.empty())
      return why;
    if (storesTo(loop.getRegion(), copy))
      return "the loop stores to a view it copies from, so loads issued "
             "ahead could read it before those stores";
    SmallVector<Value> operands(copy.getCoords());
    if (Value device = copy.getDevice())
      operands.push_back(device);
    for (Value operand : operands)
      if (std::string why = collectSlice(loop, operand, needed); !why.empty())
        return why;
    plan.copies.push_back(copy);
    plan.allocs.push_back(alloc);
  }
  plan.slice = needed.takeVector();
  llvm::sort(plan.slice,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });

  // In the kernel body or a block role, the loop runs once per block.
  Operation *parent = loop->getParentOp();
  if (isa<KernelOp, BlockRolesOp>(parent))
    return "";
  plan.foreach = dyn_cast<ForeachTileOp>(parent);
  // Directly in a tile loop, the ring position continues from the block's
  // earlier tiles (tile.prefix_sum of the trip counts).
  if (!plan.foreach)
    return "the ring position across executions of the loop is unknown: the "
           "loop must be in the kernel body or a 'tile.block_roles' region, "
           "or directly in a 'tile.foreach_tile'";
  return "";
}

/// Where each planned copy reads for the iteration `iv`: its coordinates
/// and device (null for the launch's own), from the slice cloned with the
/// induction variable replaced.
struct CopyAt {
  SmallVector<Value> coords;
  Value device;
};
SmallVector<CopyAt> copiesAt(OpBuilder &b, LoopPlan &plan, Value iv) {
  IRMapping map;
  map.map(plan.loop.getInductionVar(), iv);
  for (Operation *op : plan.slice)
    b.clone(*op, map);
  SmallVector<CopyAt> at;
  for (CopyOp copy : plan.copies) {
    at.emplace_back();
    for (Value c : copy.getCoords())
      at.back().coords.push_back(map.lookupOrDefault(c));
    if (Value device = copy.getDevice())
      at.back().device = map.lookupOrDefault(device);
  }
  return at;
}

/// The ring type holding `stages` copies of `buffer`.
Type ringType(Type buffer, int64_t stages) {
  if (auto tile = dyn_cast<SharedTileType>(buffer)) {
    SmallVector<int64_t> shape{stages};
    llvm::append_range(shape, tile.getShape());
    return SharedTileType::get(buffer.getContext(), shape,
                               tile.getElementType(), tile.getSwizzle());
  }
  auto vec = cast<SharedVecType>(buffer);
  return SharedVecType::get(buffer.getContext(), {stages, vec.getLength()},
                            vec.getElementType());
}

/// Shared-memory bytes of the kernel once `plan`'s buffers are rings of
/// `stages` and two arrays of `stages` semaphores follow the allocations.
int64_t bytesWithStages(KernelOp kernel, LoopPlan &plan, int64_t stages) {
  SmallVector<Type> saved;
  for (AllocOp alloc : plan.allocs) {
    saved.push_back(alloc.getType());
    alloc.getResult().setType(ringType(alloc.getType(), stages));
  }
  int64_t bytes = kernel.getSharedMemoryBytes();
  for (auto [alloc, type] : llvm::zip(plan.allocs, saved))
    alloc.getResult().setType(type);
  return llvm::alignTo(bytes, 8) + 2 * 8 * stages;
}

/// Full and empty semaphore arrays of `stages` after the kernel's last
/// allocation, initialised (one expect arrival; one arrival per warpgroup).
std::pair<Value, Value> createSemaphores(KernelOp kernel, int64_t stages,
                                         Location loc) {
  MLIRContext *ctx = kernel.getContext();
  AllocOp last;
  for (auto alloc : kernel.getBody().getOps<AllocOp>())
    last = alloc;
  OpBuilder b(last->getBlock(), std::next(last->getIterator()));
  Value full = AllocOp::create(b, loc, SemType::get(ctx, stages));
  Value empty = AllocOp::create(b, loc, SemType::get(ctx, stages));
  SemInitOp::create(b, loc, full, 1);
  SemInitOp::create(b, loc, empty, *kernel.getWarpgroups());
  FenceOp::create(b, loc, FenceKind::sem_init);
  BarrierOp::create(b, loc, Scope::block);
  return {full, empty};
}

/// Why the buffer `copy` fills cannot be handed to the block with its own
/// semaphores, or "": `firstUse` is the body op before which the block waits
/// for it, `lastUse` the one after which it is released (null: no use).
std::string planTileCopy(KernelOp kernel, CopyOp copy, Operation *&firstUse,
                         Operation *&lastUse) {
  if (!kernel.getWarpgroups())
    return "the kernel has no launch(warpgroups = N), so it is unknown how "
           "many warpgroups release the buffer";
  if (copy->getParentOfType<WarpSpecializeOp>())
    return "the copy is in a warp role, whose loads are scheduled by hand";
  auto alloc = copy.getDst().getDefiningOp<AllocOp>();
  if (!alloc)
    return "the copy's destination is not a 'tile.alloc'";
  Block *body = copy->getBlock();
  firstUse = lastUse = nullptr;
  std::string why;
  forEachBufferUse(alloc, [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (!why.empty() || user == copy.getOperation())
      return;
    Operation *inBody = body->findAncestorOpInBlock(*user);
    if (!inBody)
      why = "the copied buffer is used outside the tile loop";
    else if (inBody->isBeforeInBlock(copy))
      why = "the copied buffer is used before its copy in the tile";
    else if ((isa<MmaAsyncOp>(user) && !waitedInItsBlock(user)) ||
             isa<CopyOp>(user))
      why = "the copied buffer is also read by 'tile.mma_async' or copied "
            "into again";
    if (!why.empty())
      return;
    if (!lastUse || lastUse->isBeforeInBlock(inBody))
      lastUse = inBody;
    if (!firstUse || inBody->isBeforeInBlock(firstUse))
      firstUse = inBody;
  });
  return why;
}

/// The automatic choice's cap: three stages hide the load latency of the
/// GEMM and attention loops measured so far, and leave shared memory for a
/// TMA-store epilogue (docs/passes/pipeline.md).
constexpr int64_t kMaxAutoStages = 3;

struct PipelinePass : public tk::tile::impl::TilePipelineBase<PipelinePass> {
  using TilePipelineBase::TilePipelineBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (getTargetInfo(kernel).vendor == tk::Vendor::amd)
      return runForAMD(kernel);
    SmallVector<CopyOp> tileCopies;
    kernel.walk([&](CopyOp copy) {
      if (isa<ForeachTileOp>(copy->getParentOp()))
        tileCopies.push_back(copy);
    });
    for (CopyOp copy : tileCopies) {
      Operation *firstUse = nullptr, *lastUse = nullptr;
      if (std::string why = planTileCopy(kernel, copy, firstUse, lastUse);
          !why.empty()) {
        copy.emitRemark("not made asynchronous: ") << why;
        continue;
      }
      // tile.stages = n on the copy: n buffers taken in turn by the tiles,
      // so the next tile's load overlaps this tile's work.
      int64_t n = 1;
      if (auto attr = copy->getAttrOfType<IntegerAttr>(kStagesAttr))
        n = attr.getInt();
      int64_t extra =
          (n - 1) * getSharedTileBytes(copy.getDst().getType()) + 16 * n;
      int64_t budget = kernel.getSharedMemoryBudget();
      if (kernel.getSharedMemoryBytes() + extra > budget) {
        copy.emitError() << n << " buffer(s) of the copy and their semaphores "
                         << "need " << kernel.getSharedMemoryBytes() + extra
                         << " bytes of shared memory; "
                         << getTargetInfo(kernel).name << " allows " << budget;
        return signalPassFailure();
      }
      rewriteTileCopy(kernel, copy, firstUse, lastUse, n);
    }
    SmallVector<scf::ForOp> loops;
    kernel.walk([&](scf::ForOp loop) {
      if (!loop.getBody()->getOps<CopyOp>().empty())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      LoopPlan plan;
      if (std::string why = planLoop(kernel, loop, plan); !why.empty()) {
        loop.emitRemark("not pipelined: ") << why;
        continue;
      }
      std::optional<int64_t> stages = chooseStages(kernel, plan);
      if (!stages)
        return signalPassFailure();
      rewrite(kernel, plan, *stages);
    }
  }

  /// AMD (no TMA, no mbarriers): each loop's copies are split into a
  /// global → register load of the next iteration's tile, issued at the top
  /// of the iteration so it overlaps the MFMAs, and a register → LDS store at
  /// the end, between two block barriers (the synchronous copy's guarantees).
  /// One LDS buffer per copy, as before; the staged tile costs registers
  /// (`#tile.chunks`: 16-byte runs per thread). A loop with tile.stages = 1
  /// (or the option stages = 1) keeps its synchronous copies.
  void runForAMD(KernelOp kernel) {
    // The AMD schedules restart per tile and were sized for one tile per
    // block (a persistent loop around attention's exceeds gfx950's SGPRs).
    // Grid-level roles need every block resident: they stay persistent.
    if (kernel.getGrid() == GridPolicy::persistent &&
        kernel.getBody().getOps<BlockRolesOp>().empty()) {
      kernel.emitRemark("one tile per block on AMD: persistent grids are "
                        "not scheduled there yet");
      kernel.setGridAttr(
          GridPolicyAttr::get(kernel.getContext(), GridPolicy::tiles));
    }
    if (kernel.getSharedMemoryBytes() > kernel.getSharedMemoryBudget())
      moveOperandsToRegisters(kernel);
    SmallVector<scf::ForOp> loops;
    kernel.walk([&](scf::ForOp loop) {
      if (!loop.getBody()->getOps<CopyOp>().empty())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto attr = stagesAttr(loop);
      // The AMD forms fix their own LDS stages: any count but 1 pipelines,
      // but a value the option does not allow is an error as on NVIDIA.
      if (!attr && failed(checkStageCount(loop, stages)))
        return signalPassFailure();
      if ((attr && attr.getInt() == 1) || (!attr && stages == 1))
        continue;
      LoopPlan plan;
      std::string why = planLoop(kernel, loop, plan, /*usesBeforeLoop=*/true);
      // Nothing carries a ring position across executions on AMD.
      if (!why.empty() && !StringRef(why).starts_with("the ring position")) {
        loop.emitRemark("not pipelined: ") << why;
        continue;
      }
      SmallVector<RegTileType> staged;
      for (CopyOp copy : plan.copies) {
        auto tile = dyn_cast<SharedTileType>(copy.getDst().getType());
        if (!tile) {
          why = "a copy fills a shared vector, which has no staged form";
          break;
        }
        MLIRContext *ctx = kernel.getContext();
        int64_t eb = std::max<int64_t>(
            1, tile.getElementType().getIntOrFloatBitWidth() / 8);
        auto type = getCheckedType<RegTileType>(
            ctx, why, tile.getShape(), tile.getElementType(), Scope::block,
            ChunksLayoutAttr::get(ctx, getTargetInfo(kernel).warpSize,
                                  kernel.getNumWarps(), 16 / eb));
        FragmentMap map;
        if (!type ||
            failed(getFragmentMap(type, kernel.getNumWarps(), map, why))) {
          why = "the staged tile does not fit: " + why;
          break;
        }
        staged.push_back(type);
      }
      if (staged.size() != plan.copies.size()) {
        loop.emitRemark("not pipelined: ") << why;
        continue;
      }
      if (fitsPingPong(kernel, plan)) {
        rewritePingPong(kernel, plan, staged);
      } else {
        rewriteForAMD(plan, staged);
        // One wave per SIMD: nothing else hides its latencies, so its own
        // loads and MFMAs are interleaved (the lowering's scheduling groups).
        if (kernel.getWarpgroups() == 1)
          loop->setAttr(kInterleaveAttr, UnitAttr::get(kernel.getContext()));
      }
    }
  }

  /// HipKittens' 8-wave ping-pong needs the kernel's two warpgroups (two
  /// waves per SIMD) and three LDS stages of every copied buffer.
  static bool fitsPingPong(KernelOp kernel, LoopPlan &plan) {
    if (kernel.getWarpgroups() != 2)
      return false;
    // The buffers become rings whose slots exist only in the loop.
    for (AllocOp alloc : plan.allocs) {
      bool inLoop = true;
      forEachBufferUse(alloc, [&](OpOperand &use) {
        inLoop &= plan.loop->isAncestor(use.getOwner());
      });
      if (!inLoop)
        return false;
    }
    SmallVector<Type> saved;
    for (AllocOp alloc : plan.allocs) {
      saved.push_back(alloc.getType());
      alloc.getResult().setType(ringType(alloc.getType(), 3));
    }
    int64_t bytes = kernel.getSharedMemoryBytes();
    for (auto [alloc, type] : llvm::zip(plan.allocs, saved))
      alloc.getResult().setType(type);
    return bytes <= kernel.getSharedMemoryBudget();
  }

  /// The 8-wave ping-pong: warpgroup 1 starts one barrier late, so while
  /// one warpgroup runs an iteration's memory phase (its runs of the next
  /// tiles: global loads, then LDS stores) the other runs its compute phase
  /// (the MFMAs), and they swap at every block barrier. Tile k lives in
  /// stage k mod 3: the memory phase of tile k + 1 can then overlap the
  /// other warpgroup's compute on tile k - 1 (two stages would race).
  void rewritePingPong(KernelOp kernel, LoopPlan &plan,
                       ArrayRef<RegTileType> staged) {
    scf::ForOp loop = plan.loop;
    Location loc = loop.getLoc();
    OpBuilder b(plan.allocs.back()->getBlock(),
                std::next(plan.allocs.back()->getIterator()));
    SmallVector<Value> rings;
    for (AllocOp alloc : plan.allocs)
      rings.push_back(
          AllocOp::create(b, alloc.getLoc(), ringType(alloc.getType(), 3)));
    auto slot = [&](OpBuilder &b, Value ring, Value stage) {
      return SlotOp::create(b, loc, ring, stage).getResult();
    };
    // Prologue: tile 0 into stage 0 by the whole block; then warpgroup 1
    // falls one barrier behind.
    b.setInsertionPoint(loop);
    Value zero = constIndex(b, loc, 0), one = constIndex(b, loc, 1);
    Value three = constIndex(b, loc, 3);
    for (auto [copy, ring, at] :
         llvm::zip(plan.copies, rings, copiesAt(b, plan, loop.getLowerBound())))
      CopyOp::create(b, copy.getLoc(), copy.getSrc(), at.coords,
                     slot(b, ring, zero), at.device);
    Value wg = WarpgroupIdOp::create(b, loc);
    auto lateBarrier = [&](OpBuilder &b, Value which) {
      auto branch = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wg, which),
          /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      BarrierOp::create(b, loc, Scope::block);
    };
    lateBarrier(b, one);
    // Memory phase: this thread's runs of the next tiles into the next
    // stage. Compute phase: the body on the current stage.
    b.setInsertionPointToStart(loop.getBody());
    Value iv = loop.getInductionVar();
    Value k = arith::DivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
        loop.getStep());
    Value current = arith::RemUIOp::create(b, loc, k, three);
    Value next = arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, k, one), three);
    Value nextIv = arith::AddIOp::create(b, loc, iv, loop.getStep());
    for (auto [copy, ring, type, at] :
         llvm::zip(plan.copies, rings, staged, copiesAt(b, plan, nextIv))) {
      Value runs =
          LoadOp::create(b, copy.getLoc(), type, copy.getSrc(), at.coords);
      StoreOp::create(b, copy.getLoc(), runs, slot(b, ring, next), ValueRange{},
                      nullptr, Value{});
    }
    BarrierOp::create(b, loc, Scope::block);
    for (auto [alloc, ring] : llvm::zip(plan.allocs, rings))
      alloc.getResult().replaceAllUsesWith(slot(b, ring, current));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    BarrierOp::create(b, loc, Scope::block);
    // Warpgroup 0 makes up the barrier warpgroup 1 took first.
    b.setInsertionPointAfter(loop);
    lateBarrier(b, zero);
    for (CopyOp copy : plan.copies)
      copy.erase();
    for (AllocOp alloc : plan.allocs)
      alloc.erase();
    loop->removeAttr(kStagesAttr);
  }

  /// When the kernel's LDS exceeds the chip's: a shared tile copied once
  /// before a loop and read in it only as the A operand of mmas (attention's
  /// Q) is loaded into registers right after its copy, and the copy goes
  /// through the buffer of a same-typed tile that only the loop uses (whose
  /// contents are dead until the loop's first copy): the tile's LDS is
  /// freed. A tile the program itself loads into registers once, between
  /// its copy and the loop, is copied through that buffer the same way. A
  /// remark says so.
  void moveOperandsToRegisters(KernelOp kernel) {
    const tk::TargetInfo &target = getTargetInfo(kernel);
    for (AllocOp alloc :
         llvm::make_early_inc_range(kernel.getBody().getOps<AllocOp>())) {
      if (kernel.getSharedMemoryBytes() <= target.sharedMemoryBytes)
        return;
      auto type = dyn_cast<SharedTileType>(alloc.getType());
      if (!type || type.isRing())
        continue;
      CopyOp copy;
      SmallVector<MmaOp> reads;
      LoadOp load;
      bool only = true;
      for (OpOperand &use : alloc->getUses()) {
        auto c = dyn_cast<CopyOp>(use.getOwner());
        auto m = dyn_cast<MmaOp>(use.getOwner());
        auto l = dyn_cast<LoadOp>(use.getOwner());
        if (c && !copy)
          copy = c;
        else if (m && use.getOperandNumber() == 0 &&
                 m.getB() != alloc.getResult())
          reads.push_back(m);
        else if (l && !load && isa<RegTileType>(l.getType()))
          load = l;
        else
          only = false;
      }
      if (!only || !copy || reads.empty() == !load)
        continue;
      // The loop the tile serves: the one the mmas read it in, or the one
      // after the program's load. Tile and loads must come before it.
      scf::ForOp loop;
      if (load)
        for (Operation *op = load->getNextNode(); op && !loop;
             op = op->getNextNode())
          loop = dyn_cast<scf::ForOp>(op);
      else
        loop = reads.front()->getParentOfType<scf::ForOp>();
      Operation *firstRead = load ? load.getOperation() : loop.getOperation();
      if (!loop || copy->getBlock() != firstRead->getBlock() ||
          !copy->isBeforeInBlock(firstRead) ||
          !llvm::all_of(reads, [&](MmaOp m) { return loop->isAncestor(m); }))
        continue;
      AllocOp host;
      for (CopyOp c : loop.getBody()->getOps<CopyOp>()) {
        auto other = c.getDst().getDefiningOp<AllocOp>();
        if (other && other != alloc && other.getType() == alloc.getType() &&
            llvm::all_of(other->getUsers(),
                         [&](Operation *u) { return loop->isAncestor(u); })) {
          host = other;
          break;
        }
      }
      if (!host)
        continue;
      // The mmas' operand becomes a load right after the copy; then the copy
      // and the load go through the host buffer.
      if (!load) {
        OpBuilder b(copy->getBlock(), std::next(copy->getIterator()));
        auto regs = RegTileType::get(type.getShape(), type.getElementType(),
                                     Scope::block);
        load = LoadOp::create(b, copy.getLoc(), regs, alloc.getResult(),
                              ValueRange{});
        for (MmaOp m : reads)
          m.getAMutable().assign(load.getResult());
      }
      copy.getDstMutable().assign(host.getResult());
      load.getSrcMutable().assign(host.getResult());
      copy.emitRemark("the copied tile is kept in registers (the kernel's "
                      "shared tiles exceed ")
          << target.name << "'s " << target.sharedMemoryBytes
          << " bytes of LDS): it is copied through a buffer the loop refills "
             "and loaded once";
      alloc.erase();
    }
  }

  void rewriteForAMD(LoopPlan &plan, ArrayRef<RegTileType> staged) {
    scf::ForOp loop = plan.loop;
    Location loc = loop.getLoc();
    auto fetch = [&](OpBuilder &b, Value iv) {
      SmallVector<Value> values;
      for (auto [copy, type, at] :
           llvm::zip(plan.copies, staged, copiesAt(b, plan, iv)))
        values.push_back(
            LoadOp::create(b, copy.getLoc(), type, copy.getSrc(), at.coords));
      return values;
    };
    auto commit = [&](OpBuilder &b, ValueRange values) {
      BarrierOp::create(b, loc, Scope::block);
      for (auto [copy, value] : llvm::zip(plan.copies, values))
        StoreOp::create(b, copy.getLoc(), value, copy.getDst(), ValueRange{},
                        nullptr, Value{});
      BarrierOp::create(b, loc, Scope::block);
    };
    // Prologue: the first iteration's tiles.
    OpBuilder b(loop);
    commit(b, fetch(b, loop.getLowerBound()));
    // Top of each iteration: the next one's tiles (past the end they read
    // as zeros and are never used).
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> nextTiles =
        fetch(b, arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                       loop.getStep()));
    // End of each iteration: into the buffers.
    b.setInsertionPoint(loop.getBody()->getTerminator());
    commit(b, nextTiles);
    for (CopyOp copy : plan.copies)
      copy.erase();
  }

  /// The loop's tile.stages, unless the `stages` option overrides it.
  IntegerAttr stagesAttr(scf::ForOp loop) {
    if (overrideStages && stages > 0)
      return {};
    return loop->getAttrOfType<IntegerAttr>(kStagesAttr);
  }

  /// Checks the `stages` option's value (a loop's tile.stages is verified
  /// by the dialect), reporting at `loop`: 0 (automatic) or a positive count
  /// of at most kMaxStages, checked before any ring of that many stages is
  /// sized (its type could not hold them, its byte count could overflow).
  static LogicalResult checkStageCount(scf::ForOp loop, int64_t requested) {
    if (requested < 0)
      return loop.emitError("the 'stages' option must be 0 (automatic) or "
                            "positive, got ")
             << requested;
    if (requested > kMaxStages)
      return loop.emitError("the 'stages' option must be at most ")
             << kMaxStages << " (the largest ring), got " << requested;
    return success();
  }

  /// The stage count for `plan`, or nullopt after a diagnostic.
  std::optional<int64_t> chooseStages(KernelOp kernel, LoopPlan &plan) {
    const tk::TargetInfo &target = getTargetInfo(kernel);
    int64_t budget = kernel.getSharedMemoryBudget();
    auto fits = [&](int64_t n) {
      return bytesWithStages(kernel, plan, n) <= budget;
    };
    int64_t most = 0;
    for (int64_t n = 1; n <= 16 && fits(n); ++n)
      most = n;
    int64_t requested = stages;
    StringRef from = "the 'stages' option";
    if (auto attr = stagesAttr(plan.loop)) {
      // The dialect verifies it is positive.
      requested = attr.getInt();
      from = "'tile.stages'";
    }
    if (failed(checkStageCount(plan.loop, requested)))
      return std::nullopt;
    if (requested == 0) {
      if (most == 0) {
        plan.loop.emitError("cannot pipeline: even one stage needs ")
            << bytesWithStages(kernel, plan, 1) << " bytes of shared memory; "
            << target.name << " allows " << budget;
        return std::nullopt;
      }
      return std::min<int64_t>(most, kMaxAutoStages);
    }
    if (requested > most) {
      auto diag = plan.loop.emitError()
                  << requested << " stages (from " << from << ") need "
                  << bytesWithStages(kernel, plan, requested)
                  << " bytes of shared memory; " << target.name << " allows "
                  << budget << ", ";
      if (most)
        diag << "which fits at most " << most << " stages";
      else
        diag << "which does not fit even one stage";
      return std::nullopt;
    }
    return requested;
  }

  /// A copy directly in a tile loop's body: warpgroup 0 loads the buffer
  /// once the previous tile released it; every warpgroup waits for it just
  /// before its first use (so the copies of one tile are in flight
  /// together, and with the work between copy and use) and releases it after
  /// its last use. The position is the tile iteration.
  void rewriteTileCopy(KernelOp kernel, CopyOp copy, Operation *firstUse,
                       Operation *lastUse, int64_t stages) {
    Location loc = copy.getLoc();
    auto [full, empty] = createSemaphores(kernel, stages, loc);
    auto foreach = cast<ForeachTileOp>(copy->getParentOp());
    OpBuilder b(copy);
    Value it = foreach.getIteration();
    Value round = arith::IndexCastOp::create(b, loc, b.getI32Type(), it);
    if (stages > 1) {
      // Tile t fills buffer t mod n in round t / n.
      auto alloc = copy.getDst().getDefiningOp<AllocOp>();
      Value n = constIndex(b, loc, stages);
      Value stage = arith::RemUIOp::create(b, loc, it, n);
      round = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                         arith::DivUIOp::create(b, loc, it, n));
      OpBuilder at(alloc);
      Value ring = AllocOp::create(at, alloc.getLoc(),
                                   ringType(alloc.getType(), stages));
      Value buffer = SlotOp::create(b, loc, ring, stage);
      alloc.getResult().replaceAllUsesWith(buffer);
      alloc.erase();
      full = SlotOp::create(b, loc, full, stage);
      empty = SlotOp::create(b, loc, empty, stage);
    }
    copy->removeAttr(kStagesAttr);
    Value previous = arith::XOrIOp::create(
        b, loc, round, arith::ConstantIntOp::create(b, loc, 1, 32));
    Value warpgroup = WarpgroupIdOp::create(b, loc);
    Value first = constIndex(b, loc, 0);
    Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             warpgroup, first);
    auto load = scf::IfOp::create(b, loc, isProducer, false);
    load->setAttr(kTileCopyAttr, b.getUnitAttr());
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(load.thenBlock());
      SemWaitOp::create(b, loc, empty, previous);
      SemExpectOp::create(b, loc, full, ValueRange{copy.getDst()});
      LoadAsyncOp::create(b, loc, copy.getSrc(), copy.getCoords(),
                          copy.getDst(), full, /*multicast=*/false,
                          copy.getDevice());
    }
    if (firstUse)
      b.setInsertionPoint(firstUse);
    Operation *wait = SemWaitOp::create(b, loc, full, round);
    b.setInsertionPointAfter(lastUse ? lastUse : wait);
    SemArriveOp::create(b, loc, empty);
    copy.erase();
  }

  void rewrite(KernelOp kernel, LoopPlan &plan, int64_t stages) {
    scf::ForOp loop = plan.loop;
    Location loc = loop.getLoc();
    MLIRContext *ctx = loop.getContext();
    OpBuilder b(ctx);

    // Rings in place of the buffers; semaphores and their initialisation
    // after the kernel's last allocation.
    SmallVector<Value> rings;
    for (AllocOp alloc : plan.allocs) {
      b.setInsertionPoint(alloc);
      rings.push_back(AllocOp::create(b, alloc.getLoc(),
                                      ringType(alloc.getType(), stages)));
    }
    Value full, empty;
    std::tie(full, empty) = createSemaphores(kernel, stages, loc);

    // Before the loop: trip count, ring base, the producing warpgroup and
    // the prologue.
    b.setInsertionPoint(loop);
    Value lb = loop.getLowerBound(), step = loop.getStep();
    Value trips = tripCount(b, loc, lb, loop.getUpperBound(), step);
    // Where this execution of the loop starts in the ring: the block's
    // earlier tiles ran `trips` steps each, or, when the count differs per
    // tile, their running sum.
    Value base = constIndex(b, loc, 0);
    if (plan.foreach)
      base = sameTripsPerTile(loop, plan.foreach)
                 ? Value(arith::MulIOp::create(
                       b, loc, plan.foreach.getIteration(), trips))
                 : Value(PrefixSumOp::create(b, loc, trips));
    Value n = constIndex(b, loc, stages);
    Value one = constIndex(b, loc, 1);
    Value zero = constIndex(b, loc, 0);
    Value isProducer = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, WarpgroupIdOp::create(b, loc), zero);

    // One semaphore of an array (a single semaphore is its own slot).
    auto semSlot = [&](OpBuilder &b, Value sems, Value stage) -> Value {
      if (stages == 1)
        return sems;
      return SlotOp::create(b, loc, sems, stage);
    };
    // Stage, round and the load of iteration `j` (0-based).
    auto position = [&](OpBuilder &b, Value j) {
      Value it = arith::AddIOp::create(b, loc, base, j);
      Value stage = arith::RemUIOp::create(b, loc, it, n);
      Value round = arith::IndexCastOp::create(
          b, loc, b.getI32Type(), arith::DivUIOp::create(b, loc, it, n));
      return std::make_pair(stage, round);
    };
    auto produce = [&](OpBuilder &b, Value j) {
      Value k = arith::AddIOp::create(b, loc, lb,
                                      arith::MulIOp::create(b, loc, j, step));
      SmallVector<CopyAt> copyAt = copiesAt(b, plan, k);
      auto [stage, round] = position(b, j);
      // The stage is free once its previous round was released.
      Value previous = arith::XOrIOp::create(
          b, loc, round, arith::ConstantIntOp::create(b, loc, 1, 32));
      SemWaitOp::create(b, loc, semSlot(b, empty, stage), previous);
      Value fullSlot = semSlot(b, full, stage);
      SmallVector<Value> slots;
      for (Value ring : rings)
        slots.push_back(SlotOp::create(b, loc, ring, stage));
      SemExpectOp::create(b, loc, fullSlot, slots);
      for (auto [copy, slot, at] : llvm::zip(plan.copies, slots, copyAt))
        LoadAsyncOp::create(b, copy.getLoc(), copy.getSrc(), at.coords, slot,
                            fullSlot, /*multicast=*/false, at.device);
    };

    Value ahead = constIndex(b, loc, stages - 1);
    Value prologueEnd = arith::MinSIOp::create(b, loc, ahead, trips);
    auto prologue = scf::IfOp::create(b, loc, isProducer, false);
    prologue->setAttr(kPrologueAttr, b.getUnitAttr());
    b.setInsertionPointToStart(prologue.thenBlock());
    auto prologueLoop = scf::ForOp::create(b, loc, zero, prologueEnd, one);
    b.setInsertionPointToStart(prologueLoop.getBody());
    produce(b, prologueLoop.getInductionVar());

    // Top of the body: refill N - 1 ahead, then wait for this stage.
    b.setInsertionPointToStart(loop.getBody());
    Value i = arith::DivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), lb),
        step);
    Value j = arith::AddIOp::create(b, loc, i, ahead);
    Value refillCond = arith::AndIOp::create(
        b, loc, isProducer,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, trips));
    auto refill = scf::IfOp::create(b, loc, refillCond, false);
    refill->setAttr(kRefillAttr, b.getUnitAttr());
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(refill.thenBlock());
      produce(b, j);
    }
    auto [stage, round] = position(b, i);
    SemWaitOp::create(b, loc, semSlot(b, full, stage), round);
    for (auto [alloc, ring] : llvm::zip(plan.allocs, rings))
      alloc.getResult().replaceAllUsesWith(
          SlotOp::create(b, loc, ring, stage).getResult());

    // Bottom of the body: this warpgroup is done with the stage.
    b.setInsertionPoint(loop.getBody()->getTerminator());
    SemArriveOp::create(b, loc, semSlot(b, empty, stage));

    for (CopyOp copy : plan.copies)
      copy.erase();
    for (AllocOp alloc : plan.allocs)
      alloc.erase();
    loop->removeAttr(kStagesAttr);
    loop->setAttr(kPipelinedAttr, b.getI64IntegerAttr(stages));
  }
};
} // namespace
