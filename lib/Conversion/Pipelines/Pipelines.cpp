//===- Pipelines.cpp - One flag per target
//---------------------------------===//
#include "tk/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
struct NVIDIAPipelineOptions
    : public PassPipelineOptions<NVIDIAPipelineOptions> {
  Option<std::string> out{*this, "out",
                          llvm::cl::desc("Folder for PTX, cubin and manifest"),
                          llvm::cl::init(".")};
  Option<bool> cubin{*this, "cubin",
                     llvm::cl::desc("Assemble a cubin when ptxas is found"),
                     llvm::cl::init(true)};
};

void buildNVIDIAPipeline(OpPassManager &pm,
                         const NVIDIAPipelineOptions &options) {
  pm.addPass(tk::createConvertTileToNVVM());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  tk::TileEmitNVIDIAOptions emit;
  emit.outputDir = options.out;
  emit.emitCubin = options.cubin;
  pm.addPass(tk::createTileEmitNVIDIA(emit));
}
} // namespace

void tk::registerTilePipelines() {
  PassPipelineRegistration<NVIDIAPipelineOptions>(
      "tile-to-nvidia",
      "Lower tile kernels for sm_90a and write PTX, cubin (when ptxas is "
      "found) and the JSON manifest",
      buildNVIDIAPipeline);
}
