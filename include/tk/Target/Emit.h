//===- Emit.h - Kernels serialized for a target, in memory ------*- C++ -*-===//
//
// The last step of both pipelines: a module whose tile kernels were lowered
// to `gpu.module @tk_kernels` (LLVM + NVVM or ROCDL) and whose ABI the
// lowering recorded (`tile.abi`) becomes assembly, a binary and a manifest,
// held in memory. The `tile-emit-*` passes write them to a folder; embedders
// take them as they are (tk/Compiler.h).
//
//===----------------------------------------------------------------------===//
#ifndef TK_TARGET_EMIT_H
#define TK_TARGET_EMIT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace tk {

/// A module's kernels compiled for one target.
struct CompiledKernels {
  /// The files' base name: the module's first kernel. Empty when the module
  /// has no kernels (then nothing else is set).
  std::string name;
  /// The target: "sm_90a", "gfx942", "gfx950".
  std::string target;
  /// PTX (NVIDIA) or AMDGPU ISA text, and its file extension (".ptx", ".s").
  std::string assembly, assemblyExtension;
  /// The cubin or HSACO code object, and its extension (".cubin",
  /// ".hsaco"). Empty when none was built (no ptxas, or cubin not asked for).
  std::string binary, binaryExtension;
  /// The JSON launch manifest: every kernel's ABI, threads, shared memory,
  /// grid policy; it names the other files as writeTo names them.
  std::string manifest;

  /// Writes `name + ext` for the assembly, the binary (when there is one)
  /// and the manifest (".json") into the folder `dir`, creating it; reports
  /// failures on `op`.
  mlir::LogicalResult writeTo(mlir::Operation *op, llvm::StringRef dir) const;
};

/// Serializes the lowered kernels of `module` for sm_90a: PTX, and a cubin
/// when `cubin` is set and a CUDA toolkit's ptxas is found (else a remark).
mlir::FailureOr<CompiledKernels> emitNVIDIA(mlir::ModuleOp module,
                                            bool cubin = true);

/// Serializes the lowered kernels of `module` for their AMD chip: ISA and an
/// HSACO code object linked with `lld` (empty: LLVM's ld.lld, then PATH's);
/// fails when a kernel exceeds the chip's registers or LDS.
mlir::FailureOr<CompiledKernels> emitAMDGPU(mlir::ModuleOp module,
                                            llvm::StringRef lld = "");

} // namespace tk

#endif // TK_TARGET_EMIT_H
