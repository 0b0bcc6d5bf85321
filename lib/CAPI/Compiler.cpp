//===- Compiler.cpp - tk-mlir's C API -------------------------------------===//
#include "tk-c/Compiler.h"
#include "tk/Compiler.h"
#include "tk/Conversion/Passes.h"
#include "tk/Dialect/Tile/IR/TileDialect.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile, tk::tile::TileDialect)

namespace {
/// A compile's result and its diagnostics, owned by the caller's handle.
struct Compiled {
  bool succeeded = false;
  tk::CompiledKernels kernels;
  std::string diagnostics;
};

Compiled *unwrap(TkCompiled c) { return static_cast<Compiled *>(c.ptr); }

/// Collects the context's diagnostics as "location: severity: message"
/// lines while alive (and keeps them from the default handler).
class CollectDiagnostics {
public:
  CollectDiagnostics(MLIRContext *context, std::string &out)
      : os(out), handler(context, [this](Diagnostic &diag) {
          print(diag);
          return success();
        }) {}

private:
  void print(Diagnostic &diag) {
    const char *severity = "error";
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Warning:
      severity = "warning";
      break;
    case DiagnosticSeverity::Remark:
      severity = "remark";
      break;
    case DiagnosticSeverity::Note:
      severity = "note";
      break;
    case DiagnosticSeverity::Error:
      break;
    }
    printLocation(diag.getLocation());
    os << ": " << severity << ": " << diag << "\n";
    for (Diagnostic &note : diag.getNotes()) {
      // (The operation MLIR attaches to a diagnostic, printed whole, is no
      // line of its own: a lowered module's runs to hundreds of KB.)
      if (StringRef(note.str()).starts_with("see current operation:"))
        continue;
      printLocation(note.getLocation());
      os << ": note: " << note << "\n";
    }
  }

  /// `file:line:col` as compilers print it, else MLIR's form of `loc`.
  void printLocation(Location loc) {
    if (auto file = loc->findInstanceOf<FileLineColLoc>())
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn();
    else
      os << loc;
  }

  llvm::raw_string_ostream os;
  ScopedDiagnosticHandler handler;
};

TkCompiled compileInto(Compiled *result, ModuleOp module, StringRef target,
                       StringRef options) {
  FailureOr<tk::CompiledKernels> kernels = tk::compile(module, target, options);
  if (succeeded(kernels)) {
    result->kernels = std::move(*kernels);
    result->succeeded = true;
  }
  return TkCompiled{result};
}
} // namespace

MlirStringRef tkVersion(void) { return wrap(tk::version()); }

void tkRegisterCompilerDialects(MlirDialectRegistry registry) {
  tk::registerCompilerDialects(*unwrap(registry));
}

void tkRegisterPasses(void) {
  tk::tile::registerTilePasses();
  tk::registerTKConversionPasses();
  tk::registerTilePipelines();
}

TkCompiled tkCompileModule(MlirModule module, MlirStringRef target,
                           MlirStringRef options) {
  auto *result = new Compiled();
  ModuleOp op = unwrap(module);
  CollectDiagnostics collect(op.getContext(), result->diagnostics);
  return compileInto(result, op, unwrap(target), unwrap(options));
}

TkCompiled tkCompileSource(MlirStringRef source, MlirStringRef sourceName,
                           MlirStringRef target, MlirStringRef options) {
  auto *result = new Compiled();
  DialectRegistry registry;
  tk::registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  CollectDiagnostics collect(&context, result->diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(unwrap(source), unwrap(sourceName)),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      tk::parseProgram(sourceMgr, &context, unwrap(target));
  if (!module)
    return TkCompiled{result};
  return compileInto(result, *module, unwrap(target), unwrap(options));
}

bool tkCompiledSucceeded(TkCompiled compiled) {
  return unwrap(compiled)->succeeded;
}

MlirStringRef tkCompiledGet(TkCompiled compiled, TkArtifact artifact) {
  const Compiled &c = *unwrap(compiled);
  switch (artifact) {
  case TkArtifactName:
    return wrap(StringRef(c.kernels.name));
  case TkArtifactTarget:
    return wrap(StringRef(c.kernels.target));
  case TkArtifactAssembly:
    return wrap(StringRef(c.kernels.assembly));
  case TkArtifactAssemblyExtension:
    return wrap(StringRef(c.kernels.assemblyExtension));
  case TkArtifactBinary:
    return wrap(StringRef(c.kernels.binary));
  case TkArtifactBinaryExtension:
    return wrap(StringRef(c.kernels.binaryExtension));
  case TkArtifactManifest:
    return wrap(StringRef(c.kernels.manifest));
  case TkArtifactDiagnostics:
    return wrap(StringRef(c.diagnostics));
  }
  return wrap(StringRef());
}

void tkCompiledDestroy(TkCompiled compiled) { delete unwrap(compiled); }
