//===- Manifest.h - Files and the JSON manifest both emitters write -*- C++
//-*-===//
#ifndef TK_LIB_TARGET_EMIT_MANIFEST_H
#define TK_LIB_TARGET_EMIT_MANIFEST_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

namespace tk {

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
