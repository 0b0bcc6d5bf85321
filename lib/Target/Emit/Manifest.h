//===- Manifest.h - What both emitters share --------------------*- C++ -*-===//
#ifndef TK_LIB_TARGET_EMIT_MANIFEST_H
#define TK_LIB_TARGET_EMIT_MANIFEST_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

namespace tk {

/// The lowered kernels an emitter serializes: `gpu.module @tk_kernels`,
/// the ABIs the lowering recorded (`tile.abi`), and the files' folder and
/// base name (the first kernel's).
struct Emission {
  mlir::gpu::GPUModuleOp gpuModule;
  mlir::DictionaryAttr abi;
  std::string dir, name;

  /// `dir/name + ext`.
  std::string path(llvm::StringRef ext) const;
};

/// The lowered kernels of `module`, or an error naming what to run first
/// (`missing`); an empty `abi` when there are no kernels.
llvm::FailureOr<Emission> findLowered(mlir::ModuleOp module,
                                      llvm::StringRef outputDir,
                                      llvm::StringRef missing);

/// Sets `target` on the kernels' gpu.module, serializes it to the target's
/// assembly (`failure` is the error when that fails), writes it to
/// `path(ext)` (creating the folder) and returns it.
llvm::FailureOr<std::string> emitAssembly(mlir::ModuleOp module,
                                          const Emission &emission,
                                          mlir::Attribute target,
                                          llvm::StringRef ext,
                                          llvm::StringRef failure);

/// Writes `contents` to `path`; on failure reports on `op`.
llvm::LogicalResult writeFile(mlir::Operation *op, llvm::StringRef path,
                              llvm::StringRef contents);

/// Writes the manifest: `fields` (the target's files) plus the format tag
/// and, per kernel of `abi` (the module's `tile.abi`), its ABI description
/// with the entries of `extras[kernel]` added.
llvm::LogicalResult writeManifest(mlir::Operation *op, llvm::StringRef path,
                                  mlir::DictionaryAttr abi,
                                  llvm::json::Object fields,
                                  llvm::StringMap<llvm::json::Object> extras);

} // namespace tk

#endif // TK_LIB_TARGET_EMIT_MANIFEST_H
