//===- Compiler.cpp - Compile tile programs in-process --------------------===//
#include "tk/Compiler.h"
#include "tk/Dialect/Tile/IR/TileDialect.h"
#include "tk/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

llvm::StringRef tk::version() { return TK_MLIR_VERSION; }

void tk::registerCompilerDialects(DialectRegistry &registry) {
  registry
      .insert<tile::TileDialect, arith::ArithDialect, cf::ControlFlowDialect,
              gpu::GPUDialect, LLVM::LLVMDialect, NVVM::NVVMDialect,
              ROCDL::ROCDLDialect, math::MathDialect, scf::SCFDialect>();
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerROCDLDialectTranslation(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
}

/// Runs `build`'s lowering on `module`, serializes it with `emit` and writes
/// the files into `out` when it is set. A module without tile kernels gives
/// empty CompiledKernels.
template <typename Options, typename Build, typename Emit>
static FailureOr<tk::CompiledKernels>
compileWith(ModuleOp module, const Options &options, Build build, Emit emit) {
  // Nothing to compile: no kernel, no artifacts (an empty name).
  if (module.getOps<tk::tile::KernelOp>().empty())
    return tk::CompiledKernels();
  PassManager pm(module.getContext());
  build(pm, options);
  if (failed(pm.run(module)))
    return failure();
  FailureOr<tk::CompiledKernels> kernels = emit(module);
  if (failed(kernels))
    return failure();
  if (!options.out.empty() && failed(kernels->writeTo(module, options.out)))
    return failure();
  return kernels;
}

FailureOr<tk::CompiledKernels>
tk::compileForNVIDIA(ModuleOp module, const NVIDIAPipelineOptions &options) {
  return compileWith(
      module, options, buildNVIDIALowering,
      [&](ModuleOp lowered) { return emitNVIDIA(lowered, options.cubin); });
}

FailureOr<tk::CompiledKernels>
tk::compileForAMD(ModuleOp module, const AMDPipelineOptions &options) {
  return compileWith(module, options, buildAMDLowering, [&](ModuleOp lowered) {
    return emitAMDGPU(lowered, options.lld);
  });
}

/// Parses `text` into the pipeline's options; an error at `module` with the
/// option parser's message otherwise.
template <typename Options>
static std::unique_ptr<Options>
parseOptions(ModuleOp module, llvm::StringRef target, llvm::StringRef text) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  auto options = std::make_unique<Options>();
  // A bad value's reason comes back here instead of going to stderr.
  tk::OptionErrors values;
  // (The option parser drops an entry without a name, "=3", silently.)
  llvm::SmallVector<llvm::StringRef> entries;
  text.split(entries, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries)
    if (entry.starts_with("=")) {
      module.emitError("invalid options for ")
          << target << ": '" << text << "': '" << entry
          << "' gives a value without an option name";
      return nullptr;
    }
  if (failed(options->parseFromString(text, os))) {
    errors += values.text();
    module.emitError("invalid options for ")
        << target << ": '" << text << "'" << (errors.empty() ? "" : ": ")
        << llvm::StringRef(errors).trim();
    return nullptr;
  }
  return options;
}

FailureOr<tk::CompiledKernels> tk::compile(ModuleOp module, StringRef target,
                                           StringRef options) {
  if (target == "sm_90a") {
    auto parsed = parseOptions<NVIDIAPipelineOptions>(module, target, options);
    if (!parsed)
      return failure();
    return compileForNVIDIA(module, *parsed);
  }
  if (target == "gfx942" || target == "gfx950") {
    auto parsed = parseOptions<AMDPipelineOptions>(module, target, options);
    if (!parsed)
      return failure();
    parsed->chip = target.str();
    return compileForAMD(module, *parsed);
  }
  return module.emitError("unknown target '")
         << target << "': tk-mlir compiles for sm_90a, gfx942 and gfx950";
}
