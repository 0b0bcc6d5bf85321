/*===- tk-c/Compiler.h - tk-mlir's C API --------------------------*- C -*-===*\
|*                                                                            *|
|* MLIR's C API conventions (mlir-c/IR.h) for tk-mlir: the tile dialect's     *|
|* handle, registration of what the pipelines need, and an in-process        *|
|* compile whose result owns its buffers (assembly, binary, manifest) and    *|
|* the diagnostics. Built as the shared library libTKCAPI; tk_mlir.compile   *|
|* (Python) loads it with ctypes.                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef TK_C_COMPILER_H
#define TK_C_COMPILER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__tile__(): the tile dialect, to insert into a
   registry or load into a context. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tile, tile);

/* tk-mlir's version ("0.1.0"). */
MLIR_CAPI_EXPORTED MlirStringRef tkVersion(void);

/* Inserts the tile dialect, the upstream dialects tile programs use and
   those the pipelines lower to, their LLVM IR translations and the NVVM /
   ROCDL target models into `registry`. */
MLIR_CAPI_EXPORTED void
tkRegisterCompilerDialects(MlirDialectRegistry registry);

/* Registers tk-mlir's passes and the `tile-to-nvidia` / `tile-to-amdgpu`
   pipelines with MLIR's registry (for mlirParsePassPipeline). */
MLIR_CAPI_EXPORTED void tkRegisterPasses(void);

/* The result of a compile; release it with tkCompiledDestroy. */
typedef struct TkCompiled {
  void *ptr;
} TkCompiled;

/* What a result holds. */
typedef enum TkArtifact {
  TkArtifactName,              /* files' base name: the first kernel's */
  TkArtifactTarget,            /* "sm_90a", "gfx942", "gfx950" */
  TkArtifactAssembly,          /* PTX or AMDGPU ISA */
  TkArtifactAssemblyExtension, /* ".ptx", ".s" */
  TkArtifactBinary,            /* cubin or HSACO; empty when none */
  TkArtifactBinaryExtension,   /* ".cubin", ".hsaco" */
  TkArtifactManifest,          /* the JSON launch manifest */
  TkArtifactDiagnostics        /* errors, warnings and remarks, one per line,
                                  with their locations */
} TkArtifact;

/* Compiles `module` (lowered in place) for `target` with `options` in the
   pipeline flag's syntax ("stages=3 cubin=false"). Never null; check
   tkCompiledSucceeded. */
MLIR_CAPI_EXPORTED TkCompiled tkCompileModule(MlirModule module,
                                              MlirStringRef target,
                                              MlirStringRef options);

/* Parses `source` (named `sourceName` in diagnostics) in a context of its
   own, verifies it for `target` (unless the source names its own
   tile.target) and compiles it as tkCompileModule does. */
MLIR_CAPI_EXPORTED TkCompiled tkCompileSource(MlirStringRef source,
                                              MlirStringRef sourceName,
                                              MlirStringRef target,
                                              MlirStringRef options);

/* Whether the compile succeeded (a module without kernels succeeds with an
   empty name). */
MLIR_CAPI_EXPORTED bool tkCompiledSucceeded(TkCompiled compiled);

/* One part of the result; the bytes live until tkCompiledDestroy. */
MLIR_CAPI_EXPORTED MlirStringRef tkCompiledGet(TkCompiled compiled,
                                               TkArtifact artifact);

MLIR_CAPI_EXPORTED void tkCompiledDestroy(TkCompiled compiled);

#ifdef __cplusplus
}
#endif

#endif /* TK_C_COMPILER_H */
