//===- TileToROCDL.cpp - The tile → LLVM + ROCDL lowering pass ------------===//
//
// The AMD (CDNA3 / CDNA4) lowering: the kernel ABI of Kernel.cpp, the
// FragmentMap patterns shared with NVIDIA, and AMD.cpp's copies, MFMAs and
// barriers. What it does not lower is rejected up front with a reason.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "tk/Conversion/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Patterns.h"

namespace tk {
#define GEN_PASS_DEF_CONVERTTILETOROCDL
#include "tk/Conversion/Passes.h.inc"
} // namespace tk

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

/// Why the AMD lowering cannot handle `op`, or "" when it can.
std::string amdUnsupportedReason(Operation *op) {
  if (auto mma = dyn_cast<MmaOp>(op)) {
    MmaForm form = mma.getForm();
    if (form != MmaForm::AB && form != MmaForm::ABt)
      return "is lowered on AMD in forms AB and ABt only";
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
    return "";
  }
  if (auto copy = dyn_cast<CopyOp>(op)) {
    auto tile = dyn_cast<SharedTileType>(copy.getDst().getType());
    if (!tile)
      return "is lowered on AMD into shared tiles only";
    if (tile.getCols() * elementBytes(tile.getElementType()) % 16 != 0)
      return "needs rows of a multiple of 16 bytes on AMD";
    return "";
  }
  if (auto barrier = dyn_cast<BarrierOp>(op))
    return barrier.getScope() == Scope::block
               ? ""
               : "is lowered on AMD at block scope only (CDNA has no "
                 "barriers for part of a workgroup)";
  if (isa<RowMaxOp, RowSumOp>(op))
    return reductionUnsupportedReason(
        cast<RegTileType>(op->getOperand(0).getType()), /*alongRows=*/true);
  if (isa<ColMaxOp, ColSumOp>(op))
    return reductionUnsupportedReason(
        cast<RegTileType>(op->getOperand(0).getType()), /*alongRows=*/false);
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return sameFragments(convert)
               ? ""
               : "between layouts that move data is not lowered yet";
  if (auto store = dyn_cast<StoreOp>(op)) {
    if (isa<RegTileType>(store.getValue().getType()) &&
        isa<GlobalType>(store.getDst().getType()))
      return "";
    if (isa<RegVecType>(store.getValue().getType()) &&
        isa<GlobalType>(store.getDst().getType()))
      return "";
    return "is lowered on AMD for register values to global memory only";
  }
  if (auto load = dyn_cast<LoadOp>(op))
    return isa<GlobalType>(load.getSrc().getType()) &&
                   isa<RegVecType>(load.getType())
               ? ""
               : "is lowered on AMD for global views to register vectors "
                 "only";
  if (isa<KernelOp, ReturnOp, YieldOp, ForeachTileOp, WarpgroupIdOp, DimOp,
          AllocOp, SubtileOp, FillOp, CastOp, AddOp, SubOp, MulOp, DivOp, MaxOp,
          MinOp, NegOp, AbsOp, Exp2Op, ExpOp, LogOp, BroadcastOp, CausalMaskOp,
          BoundMaskOp>(op))
    return "";
  if (isa_and_nonnull<TileDialect>(op->getDialect()))
    return "is not lowered to ROCDL yet";
  return "";
}

/// What the patterns need to know from the kernel, recorded before its
/// body moves into the llvm.func.
void recordLaunch(ModuleOp module) {
  Builder b(module.getContext());
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    const tk::TargetInfo &target = getTargetInfo(kernel);
    int64_t threads = 4 * target.warpSize * kernel.getWarpgroups().value_or(1);
    kernel.walk([&](CopyOp copy) {
      copy->setAttr(kThreads, b.getI64IntegerAttr(threads));
    });
    kernel.walk([&](ForeachTileOp foreach) {
      foreach
        ->setAttr(kChiplets, b.getI64IntegerAttr(target.chiplets));
    });
  }
}

struct ConvertTileToROCDLPass
    : public tk::impl::ConvertTileToROCDLBase<ConvertTileToROCDLPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    recordLaunch(module);
    FailureOr<gpu::GPUModuleOp> gpuModule = lowerKernels(
        module, tk::Vendor::amd, getArgument(), amdUnsupportedReason);
    if (failed(gpuModule))
      return signalPassFailure();
    if (!*gpuModule)
      return;

    TileTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.addLegalDialect<LLVM::LLVMDialect, ROCDL::ROCDLDialect,
                           arith::ArithDialect, gpu::GPUDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    populateStructurePatterns(converter, patterns, /*nvidia=*/false);
    populateMemoryPatterns(converter, patterns, /*nvidia=*/false);
    populateComputePatterns(converter, patterns, /*nvidia=*/false);
    populateReductionPatterns(converter, patterns);
    populateAMDPatterns(converter, patterns);
    if (failed(applyPartialConversion(*gpuModule, target, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
