//===- TileToNVVM.cpp - The tile → LLVM + NVVM lowering pass --------------===//
//
// Fixes each kernel's launch ABI, moves its body into an llvm.func inside
// `gpu.module @tk_kernels`, records the ABI for the manifest, then runs one
// dialect conversion over the tile ops (see Common.h).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "tk/Conversion/Passes.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"

namespace tk {
#define GEN_PASS_DEF_CONVERTTILETONVVM
#include "tk/Conversion/Passes.h.inc"
} // namespace tk

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

/// Why the lowering cannot handle `op` yet, or "" when it can.
template <typename OpTy> std::string mmaUnsupportedReason(OpTy mma) {
  if (!isa<SharedTileType>(mma.getB().getType()))
    return "with a register B operand is not lowered yet; keep B in shared "
           "memory";
  if (auto a = dyn_cast<RegTileType>(mma.getA().getType());
      a && (!isa_and_nonnull<RowLayoutAttr>(a.getLayout()) ||
            a.getScope() != Scope::warpgroup ||
            !(a.getElementType().isBF16() || a.getElementType().isF16())))
    return "with a register A operand is lowered for bf16/f16 warpgroup "
           "tiles in #tile.row layout only";
  for (Value operand : {mma.getA(), mma.getB()})
    if (auto tile = dyn_cast<SharedTileType>(operand.getType());
        tile && (!tile.getSwizzle() || !tile.getSwizzle().getBytes()))
      return "reads an unswizzled shared tile (" +
             std::to_string(tile.getRows()) + "x" +
             std::to_string(tile.getCols()) +
             "); wgmma's descriptors are built for 32-, 64- or 128-byte "
             "swizzles, so its rows must hold at least 32 bytes";
  if (!mma.getType().getElementType().isF32())
    return "with an f16 result is not lowered yet; accumulate in f32 (and "
           "'tile.cast' the result)";
  if (mma.getType().getScope() == Scope::block)
    return "at block scope is split over warpgroups by tile-warp-specialize; "
           "run it (or write warpgroup tiles) before lowering";
  ArrayRef<int64_t> d = mma.getType().getShape();
  if (d[0] != 64 || d[1] > 256)
    return "is lowered for 64 x N (N <= 256) warpgroup results only, got " +
           std::to_string(d[0]) + "x" + std::to_string(d[1]);
  return "";
}

std::string unsupportedReason(Operation *op) {
  // AMD's copy staging runs (#tile.chunks) are loaded from global memory
  // and stored to shared tiles by AMD's own patterns only.
  auto isChunks = [](Type type) {
    auto tile = dyn_cast<RegTileType>(type);
    return tile && isa_and_nonnull<ChunksLayoutAttr>(tile.getLayout());
  };
  if ((isa<LoadOp>(op) && isa<GlobalType>(op->getOperand(0).getType()) &&
       isChunks(op->getResult(0).getType())) ||
      (isa<StoreOp>(op) && isChunks(op->getOperand(0).getType()) &&
       isa<SharedTileType>(op->getOperand(1).getType())))
    return "with a #tile.chunks register tile is lowered from global memory "
           "and to shared tiles for AMD targets only";
  if (auto mma = dyn_cast<MmaOp>(op))
    return mmaUnsupportedReason(mma);
  if (auto mma = dyn_cast<MmaAsyncOp>(op))
    return mmaUnsupportedReason(mma);
  if (isa<RowMaxOp, RowSumOp>(op))
    return reductionUnsupportedReason(
        cast<RegTileType>(op->getOperand(0).getType()), /*alongRows=*/true);
  if (isa<ColMaxOp, ColSumOp>(op))
    return reductionUnsupportedReason(
        cast<RegTileType>(op->getOperand(0).getType()), /*alongRows=*/false);
  if (isa<CopyOp>(op))
    return "is the synchronous naive form; run tile-pipeline (stages = 1 "
           "for a plain synchronous copy) before lowering";
  if (isa<CumsumOp, VecReduceOp>(op))
    return scanUnsupportedReason(op);
  if (auto prefetch = dyn_cast<PrefetchOp>(op))
    return prefetchUnsupportedReason(prefetch);
  if (auto store = dyn_cast<StoreOp>(op)) {
    Type value = store.getValue().getType(), dst = store.getDst().getType();
    if (isa<RegTileType>(value) && isa<SharedVecType>(dst))
      return fragmentStoreUnsupportedReason(cast<RegTileType>(value));
    if (isa<RegTileType>(value) && isa<GlobalType, SharedTileType>(dst))
      return "";
    if (isa<RegVecType>(value) && isa<GlobalType>(dst))
      return store.getDevice() ? "to another device's copy is lowered for "
                                 "register tiles only"
                               : "";
    return "is lowered for register tiles to global or shared memory and "
           "register vectors to global memory only";
  }
  if (isa<KernelOp, ReturnOp, YieldOp, ForeachTileOp, BlockRolesOp,
          WarpSpecializeOp, WarpgroupIdOp, BlockIdOp, ClusterRankOp,
          ClusterSyncOp, DimOp, AllocOp, SlotOp, PrefixSumOp, PartRowsOp,
          SubtileOp, LoadOp, LoadAsyncOp, StoreAsyncOp, StoreAsyncWaitOp,
          SemInitOp, SemArriveOp, SemExpectOp, SemWaitOp, BarrierOp, MmaTurnOp,
          FenceOp, FillOp, CastOp, ConvertLayoutOp, TransposeOp, OuterOp, AddOp,
          SubOp, MulOp, DivOp, FmaOp, MaxOp, MinOp, NegOp, AbsOp, Exp2Op, ExpOp,
          LogOp, BroadcastOp, MmaWaitOp, CausalMaskOp, BoundMaskOp, SignalAddOp,
          SignalWaitOp, DeviceBarrierOp, DeviceIdOp, DeviceCountOp>(op))
    return "";
  if (isa_and_nonnull<TileDialect>(op->getDialect()))
    return "is not lowered to NVVM yet";
  return "";
}

struct ConvertTileToNVVMPass
    : public tk::impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<gpu::GPUModuleOp> gpuModule =
        lowerKernels(module, tk::Vendor::nvidia, getArgument(),
                     unsupportedReason, reserveExchangeScratch);
    if (failed(gpuModule))
      return signalPassFailure();
    if (!*gpuModule)
      return;
    placeExchangeScratch(*gpuModule);

    if (waitTimeoutMs)
      (*gpuModule)
          ->setAttr(kWaitTimeout,
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     waitTimeoutMs));
    LogicalResult converted = convertTileOps(*gpuModule, tk::Vendor::nvidia,
                                             fpContract, anchorMmaWaits);
    (*gpuModule)->removeAttr(kWaitTimeout);
    if (failed(converted))
      return signalPassFailure();
    recordWaitSites(module, *gpuModule);
  }

  /// Moves the timed waits' sites from the GPU module into each kernel's ABI
  /// (the manifest's "wait_timeout": the limit, the report global and the
  /// sites as {site, location, kind: "semaphore" or "counter"}; a report's
  /// site indexes the module's list).
  void recordWaitSites(ModuleOp module, gpu::GPUModuleOp gpuModule) {
    auto sites = gpuModule->getAttrOfType<ArrayAttr>(kWaitSites);
    if (!sites)
      return;
    gpuModule->removeAttr(kWaitSites);
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto abi = module->getAttrOfType<DictionaryAttr>("tile.abi");
    SmallVector<NamedAttribute> kernels;
    for (NamedAttribute kernel : abi) {
      SmallVector<Attribute> own;
      for (auto [index, site] : llvm::enumerate(sites)) {
        auto fields = cast<DictionaryAttr>(site);
        if (fields.getAs<StringAttr>("kernel") != kernel.getName())
          continue;
        own.push_back(b.getDictionaryAttr(
            {b.getNamedAttr("site", b.getI64IntegerAttr(index)),
             b.getNamedAttr("location", fields.get("location")),
             b.getNamedAttr("kind", fields.get("kind"))}));
      }
      NamedAttrList entry(cast<DictionaryAttr>(kernel.getValue()));
      if (!own.empty())
        entry.set("wait_timeout",
                  b.getDictionaryAttr(
                      {b.getNamedAttr("ms", b.getI64IntegerAttr(waitTimeoutMs)),
                       b.getNamedAttr("report", b.getStringAttr(kWaitReport)),
                       b.getNamedAttr("records",
                                      b.getI64IntegerAttr(kWaitReportRecords)),
                       b.getNamedAttr("sites", b.getArrayAttr(own))}));
      kernels.push_back(
          b.getNamedAttr(kernel.getName(), entry.getDictionary(ctx)));
    }
    module->setAttr("tile.abi", b.getDictionaryAttr(kernels));
  }
};
} // namespace
