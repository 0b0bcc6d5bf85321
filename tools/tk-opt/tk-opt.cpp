//===- tk-opt.cpp - The tile compiler driver ------------------------------===//
//
// An mlir-opt compatible driver that registers the tile dialect and only the
// upstream dialects, passes and translations that tile programs and their
// pipelines use. It reads the input itself so that tk::checkSourceParses
// sees it before MLIR's parser does (MlirOptMain's own file handling would
// parse it straight away), then hands the buffer to MlirOptMain.
//
//===----------------------------------------------------------------------===//
#include "tk/Compiler.h"
#include "tk/Conversion/Passes.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstring>
#include <vector>

/// Whether `buffer` is free of what MLIR's parser would crash on; prints the
/// located errors otherwise.
static bool sourceParses(const llvm::MemoryBuffer &buffer) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer.getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  return mlir::succeeded(tk::checkSourceParses(sourceMgr, &context));
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // A diagnostic on a kernel would otherwise print the whole kernel in
  // generic form after the message. Keep the message alone unless asked.
  std::vector<char *> args(argv, argv + argc);
  bool userChose = false;
  for (char *arg : args)
    userChose |= std::strstr(arg, "mlir-print-op-on-diagnostic") != nullptr;
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  if (!userChose)
    args.insert(args.begin() + 1, quiet);
  argc = static_cast<int>(args.size());
  argv = args.data();

  mlir::DialectRegistry registry;
  tk::registerCompilerDialects(registry);

  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "tk-mlir version " << tk::version() << "\n";
  });

  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  tk::tile::registerTilePasses();
  tk::registerTKConversionPasses();
  tk::registerTilePipelines();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "tk-opt: the tk-mlir tile compiler driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // These print and return without reading the input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""), registry, config));

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(reading the program from standard input; end it with "
                    "ctrl-d)\n";
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (!sourceParses(*file))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  output->keep();
  return 0;
}
