/*===- embed_c.c - Compile a tile program through the C API ---------------===*\
|*                                                                            *|
|* A C caller of tk-mlir's C API (tk-c/Compiler.h, libTKCAPI): registers the *|
|* dialects into an MLIR context, loads the tile dialect by its handle,      *|
|* parses a tile program, compiles it for sm_90a and checks the result and  *|
|* the diagnostics of a bad compile. Exits non-zero on any failure.          *|
|*                                                                            *|
|* usage: embed_c PROGRAM.mlir                                              *|
\*===----------------------------------------------------------------------===*/
#include "tk-c/Compiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *message) {
  fprintf(stderr, "embed_c: %s\n", message);
  return 1;
}

static int contains(MlirStringRef text, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= text.length; ++i)
    if (memcmp(text.data + i, needle, n) == 0)
      return 1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return fail("usage: embed_c PROGRAM.mlir");
  FILE *file = fopen(argv[1], "rb");
  if (!file)
    return fail("cannot open the program");
  static char source[1 << 20];
  size_t size = fread(source, 1, sizeof(source) - 1, file);
  fclose(file);
  source[size] = '\0';

  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tkRegisterCompilerDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  MlirDialect tile =
      mlirDialectHandleLoadDialect(mlirGetDialectHandle__tile__(), context);
  if (mlirDialectIsNull(tile))
    return fail("the tile dialect did not load");
  tkRegisterPasses();

  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module))
    return fail("the program does not parse");
  TkCompiled compiled =
      tkCompileModule(module, mlirStringRefCreateFromCString("sm_90a"),
                      mlirStringRefCreateFromCString("cubin=false"));
  if (!tkCompiledSucceeded(compiled))
    return fail("compilation failed");
  MlirStringRef ptx = tkCompiledGet(compiled, TkArtifactAssembly);
  MlirStringRef manifest = tkCompiledGet(compiled, TkArtifactManifest);
  MlirStringRef name = tkCompiledGet(compiled, TkArtifactName);
  if (!contains(ptx, ".entry ") || !contains(ptx, ".target sm_90a") ||
      !contains(manifest, "\"format\": \"tk-mlir-manifest-1\""))
    return fail("the PTX or the manifest is not what was expected");
  printf("tk-mlir %.*s (C API): kernel %.*s, %zu bytes of PTX\n",
         (int)tkVersion().length, tkVersion().data, (int)name.length, name.data,
         ptx.length);
  tkCompiledDestroy(compiled);
  mlirModuleDestroy(module);

  /* A bad option: no result, a located diagnostic. */
  TkCompiled bad = tkCompileSource(mlirStringRefCreateFromCString(source),
                                   mlirStringRefCreateFromCString("prog.mlir"),
                                   mlirStringRefCreateFromCString("sm_90a"),
                                   mlirStringRefCreateFromCString("stages=x"));
  MlirStringRef diagnostics = tkCompiledGet(bad, TkArtifactDiagnostics);
  int ok = !tkCompiledSucceeded(bad) &&
           contains(diagnostics, "error: invalid options for sm_90a");
  tkCompiledDestroy(bad);
  mlirContextDestroy(context);
  return ok ? 0 : fail("a bad option was not reported");
}
