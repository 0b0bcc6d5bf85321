//===- EmitNVIDIA.cpp - PTX, cubin and manifest for lowered kernels -------===//
//
// Serializes `gpu.module @tk_kernels` with MLIR's NVVM target (LLVM NVPTX
// back end for PTX, ptxas for cubin) and writes the manifest from the ABI
// that convert-tile-to-nvvm recorded in the module attribute `tile.abi`.
//
//===----------------------------------------------------------------------===//
#include "Manifest.h"
#include "tk/Conversion/Passes.h"
#include "tk/Target/Emit.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

namespace tk {
#define GEN_PASS_DEF_TILEEMITNVIDIA
#include "tk/Conversion/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace {

/// `<toolkit>/bin/ptxas`.
std::string ptxasIn(StringRef toolkit) {
  SmallString<256> path(toolkit);
  llvm::sys::path::append(path, "bin", "ptxas");
  return path.str().str();
}

/// The CUDA toolkit whose bin/ptxas exists: $CUDA_ROOT, $CUDA_HOME,
/// $CUDA_PATH, /usr/local/cuda, or the folder above ptxas on PATH.
std::optional<std::string> findCudaToolkit() {
  auto hasPtxas = [](StringRef root) {
    return llvm::sys::fs::can_execute(ptxasIn(root));
  };
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var); root && hasPtxas(root))
      return std::string(root);
  if (hasPtxas("/usr/local/cuda"))
    return std::string("/usr/local/cuda");
  if (auto ptxas = llvm::sys::findProgramByName("ptxas"))
    return llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas))
        .str();
  return std::nullopt;
}

/// The release (major, minor) that `<toolkit>/bin/ptxas --version` reports,
/// or none when it cannot be run or read.
std::optional<std::pair<unsigned, unsigned>> ptxasRelease(StringRef toolkit) {
  std::string ptxas = ptxasIn(toolkit);
  SmallString<128> output;
  if (llvm::sys::fs::createTemporaryFile("tk-ptxas-version", "txt", output))
    return std::nullopt;
  llvm::FileRemover remover(output);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(output),
                                          std::nullopt};
  if (llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--version"}, std::nullopt,
                                redirects) != 0)
    return std::nullopt;
  auto text = llvm::MemoryBuffer::getFile(output);
  if (!text)
    return std::nullopt;
  SmallVector<StringRef> match;
  if (!llvm::Regex("release ([0-9]+)\\.([0-9]+)")
           .match((*text)->getBuffer(), &match))
    return std::nullopt;
  unsigned major = 0, minor = 0;
  if (match[1].getAsInteger(10, major) || match[2].getAsInteger(10, minor))
    return std::nullopt;
  return std::make_pair(major, minor);
}

/// Whether the PTX has a wgmma whose A operand is a register list (the
/// accumulator list followed by a second list, not a descriptor).
bool readsRegisterA(StringRef ptx) {
  return llvm::Regex("wgmma\\.mma_async[^;]*}[[:space:]]*,[[:space:]]*\\{")
      .match(ptx);
}

/// ptxas before 13.1 can give a wgmma's register A operand's registers to
/// another value while a later wgmma still reads them (13.0.88 did so for
/// Q in attention_naive compiled with overlap-mma=false; 13.1.115 to
/// 13.5.37 did not; docs/nvidia.md, "Assembler"). Warns when such a ptxas
/// assembles PTX that reads A from registers.
void warnOnRegisterAMiscompile(gpu::GPUModuleOp gpuModule, StringRef toolkit,
                               StringRef ptx) {
  if (!readsRegisterA(ptx))
    return;
  auto release = ptxasRelease(toolkit);
  if (!release || *release >= std::make_pair(13u, 1u))
    return;
  // At the (first) kernel: its location is the tile program's.
  Operation *at = gpuModule;
  for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>())
    if (func->hasAttr("nvvm.kernel")) {
      at = func;
      break;
    }
  at->emitWarning("ptxas ")
      << release->first << "." << release->second << " (" << toolkit
      << ") is older than 13.1 and can reuse the registers of a wgmma's "
         "register A operand while a later wgmma still reads them (wrong "
         "results); this PTX reads A from registers: check the kernel on "
         "the GPU or set CUDA_ROOT to a CUDA 13.1 or newer toolkit";
}

struct TileEmitNVIDIAPass
    : public tk::impl::TileEmitNVIDIABase<TileEmitNVIDIAPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<tk::CompiledKernels> kernels =
        tk::emitNVIDIA(getOperation(), emitCubin);
    if (failed(kernels) || failed(kernels->writeTo(getOperation(), outputDir)))
      signalPassFailure();
  }
};
} // namespace

FailureOr<tk::CompiledKernels> tk::emitNVIDIA(ModuleOp module, bool cubin) {
  FailureOr<Emission> emission = findLowered(
      module, "no lowered kernels: run convert-tile-to-nvvm and "
              "the LLVM conversions first (or use -tile-to-nvidia)");
  if (failed(emission))
    return failure();
  CompiledKernels kernels;
  if (emission->abi.empty())
    return kernels;
  kernels.name = emission->name;
  kernels.target = "sm_90a";
  kernels.assemblyExtension = ".ptx";
  kernels.binaryExtension = ".cubin";
  auto target =
      NVVM::NVVMTargetAttr::get(module.getContext(), /*optLevel=*/3,
                                "nvptx64-nvidia-cuda", "sm_90a", "+ptx80");
  FailureOr<std::string> ptx =
      emitAssembly(*emission, target, "PTX generation failed");
  if (failed(ptx))
    return failure();
  kernels.assembly = std::move(*ptx);
  gpu::GPUModuleOp gpuModule = emission->gpuModule;

  if (cubin) {
    if (std::optional<std::string> toolkit = findCudaToolkit()) {
      gpu::TargetOptions binOptions(*toolkit, {}, {}, {},
                                    gpu::CompilationTarget::Binary);
      std::optional<SmallVector<char, 0>> object =
          cast<gpu::TargetAttrInterface>(target).serializeToObject(gpuModule,
                                                                   binOptions);
      if (!object)
        return gpuModule.emitError("ptxas rejected the PTX");
      warnOnRegisterAMiscompile(gpuModule, *toolkit, kernels.assembly);
      kernels.binary.assign(object->data(), object->size());
    } else {
      module.emitRemark("ptxas not found (set CUDA_ROOT): wrote PTX only");
    }
  }

  llvm::json::Object manifest;
  manifest["ptx"] = kernels.name + kernels.assemblyExtension;
  if (!kernels.binary.empty())
    manifest["cubin"] = kernels.name + kernels.binaryExtension;
  kernels.manifest = renderManifest(emission->abi, std::move(manifest), {});
  return kernels;
}
