//===- TileToROCDL.cpp - The tile → LLVM + ROCDL lowering pass ------------===//
//
// The AMD (CDNA3 / CDNA4) lowering: the kernel ABI of Kernel.cpp, the
// FragmentMap patterns shared with NVIDIA, and the copies, MFMAs, layout
// conversions and barriers of AMDMemory.cpp and AMDCompute.cpp. What it does
// not lower is rejected up front with a reason.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "tk/Conversion/Passes.h"

namespace tk {
#define GEN_PASS_DEF_CONVERTTILETOROCDL
#include "tk/Conversion/Passes.h.inc"
} // namespace tk

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

/// Whether `v` is computed from a `tile.warpgroup_id` (warpgroups may
/// differ in it).
bool fromWarpgroupId(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 64)
    return false;
  if (isa<WarpgroupIdOp>(def))
    return true;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return fromWarpgroupId(operand, depth + 1);
  });
}

/// Whether every warpgroup of the kernel reaches `op` as often as the
/// others: no enclosing branch or loop bound depends on the warpgroup.
bool uniformAcrossWarpgroups(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent && !isa<KernelOp>(parent);
       parent = parent->getParentOp()) {
    if (auto branch = dyn_cast<scf::IfOp>(parent);
        branch && fromWarpgroupId(branch.getCondition()))
      return false;
    if (auto loop = dyn_cast<scf::ForOp>(parent);
        loop && (fromWarpgroupId(loop.getLowerBound()) ||
                 fromWarpgroupId(loop.getUpperBound()) ||
                 fromWarpgroupId(loop.getStep())))
      return false;
    if (isa<scf::WhileOp>(parent))
      return false;
  }
  return true;
}

/// Why the AMD lowering cannot handle `op`, or "" when it can.
std::string amdUnsupportedReason(Operation *op) {
  auto multiDevice = [](Type type) {
    auto view = dyn_cast<GlobalType>(type);
    return view && view.getDevices();
  };
  if (isa<DeviceIdOp, DeviceCountOp>(op) ||
      llvm::any_of(op->getOperandTypes(), multiDevice) ||
      (isa<KernelOp>(op) &&
       llvm::any_of(op->getRegion(0).getArgumentTypes(), multiDevice)))
    return "uses a multi-device view, which is lowered for NVIDIA only";
  if (auto mma = dyn_cast<MmaOp>(op)) {
    MmaForm form = mma.getForm();
    if ((form == MmaForm::AtB || form == MmaForm::AtBt) &&
        !isa<SharedTileType>(mma.getA().getType()))
      return "takes a transposed A (forms AtB, AtBt) from LDS only on AMD";
    auto frag = dyn_cast_or_null<MfmaLayoutAttr>(mma.getType().getLayout());
    if (!frag)
      return "needs an MFMA accumulator layout on AMD";
    if (mma.getType().getElementType() != Float32Type::get(op->getContext()))
      return "accumulates in f32 only on AMD";
    auto input = [](Value v) {
      if (auto s = dyn_cast<SharedTileType>(v.getType()))
        return s.getElementType();
      return cast<RegTileType>(v.getType()).getElementType();
    };
    Type in = input(mma.getA());
    if (!in.isBF16() && !in.isF16())
      return "takes bf16 or f16 operands on AMD";
    // The MFMAs step through K by the instruction's k.
    ArrayRef<int64_t> aShape;
    if (auto shared = dyn_cast<SharedTileType>(mma.getA().getType()))
      aShape = shared.getShape().take_back(2);
    else
      aShape = cast<RegTileType>(mma.getA().getType()).getShape();
    bool aT = form == MmaForm::AtB || form == MmaForm::AtBt;
    int64_t k = aShape[aT ? 0 : 1];
    if (k % frag.getK())
      return "has K = " + std::to_string(k) +
             ", not a multiple of the MFMA's k (" +
             std::to_string(frag.getK()) + ")";
    return "";
  }
  if (auto copy = dyn_cast<CopyOp>(op)) {
    if (auto vec = dyn_cast<SharedVecType>(copy.getDst().getType()))
      return vec.getLength() * elementBytes(vec.getElementType()) % 16
                 ? "needs a shared vector of a multiple of 16 bytes on AMD"
                 : "";
    auto tile = cast<SharedTileType>(copy.getDst().getType());
    if (tile.getCols() * elementBytes(tile.getElementType()) % 16 != 0)
      return "needs rows of a multiple of 16 bytes on AMD";
    return "";
  }
  if (auto fence = dyn_cast<FenceOp>(op))
    return fence.getKind() == FenceKind::async_proxy
               ? ""
               : "is lowered on AMD for kind async_proxy only (a no-op: "
                 "CDNA has no async proxy)";
  if (auto barrier = dyn_cast<BarrierOp>(op)) {
    // A warpgroup barrier that every warpgroup reaches alike (AMD kernels
    // have no warp roles) is the workgroup barrier, which waits for the
    // same warps and a few more.
    bool whole =
        barrier.getScope() == Scope::block ||
        (barrier.getScope() == Scope::warpgroup && uniformAcrossWarpgroups(op));
    return whole ? ""
                 : "is lowered on AMD at block scope, or at warpgroup scope "
                   "where no branch or loop bound around it depends on the "
                   "warpgroup (CDNA has no barriers for part of a "
                   "workgroup)";
  }
  if (isa<RowMaxOp, RowSumOp>(op))
    return reductionUnsupportedReason(
        cast<RegTileType>(op->getOperand(0).getType()), /*alongRows=*/true);
  if (isa<ColMaxOp, ColSumOp>(op))
    return reductionUnsupportedReason(
        cast<RegTileType>(op->getOperand(0).getType()), /*alongRows=*/false);
  if (isa<CumsumOp, VecReduceOp>(op))
    return scanUnsupportedReason(op);
  if (auto store = dyn_cast<StoreOp>(op)) {
    if (store.getReduce())
      return "with 'reduce add' is not lowered on AMD yet";
    if (isa<RegTileType>(store.getValue().getType()) &&
        isa<GlobalType>(store.getDst().getType()))
      return "";
    if (isa<RegTileType>(store.getValue().getType()) &&
        isa<SharedTileType>(store.getDst().getType()))
      return "";
    if (isa<RegVecType>(store.getValue().getType()) &&
        isa<GlobalType>(store.getDst().getType()))
      return "";
    return "is lowered on AMD for register values to global memory and "
           "register tiles to shared memory only";
  }
  if (auto load = dyn_cast<LoadOp>(op)) {
    Type src = load.getSrc().getType(), value = load.getType();
    // #tile.chunks registers (a split copy's first half) load 16-byte runs.
    auto tile = dyn_cast<RegTileType>(value);
    auto chunks =
        tile ? dyn_cast_or_null<ChunksLayoutAttr>(tile.getLayout()) : nullptr;
    bool runs = !chunks ||
                (chunks.getWarpSize() == 64 &&
                 chunks.getRun() * elementBytes(tile.getElementType()) == 16);
    auto view = dyn_cast<GlobalType>(src);
    if ((view && !view.getFragments() &&
         (isa<RegVecType>(value) || (tile && runs))) ||
        (isa<SharedTileType>(src) && isa<RegTileType>(value)) ||
        (isa<SharedVecType>(src) && isa<RegVecType>(value)))
      return "";
    return "is lowered on AMD from global views (not in fragment order) and "
           "shared tiles and vectors to registers only";
  }
  if (isa<SignalAddOp, SignalWaitOp>(op))
    return "";
  if (auto tiles = dyn_cast<ForeachTileOp>(op); tiles && tiles.getDynamic())
    return "'dynamic' is lowered for NVIDIA targets only (its tile queue "
           "uses mbarriers)";
  if (auto tiles = dyn_cast<ForeachTileOp>(op); tiles && tiles.getTable())
    return "'table' is lowered for NVIDIA targets only (the AMD launcher "
           "passes no tile table)";
  if (isa<KernelOp, ReturnOp, YieldOp, ForeachTileOp, BlockRolesOp,
          WarpgroupIdOp, BlockIdOp, DimOp, PrefixSumOp, PartRowsOp, AllocOp,
          SlotOp, SubtileOp, FillOp, CastOp, AddOp, SubOp, MulOp, DivOp, FmaOp,
          MaxOp, MinOp, NegOp, AbsOp, Exp2Op, ExpOp, LogOp, BroadcastOp,
          CausalMaskOp, BoundMaskOp, ConvertLayoutOp, TransposeOp, OuterOp,
          PrefetchOp>(op))
    return "";
  if (isa_and_nonnull<TileDialect>(op->getDialect()))
    return "is not lowered to ROCDL yet";
  return "";
}

/// A store of `#tile.chunks` registers (the second half of a split copy).
bool chunkedStore(StoreOp store) {
  auto tile = dyn_cast<RegTileType>(store.getValue().getType());
  return tile && isa_and_nonnull<ChunksLayoutAttr>(tile.getLayout());
}

/// An MFMA's result is there when the next instruction reads it (the chip
/// waits on the registers), so `tile.mma_async` is `tile.mma` on AMD and
/// `tile.mma_wait` has nothing left to wait for.
void synchronizeMmas(ModuleOp module) {
  module.walk([](MmaAsyncOp async) {
    OpBuilder b(async);
    auto mma =
        MmaOp::create(b, async.getLoc(), async.getType(), async.getFormAttr(),
                      async.getA(), async.getB(), async.getAcc());
    for (NamedAttribute attr : async->getDiscardableAttrs())
      mma->setAttr(attr.getName(), attr.getValue());
    async.replaceAllUsesWith(mma.getResult());
    async.erase();
  });
  module.walk([](MmaWaitOp wait) { wait.erase(); });
}

/// What the patterns need to know from the kernel, recorded before its
/// body moves into the llvm.func.
void recordLaunch(ModuleOp module) {
  Builder b(module.getContext());
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    const tk::TargetInfo &target = getTargetInfo(kernel);
    int64_t threads = 4 * target.warpSize * kernel.getWarpgroups().value_or(1);
    SmallVector<int64_t> aligned;
    auto align = [&](Value view) {
      if (auto arg = dyn_cast<BlockArgument>(view);
          arg && !llvm::is_contained(aligned, arg.getArgNumber()))
        aligned.push_back(arg.getArgNumber());
    };
    kernel.walk([&](CopyOp copy) {
      copy->setAttr(kThreads, b.getI64IntegerAttr(threads));
      align(copy.getSrc());
    });
    kernel.walk([&](LoadOp load) {
      auto tile = dyn_cast<RegTileType>(load.getType());
      if (tile && isa_and_nonnull<ChunksLayoutAttr>(tile.getLayout()))
        align(load.getSrc());
    });
    if (!aligned.empty())
      kernel->setAttr(kRowAligned, b.getDenseI64ArrayAttr(aligned));
    // A shared tile (or ring of them) that only copies write and only `AB`
    // mmas read, as B, is stored transposed (the pass's choice of LDS
    // orientation).
    for (AllocOp alloc : kernel.getBody().getOps<AllocOp>()) {
      if (!isa<SharedTileType>(alloc.getType()))
        continue;
      // The uses of the tile: the alloc's, or its slots' for a ring.
      SmallVector<OpOperand *> uses;
      bool only = true;
      for (OpOperand &use : alloc.getResult().getUses()) {
        if (auto slot = dyn_cast<SlotOp>(use.getOwner()))
          for (OpOperand &slotUse : slot.getResult().getUses())
            uses.push_back(&slotUse);
        else if (cast<SharedTileType>(alloc.getType()).isRing())
          only = false;
        else
          uses.push_back(&use);
      }
      bool asB = false;
      for (OpOperand *use : uses) {
        Operation *user = use->getOwner();
        auto copy = dyn_cast<CopyOp>(user);
        auto store = dyn_cast<StoreOp>(user);
        auto mma = dyn_cast<MmaOp>(user);
        if ((copy && copy.getDst() == use->get()) ||
            (store && store.getDst() == use->get() && chunkedStore(store)))
          continue;
        if (mma && mma.getForm() == MmaForm::AB &&
            use->getOperandNumber() == 1 && mma.getA() != use->get()) {
          asB = true;
          continue;
        }
        only = false;
      }
      if (asB && only)
        for (OpOperand *use : uses)
          use->getOwner()->setAttr(kLdsTransposed, b.getUnitAttr());
    }
    // Loops scheduled for the 4-wave interleave: their mmas learn how many
    // prefetch loads per thread to spread between their MFMAs.
    kernel.walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(kInterleaveAttr))
        return;
      int64_t loads = 0;
      for (LoadOp load : loop.getBody()->getOps<LoadOp>()) {
        auto tile = dyn_cast<RegTileType>(load.getType());
        auto chunks = tile
                          ? dyn_cast_or_null<ChunksLayoutAttr>(tile.getLayout())
                          : nullptr;
        FragmentMap map;
        std::string why;
        if (chunks &&
            succeeded(getFragmentMap(tile, chunks.getWarps(), map, why)))
          loads += map.numRegs() / chunks.getRun();
      }
      loop.walk([&](MmaOp mma) {
        mma->setAttr(kInterleaveLoads, b.getI64IntegerAttr(loads));
      });
    });
    kernel.walk([&](ForeachTileOp foreach) {
      foreach
        ->setAttr(kChiplets, b.getI64IntegerAttr(target.chiplets));
    });
  }
}

struct ConvertTileToROCDLPass
    : public tk::impl::ConvertTileToROCDLBase<ConvertTileToROCDLPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    synchronizeMmas(module);
    recordLaunch(module);
    FailureOr<gpu::GPUModuleOp> gpuModule =
        lowerKernels(module, tk::Vendor::amd, getArgument(),
                     amdUnsupportedReason, reserveExchangeScratch);
    if (failed(gpuModule))
      return signalPassFailure();
    if (!*gpuModule)
      return;
    placeExchangeScratch(*gpuModule);

    if (failed(convertTileOps(*gpuModule, tk::Vendor::amd, fpContract)))
      return signalPassFailure();
  }
};
} // namespace
