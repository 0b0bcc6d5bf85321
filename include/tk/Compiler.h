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

namespace tk {

/// tk-mlir's version (project()).
llvm::StringRef version();

/// Registers the tile dialect, the upstream dialects tile programs use and
/// those the pipelines lower to, with their LLVM IR translations and the
/// NVVM / ROCDL target models that serialization needs.
void registerCompilerDialects(mlir::DialectRegistry &registry);

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
