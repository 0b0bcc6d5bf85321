//===- EmitAMDGPU.cpp - ISA, HSACO and manifest for lowered AMD kernels ---===//
//
// Serializes `gpu.module @tk_kernels` with MLIR's ROCDL target to AMDGPU
// assembly (LLVM's AMDGPU back end), assembles it into an object, links the
// object into an HSA code object with ld.lld (no ROCm installation
// involved), reads the code object's kernel metadata back and writes the
// manifest with each kernel's register and LDS use.
//
//===----------------------------------------------------------------------===//
#include "Manifest.h"
#include "tk/Conversion/Passes.h"
#include "tk/Target/Emit.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace tk {
#define GEN_PASS_DEF_TILEEMITAMDGPU
#include "tk/Conversion/Passes.h.inc"
} // namespace tk

using namespace mlir;

#ifndef TK_LLVM_TOOLS_DIR
#define TK_LLVM_TOOLS_DIR ""
#endif

namespace {

constexpr llvm::StringLiteral kTriple = "amdgcn-amd-amdhsa";
/// SGPRs a gfx9 wave holds beyond its numbered ones, counted in the code
/// object's `.sgpr_count`: VCC, FLAT_SCRATCH and XNACK_MASK, two each.
constexpr int64_t kReservedSgprs = 6;

/// ld.lld: the option's, LLVM's own (the build's tools folder), then PATH.
std::optional<std::string> findLld(StringRef option) {
  if (!option.empty())
    return llvm::sys::fs::can_execute(option) ? std::optional(option.str())
                                              : std::nullopt;
  for (StringRef name : {"ld.lld", "ld.lld-22"}) {
    if (StringRef(TK_LLVM_TOOLS_DIR).size())
      if (auto found = llvm::sys::findProgramByName(name, {TK_LLVM_TOOLS_DIR}))
        return *found;
    if (auto found = llvm::sys::findProgramByName(name))
      return *found;
  }
  return std::nullopt;
}

/// A kernel's metadata entry (MLIR drops the leading '.' of the keys).
std::optional<int64_t> metadataInt(const NamedAttrList &attrs, StringRef key) {
  for (StringRef name : {key, key.drop_front()})
    if (auto i = dyn_cast_or_null<IntegerAttr>(attrs.get(name)))
      return i.getInt();
  return std::nullopt;
}

/// Links an AMDGPU object into a shared code object with ld.lld; reports
/// failures on `module`.
std::optional<SmallVector<char, 0>> link(ModuleOp module, ArrayRef<char> object,
                                         StringRef lldPath) {
  SmallString<128> objectPath, hsacoPath, logPath;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tk-amdgpu", "o", fd, objectPath) ||
      llvm::sys::fs::createTemporaryFile("tk-amdgpu", "hsaco", hsacoPath) ||
      llvm::sys::fs::createTemporaryFile("tk-amdgpu-lld", "txt", logPath)) {
    module.emitError("cannot create temporary files for linking");
    return std::nullopt;
  }
  llvm::FileRemover removeObject(objectPath), removeHsaco(hsacoPath),
      removeLog(logPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
  }
  std::string message;
  StringRef args[] = {lldPath,    "-flavor", "gnu",    "-shared",
                      objectPath, "-o",      hsacoPath};
  // (ld.lld's messages go into the diagnostic, not the embedder's
  // standard streams.)
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  if (llvm::sys::ExecuteAndWait(lldPath, args, std::nullopt, redirects, 0, 0,
                                &message) != 0) {
    auto log = llvm::MemoryBuffer::getFile(logPath);
    StringRef said = log ? (*log)->getBuffer().trim() : StringRef();
    module.emitError("ld.lld failed to link the code object")
        << (message.empty() ? "" : ": ") << message
        << (said.empty() ? "" : ": ") << said;
    return std::nullopt;
  }
  auto buffer = llvm::MemoryBuffer::getFile(hsacoPath);
  if (!buffer) {
    module.emitError("cannot read the linked code object");
    return std::nullopt;
  }
  StringRef bytes = (*buffer)->getBuffer();
  return SmallVector<char, 0>(bytes.begin(), bytes.end());
}

struct TileEmitAMDGPUPass
    : public tk::impl::TileEmitAMDGPUBase<TileEmitAMDGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<tk::CompiledKernels> kernels =
        tk::emitAMDGPU(getOperation(), lld);
    if (failed(kernels) || failed(kernels->writeTo(getOperation(), outputDir)))
      signalPassFailure();
  }
};
} // namespace

FailureOr<tk::CompiledKernels> tk::emitAMDGPU(ModuleOp module, StringRef lld) {
  FailureOr<Emission> emission = findLowered(
      module, "no lowered kernels: run convert-tile-to-rocdl and the LLVM "
              "conversions first (or use -tile-to-amdgpu)");
  if (failed(emission))
    return failure();
  gpu::GPUModuleOp gpuModule = emission->gpuModule;
  DictionaryAttr abi = emission->abi;
  CompiledKernels kernels;
  if (abi.empty())
    return kernels;
  auto first = cast<DictionaryAttr>(abi.begin()->getValue());
  StringRef chip = cast<StringAttr>(first.get("target")).getValue();
  const tk::TargetInfo *info = lookupTarget(chip);
  if (!info || info->vendor != Vendor::amd) {
    module.emitError("kernels target '")
        << chip << "'; tile-emit-amdgpu writes AMD code objects only";
    return failure();
  }
  std::optional<std::string> lldPath = findLld(lld);
  if (!lldPath) {
    module.emitError("ld.lld not found (install lld, or pass lld=PATH): "
                     "it links the HSA code object");
    return failure();
  }

  MLIRContext *ctx = module.getContext();
  auto target = ROCDL::ROCDLTargetAttr::get(ctx, /*optLevel=*/3, kTriple, chip,
                                            /*features=*/"",
                                            /*abiVersion=*/"600");
  FailureOr<std::string> isaText =
      emitAssembly(*emission, target, "AMDGPU code generation failed");
  if (failed(isaText))
    return failure();
  kernels.name = emission->name;
  kernels.target = chip.str();
  kernels.assembly = std::move(*isaText);
  kernels.assemblyExtension = ".s";
  kernels.binaryExtension = ".hsaco";

  FailureOr<SmallVector<char, 0>> object =
      ROCDL::assembleIsa(kernels.assembly, kTriple, chip, "",
                         [&] { return gpuModule.emitError(); });
  if (failed(object))
    return failure();
  std::optional<SmallVector<char, 0>> hsaco = link(module, *object, *lldPath);
  if (!hsaco)
    return failure();
  kernels.binary.assign(hsaco->data(), hsaco->size());

  // Each kernel's resources, from the code object's metadata, against the
  // chip's limits.
  Builder builder(ctx);
  auto metadata = ROCDL::getAMDHSAKernelsELFMetadata(builder, *hsaco);
  if (!metadata) {
    module.emitError("the code object has no readable kernel metadata");
    return failure();
  }
  llvm::StringMap<llvm::json::Object> extras;
  for (NamedAttribute kernel : abi) {
    StringRef kernelName = kernel.getName().getValue();
    // Diagnostics about a kernel point at it (its llvm.func keeps the
    // tile.kernel's location).
    Operation *at = gpuModule.lookupSymbol(kernelName);
    if (!at)
      at = module;
    auto it = metadata->find(builder.getStringAttr(kernelName));
    if (it == metadata->end()) {
      at->emitError("kernel '")
          << kernelName << "' is missing from the code object's metadata";
      return failure();
    }
    const NamedAttrList &md = it->second;
    std::optional<int64_t> vgprs = metadataInt(md, ".vgpr_count");
    std::optional<int64_t> sgprs = metadataInt(md, ".sgpr_count");
    if (!vgprs || !sgprs) {
      at->emitError("kernel '")
          << kernelName << "' has no register counts in its metadata";
      return failure();
    }
    int64_t agprs = metadataInt(md, ".agpr_count").value_or(0);
    int64_t staticLds =
        metadataInt(md, ".group_segment_fixed_size").value_or(0);
    int64_t scratch =
        metadataInt(md, ".private_segment_fixed_size").value_or(0);
    int64_t dynamicLds =
        cast<IntegerAttr>(
            cast<DictionaryAttr>(kernel.getValue()).get("shared_memory_bytes"))
            .getInt();
    llvm::json::Object resources;
    resources["vgprs"] = *vgprs;
    resources["agprs"] = agprs;
    resources["sgprs"] = *sgprs;
    resources["static_lds_bytes"] = staticLds;
    resources["scratch_bytes_per_lane"] = scratch;
    // On CDNA the register file is unified: `.vgpr_count` counts the
    // architectural and the accumulation VGPRs (`.agpr_count` of them).
    // A workgroup's waves share their SIMDs' files: with w waves per
    // SIMD each gets 1/w of them (in granules of 8).
    int64_t threads =
        cast<IntegerAttr>(
            cast<DictionaryAttr>(kernel.getValue()).get("threads"))
            .getInt();
    int64_t perSimd = std::max<int64_t>(
        1, llvm::divideCeil(llvm::divideCeil(threads, 64), 4));
    int64_t vgprBudget = info->maxVgprs / perSimd / 8 * 8;
    resources["vgpr_budget"] = vgprBudget;
    extras[kernelName]["resources"] = std::move(resources);
    // `.sgpr_count` adds the 6 SGPRs gfx9 reserves for VCC, FLAT_SCRATCH
    // and XNACK_MASK to the numbered ones, which are at most maxSgprs.
    int64_t sgprBudget = info->maxSgprs + kReservedSgprs;
    if (*vgprs > vgprBudget || *sgprs > sgprBudget ||
        staticLds + dynamicLds > info->sharedMemoryBytes) {
      at->emitError("kernel '")
          << kernelName << "' exceeds " << chip << "'s limits: " << *vgprs
          << " VGPRs, " << agprs << " of them AGPRs (at most " << vgprBudget
          << " for " << threads << " threads), " << *sgprs << " SGPRs (at most "
          << sgprBudget << ": " << info->maxSgprs << " numbered and "
          << kReservedSgprs << " for VCC, FLAT_SCRATCH and XNACK_MASK), "
          << staticLds + dynamicLds << " bytes of LDS (at most "
          << info->sharedMemoryBytes << ")";
      return failure();
    }
    if (scratch > 0)
      at->emitRemark("kernel '") << kernelName << "' spills: " << scratch
                                 << " bytes of scratch per lane";
  }

  llvm::json::Object fields;
  fields["isa"] = kernels.name + kernels.assemblyExtension;
  fields["hsaco"] = kernels.name + kernels.binaryExtension;
  kernels.manifest = renderManifest(abi, std::move(fields), std::move(extras));
  return kernels;
}
