//===- Pipelines.cpp - One flag per target --------------------------------===//
#include "tk/Pipelines.h"
#include "tk/Conversion/Passes.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tk::buildNVIDIALowering(OpPassManager &pm,
                             const NVIDIAPipelineOptions &options) {
  // The scheduling passes, per kernel: each leaves alone what it cannot
  // improve (hand-scheduled kernels pass through unchanged).
  OpPassManager &kernels = pm.nest<tk::tile::KernelOp>();
  tk::tile::TileBindOptions bind;
  bind.params = llvm::to_vector(options.bind);
  kernels.addPass(tk::tile::createTileBind(bind));
  if (options.dynamicTiles)
    kernels.addPass(tk::tile::createTileDynamicTiles());
  tk::tile::TilePipelineOptions pipeline;
  pipeline.stages = options.stages;
  pipeline.overrideStages = options.overrideStages;
  kernels.addPass(tk::tile::createTilePipeline(pipeline));
  tk::tile::TileWarpSpecializeOptions specialize;
  specialize.producerRegisters = options.producerRegisters;
  specialize.group = options.group;
  specialize.mmaSplit = options.mmaSplit;
  specialize.stagger = options.stagger;
  if (options.warpSpecialize)
    kernels.addPass(tk::tile::createTileWarpSpecialize(specialize));
  if (options.overlapMma)
    kernels.addPass(tk::tile::createTileOverlapMma());
  kernels.addPass(tk::tile::createTilePingpong());
  if (options.earlyEpilogue)
    kernels.addPass(tk::tile::createTileEarlyEpilogue());
  kernels.addPass(tk::tile::createTileAssignLayouts());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  tk::ConvertTileToNVVMOptions convert;
  convert.fpContract = options.fpContract;
  convert.anchorMmaWaits = options.anchorMmaWaits;
  convert.waitTimeoutMs = options.waitTimeoutMs;
  pm.addPass(tk::createConvertTileToNVVM(convert));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void tk::buildNVIDIAPipeline(OpPassManager &pm,
                             const NVIDIAPipelineOptions &options) {
  buildNVIDIALowering(pm, options);
  if (options.out.empty())
    return;
  tk::TileEmitNVIDIAOptions emit;
  emit.outputDir = options.out;
  emit.emitCubin = options.cubin;
  pm.addPass(tk::createTileEmitNVIDIA(emit));
}
namespace {
thread_local llvm::raw_ostream *capture = nullptr;
} // namespace

llvm::raw_ostream *tk::optionErrorCapture() { return capture; }

tk::OptionErrors::OptionErrors() : outer(capture) { capture = &stream; }

tk::OptionErrors::~OptionErrors() { capture = outer; }

void tk::buildAMDLowering(OpPassManager &pm,
                          const AMDPipelineOptions &options) {
  tk::tile::TileSetTargetOptions target;
  target.chip = options.chip;
  pm.addPass(tk::tile::createTileSetTarget(target));
  // Copies split into register-staged prefetches (tile-pipeline's AMD
  // form), then layouts (MFMA fragments, wave grids) and LDS swizzles.
  OpPassManager &kernels = pm.nest<tk::tile::KernelOp>();
  tk::tile::TileBindOptions bind;
  bind.params = llvm::to_vector(options.bind);
  kernels.addPass(tk::tile::createTileBind(bind));
  tk::tile::TilePipelineOptions pipeline;
  pipeline.stages = options.stages;
  kernels.addPass(tk::tile::createTilePipeline(pipeline));
  kernels.addPass(tk::tile::createTileAssignLayouts());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  tk::ConvertTileToROCDLOptions convert;
  convert.fpContract = options.fpContract;
  pm.addPass(tk::createConvertTileToROCDL(convert));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void tk::buildAMDPipeline(OpPassManager &pm,
                          const AMDPipelineOptions &options) {
  buildAMDLowering(pm, options);
  if (options.out.empty())
    return;
  tk::TileEmitAMDGPUOptions emit;
  emit.outputDir = options.out;
  emit.lld = options.lld;
  pm.addPass(tk::createTileEmitAMDGPU(emit));
}
void tk::registerTilePipelines() {
  PassPipelineRegistration<AMDPipelineOptions>(
      "tile-to-amdgpu",
      "Lower tile kernels for an AMD chip (gfx942, gfx950) and, with out=DIR, "
      "write the ISA, the HSACO code object and the JSON manifest there",
      buildAMDPipeline);
  PassPipelineRegistration<NVIDIAPipelineOptions>(
      "tile-to-nvidia",
      "Lower tile kernels for sm_90a and, with out=DIR, write PTX, cubin "
      "(when ptxas is found) and the JSON manifest there",
      buildNVIDIAPipeline);
}
