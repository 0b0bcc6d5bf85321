//===- Manifest.h - What both emitters share --------------------*- C++ -*-===//
#ifndef TK_LIB_TARGET_EMIT_MANIFEST_H
#define TK_LIB_TARGET_EMIT_MANIFEST_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace tk {

/// The lowered kernels an emitter serializes: `gpu.module @tk_kernels` and
/// the ABIs the lowering recorded (`tile.abi`).
struct Emission {
  mlir::gpu::GPUModuleOp gpuModule;
  mlir::DictionaryAttr abi;
  /// The files' base name: the first kernel's (empty without kernels).
  std::string name;
};

/// The lowered kernels of `module`, or an error naming what to run first
/// (`missing`); an empty `abi` when there are no kernels.
llvm::FailureOr<Emission> findLowered(mlir::ModuleOp module,
                                      llvm::StringRef missing);

/// Sets `target` on the kernels' gpu.module and serializes it to the
/// target's assembly (`failure` is the error when that fails).
llvm::FailureOr<std::string> emitAssembly(const Emission &emission,
                                          mlir::Attribute target,
                                          llvm::StringRef failure);

/// The manifest's JSON text: `fields` (the target's files) plus the format
/// tag and, per kernel of `abi` (the module's `tile.abi`), its ABI
/// description with the entries of `extras[kernel]` added.
std::string renderManifest(mlir::DictionaryAttr abi, llvm::json::Object fields,
                           llvm::StringMap<llvm::json::Object> extras);

} // namespace tk

#endif // TK_LIB_TARGET_EMIT_MANIFEST_H
