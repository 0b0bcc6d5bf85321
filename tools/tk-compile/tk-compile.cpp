//===- tk-compile.cpp - A tile program in, one artifact out ---------------===//
//
// Compiles a tile program for one target in-process (tk::compile) and writes
// the artifact asked for — the assembly (PTX / AMDGPU ISA), the binary
// (cubin / HSACO) or the JSON manifest — to standard output or `-o FILE`;
// `--out-dir DIR` also writes all of them into DIR as -tile-to-nvidia's
// `out=` does. Errors are located diagnostics and exit code 1.
//
//===----------------------------------------------------------------------===//
#include "tk/Compiler.h"
#include "tk/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace cl = llvm::cl;

enum class Emit { Assembly, Binary, Manifest };

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --help lists these (and --version), not the LLVM libraries' options.
  static cl::OptionCategory category("tk-compile options");
  static cl::opt<std::string> input(cl::Positional, cl::desc("<program.mlir>"),
                                    cl::init("-"), cl::cat(category));
  static cl::opt<std::string> output("o", cl::desc("Output file ('-': stdout)"),
                                     cl::value_desc("file"), cl::init("-"),
                                     cl::cat(category));
  static cl::opt<std::string> target(
      "target",
      cl::desc("sm_90a, gfx942 or gfx950 (default: the program's tile.target, "
               "or sm_90a)"),
      cl::init(""), cl::cat(category));
  static cl::opt<std::string> options(
      "options",
      cl::desc("The target pipeline's options, as -tile-to-nvidia / "
               "-tile-to-amdgpu take them (e.g. \"stages=3 cubin=false\")"),
      cl::init(""), cl::cat(category));
  static cl::opt<Emit> emit(
      "emit", cl::desc("What to write to the output"),
      cl::values(clEnumValN(Emit::Assembly, "asm", "PTX or AMDGPU ISA"),
                 clEnumValN(Emit::Binary, "bin", "cubin or HSACO"),
                 clEnumValN(Emit::Manifest, "manifest", "the JSON manifest")),
      cl::init(Emit::Assembly), cl::cat(category));
  static cl::opt<std::string> outDir(
      "out-dir", cl::desc("Also write every artifact into this folder"),
      cl::value_desc("dir"), cl::init(""), cl::cat(category));
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "tk-mlir version " << tk::version() << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "tk-compile: compile a tile program\n");

  DialectRegistry registry;
  tk::registerCompilerDialects(registry);
  MLIRContext context(registry);
  // A diagnostic gives its location and message, not the whole operation.
  context.printOpOnDiagnostic(false);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(input, &error);
  if (!file) {
    llvm::errs() << "tk-compile: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = tk::parseProgram(sourceMgr, &context, target);
  if (!module)
    return 1;
  if (target.empty()) {
    auto named = (*module)->getAttrOfType<StringAttr>(
        tk::tile::TileDialect::getTargetAttrName());
    target = named ? named.getValue().str() : "sm_90a";
  }

  FailureOr<tk::CompiledKernels> kernels =
      tk::compile(*module, target, options);
  if (failed(kernels))
    return 1;
  if (kernels->name.empty()) {
    emitError(module->getLoc(), "the program has no tile.kernel");
    return 1;
  }
  if (!outDir.empty() && failed(kernels->writeTo(*module, outDir)))
    return 1;
  const std::string &text = emit == Emit::Assembly ? kernels->assembly
                            : emit == Emit::Binary ? kernels->binary
                                                   : kernels->manifest;
  if (emit == Emit::Binary && text.empty()) {
    emitError(module->getLoc(), "no binary was built for ")
        << target << " (for sm_90a: ptxas not found, or cubin=false)";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "tk-compile: " << error << "\n";
    return 1;
  }
  out->os() << text;
  out->keep();
  return 0;
}
