//===- Compiler.h - Compile tile programs in-process ------------*- C++ -*-===//
//
// The entry points for compilers that embed tk-mlir: register what a tile
// program and the pipelines use, then compile a parsed module for a target
// into memory (tk::CompiledKernels: assembly, binary, manifest). Writing
// files is one more call (CompiledKernels::writeTo). examples/embed/ uses
// this through the installed CMake package.
//
//===----------------------------------------------------------------------===//
#ifndef TK_COMPILER_H
#define TK_COMPILER_H

#include "tk/Pipelines.h"
#include "tk/Target/Emit.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace tk {

/// tk-mlir's version (project()).
llvm::StringRef version();

/// Registers the tile dialect, the upstream dialects tile programs use and
/// those the pipelines lower to, with their LLVM IR translations and the
/// NVVM / ROCDL target models that serialization needs.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Reports, as located errors in `context`, what in the main buffer of
/// `sourceMgr` MLIR 22's parser would crash on instead of rejecting: a dense
/// array of `index` elements (`array<index: 1>`, also through a type alias).
/// Fails if it found any; the buffer must not be parsed then.
mlir::LogicalResult checkSourceParses(const llvm::SourceMgr &sourceMgr,
                                      mlir::MLIRContext *context);

/// Parses a tile program from the main buffer of `sourceMgr` (checked by
/// checkSourceParses first) and verifies it for `target` (a chip name, e.g.
/// "gfx942": set as the module's tile.target unless the module names one;
/// "" or an unknown name: the module's own target or the default, sm_90a);
/// null, with the errors in `context`, if it does not parse or verify.
mlir::OwningOpRef<mlir::ModuleOp> parseProgram(const llvm::SourceMgr &sourceMgr,
                                               mlir::MLIRContext *context,
                                               llvm::StringRef target = "");

/// Runs the NVIDIA lowering on `module` (in place) and serializes it; writes
/// the files too when `options.out` names a folder. Diagnostics go to the
/// module's context. A module without tile kernels compiles to nothing
/// (CompiledKernels with an empty name).
mlir::FailureOr<CompiledKernels>
compileForNVIDIA(mlir::ModuleOp module, const NVIDIAPipelineOptions &options);

/// The same for the AMD chip `options.chip`.
mlir::FailureOr<CompiledKernels>
compileForAMD(mlir::ModuleOp module, const AMDPipelineOptions &options);

/// Compiles for `target` ("sm_90a", "gfx942", "gfx950") with `options`
/// in the pipeline flag's syntax (e.g. "stages=3 bind=12=true"); an unknown
/// target or a bad option is an error at the module.
mlir::FailureOr<CompiledKernels> compile(mlir::ModuleOp module,
                                         llvm::StringRef target,
                                         llvm::StringRef options = "");

} // namespace tk

#endif // TK_COMPILER_H
