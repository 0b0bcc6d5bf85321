//===- EmitNVIDIA.cpp - PTX, cubin and manifest for lowered kernels -------===//
//
// Serializes `gpu.module @tk_kernels` with MLIR's NVVM target (LLVM NVPTX
// back end for PTX, ptxas for cubin) and writes the manifest from the ABI
// that convert-tile-to-nvvm recorded in the module attribute `tile.abi`.
//
//===----------------------------------------------------------------------===//
#include "Manifest.h"
#include "tk/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace tk {
#define GEN_PASS_DEF_TILEEMITNVIDIA
#include "tk/Conversion/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace {

/// The CUDA toolkit whose bin/ptxas exists: $CUDA_ROOT, $CUDA_HOME,
/// $CUDA_PATH, /usr/local/cuda, or the folder above ptxas on PATH.
std::optional<std::string> findCudaToolkit() {
  auto hasPtxas = [](StringRef root) {
    SmallString<256> path(root);
    llvm::sys::path::append(path, "bin", "ptxas");
    return llvm::sys::fs::can_execute(path);
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

struct TileEmitNVIDIAPass
    : public tk::impl::TileEmitNVIDIABase<TileEmitNVIDIAPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<tk::Emission> emission = tk::findLowered(
        module, outputDir,
        "no lowered kernels: run convert-tile-to-nvvm and the LLVM "
        "conversions first (or use -tile-to-nvidia)");
    if (failed(emission))
      return signalPassFailure();
    if (emission->abi.empty())
      return;
    auto target =
        NVVM::NVVMTargetAttr::get(&getContext(), /*optLevel=*/3,
                                  "nvptx64-nvidia-cuda", "sm_90a", "+ptx80");
    if (failed(tk::emitAssembly(module, *emission, target, ".ptx",
                                "PTX generation failed")))
      return signalPassFailure();
    gpu::GPUModuleOp gpuModule = emission->gpuModule;
    auto serializer = cast<gpu::TargetAttrInterface>(target);
    auto path = [&](StringRef ext) { return emission->path(ext); };

    std::optional<std::string> cubinFile;
    if (emitCubin) {
      if (std::optional<std::string> toolkit = findCudaToolkit()) {
        gpu::TargetOptions binOptions(*toolkit, {}, {}, {},
                                      gpu::CompilationTarget::Binary);
        std::optional<SmallVector<char, 0>> cubin =
            serializer.serializeToObject(gpuModule, binOptions);
        if (!cubin) {
          gpuModule.emitError("ptxas rejected the PTX");
          return signalPassFailure();
        }
        cubinFile = path(".cubin");
        if (failed(tk::writeFile(module, *cubinFile,
                                 StringRef(cubin->data(), cubin->size()))))
          return signalPassFailure();
      } else {
        module.emitRemark("ptxas not found (set CUDA_ROOT): wrote PTX only");
      }
    }

    llvm::json::Object manifest;
    manifest["ptx"] = llvm::sys::path::filename(path(".ptx")).str();
    if (cubinFile)
      manifest["cubin"] = llvm::sys::path::filename(*cubinFile).str();
    if (failed(tk::writeManifest(module, path(".json"), emission->abi,
                                 std::move(manifest), {})))
      return signalPassFailure();
  }
};
} // namespace
