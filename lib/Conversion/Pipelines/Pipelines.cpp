//===- Pipelines.cpp - One flag per target --------------------------------===//
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

namespace {
struct NVIDIAPipelineOptions
    : public PassPipelineOptions<NVIDIAPipelineOptions> {
  Option<std::string> out{*this, "out",
                          llvm::cl::desc("Folder for PTX, cubin and manifest"),
                          llvm::cl::init(".")};
  ListOption<std::string> bind{
      *this, "bind",
      llvm::cl::desc("tile-bind's params: INDEX=VALUE, compile the kernels "
                     "for these values of scalar parameters")};
  Option<bool> cubin{*this, "cubin",
                     llvm::cl::desc("Assemble a cubin when ptxas is found"),
                     llvm::cl::init(true)};
  Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("tile-pipeline's ring stages for loops without "
                     "tile.stages (0: the most, up to 3, that fit)"),
      llvm::cl::init(0)};
  Option<bool> overrideStages{
      *this, "override-stages",
      llvm::cl::desc("A positive `stages` also replaces the loops' "
                     "tile.stages (tile-pipeline's override-stages)"),
      llvm::cl::init(false)};
  Option<bool> dynamicTiles{
      *this, "dynamic-tiles",
      llvm::cl::desc("Run tile-dynamic-tiles first: persistent tile loops "
                     "take tiles from a counter as blocks ask"),
      llvm::cl::init(false)};
  Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("Run tile-warp-specialize (false keeps pipelined loops "
                     "in every warpgroup)"),
      llvm::cl::init(true)};
  Option<int64_t> producerRegisters{
      *this, "producer-registers",
      llvm::cl::desc("tile-warp-specialize's producer register budget"),
      llvm::cl::init(40)};
  Option<int64_t> group{
      *this, "group",
      llvm::cl::desc("tile-warp-specialize's L2 group of tile rows"),
      llvm::cl::init(8)};
  Option<bool> fpContract{
      *this, "fp-contract",
      llvm::cl::desc("Let LLVM fuse the tile ops' multiplies and adds into "
                     "fmas (convert-tile-to-nvvm's fp-contract)"),
      llvm::cl::init(true)};
  Option<bool> anchorMmaWaits{
      *this, "anchor-mma-waits",
      llvm::cl::desc("Keep each wgmma wait where the program puts it "
                     "(convert-tile-to-nvvm's anchor-mma-waits)"),
      llvm::cl::init(false)};
  Option<unsigned> waitTimeoutMs{
      *this, "wait-timeout-ms",
      llvm::cl::desc("A wait longer than this many milliseconds records "
                     "where it was and traps (convert-tile-to-nvvm's "
                     "wait-timeout-ms; 0: no limit)"),
      llvm::cl::init(0)};
  Option<bool> overlapMma{
      *this, "overlap-mma",
      llvm::cl::desc("Run tile-overlap-mma after tile-warp-specialize (a "
                     "loop's second MMA under the next iteration's first)"),
      llvm::cl::init(true)};
  Option<bool> earlyEpilogue{
      *this, "early-epilogue",
      llvm::cl::desc("Run tile-early-epilogue after tile-pingpong (a tile's "
                     "epilogue work that does not read the last MMA's "
                     "result before that MMA's wait)"),
      llvm::cl::init(true)};
  Option<int64_t> stagger{
      *this, "stagger",
      llvm::cl::desc("tile-warp-specialize's consumer stagger in cycles "
                     "(negative: the kernel's tile.stagger attribute)"),
      llvm::cl::init(-1)};
  Option<std::string> mmaSplit{
      *this, "mma-split",
      llvm::cl::desc("tile-warp-specialize's split of an mma whose rows do "
                     "not split: columns or contraction"),
      llvm::cl::init("columns")};
};

void buildNVIDIAPipeline(OpPassManager &pm,
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
  tk::TileEmitNVIDIAOptions emit;
  emit.outputDir = options.out;
  emit.emitCubin = options.cubin;
  pm.addPass(tk::createTileEmitNVIDIA(emit));
}
struct AMDPipelineOptions : public PassPipelineOptions<AMDPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("The AMD chip: gfx942 or gfx950"),
                           llvm::cl::init("gfx942")};
  Option<std::string> out{*this, "out",
                          llvm::cl::desc("Folder for ISA, HSACO and manifest"),
                          llvm::cl::init(".")};
  ListOption<std::string> bind{
      *this, "bind",
      llvm::cl::desc("tile-bind's params: INDEX=VALUE, compile the kernels "
                     "for these values of scalar parameters")};
  Option<std::string> lld{
      *this, "lld",
      llvm::cl::desc("ld.lld for the code object (default: LLVM's, then PATH)"),
      llvm::cl::init("")};
  Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("1 keeps the copies synchronous; 0 (default) splits "
                     "those in loops into register-staged prefetches"),
      llvm::cl::init(0)};
  Option<bool> fpContract{
      *this, "fp-contract",
      llvm::cl::desc("Let LLVM fuse the tile ops' multiplies and adds into "
                     "fmas (convert-tile-to-rocdl's fp-contract)"),
      llvm::cl::init(true)};
};

void buildAMDPipeline(OpPassManager &pm, const AMDPipelineOptions &options) {
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
  tk::TileEmitAMDGPUOptions emit;
  emit.outputDir = options.out;
  emit.lld = options.lld;
  pm.addPass(tk::createTileEmitAMDGPU(emit));
}
} // namespace

void tk::registerTilePipelines() {
  PassPipelineRegistration<AMDPipelineOptions>(
      "tile-to-amdgpu",
      "Lower tile kernels for an AMD chip (gfx942, gfx950) and write the "
      "ISA, the HSACO code object and the JSON manifest",
      buildAMDPipeline);
  PassPipelineRegistration<NVIDIAPipelineOptions>(
      "tile-to-nvidia",
      "Lower tile kernels for sm_90a and write PTX, cubin (when ptxas is "
      "found) and the JSON manifest",
      buildNVIDIAPipeline);
}
