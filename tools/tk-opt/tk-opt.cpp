//===- tk-opt.cpp - The tile compiler driver ------------------------------===//
//
// An mlir-opt compatible driver that registers the tile dialect and only the
// upstream dialects, passes and translations that tile programs and their
// pipelines use.
//
//===----------------------------------------------------------------------===//
#include "tk/Compiler.h"
#include "tk/Conversion/Passes.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <vector>

int main(int argc, char **argv) {
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
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tk-opt: the tk-mlir tile compiler driver\n", registry));
}
