//===- tk-opt.cpp - The tile compiler driver ------------------------------===//
//
// An mlir-opt compatible driver that registers the tile dialect and only the
// upstream dialects, passes and translations that tile programs and their
// pipelines use.
//
//===----------------------------------------------------------------------===//
#include "tk/Conversion/Passes.h"
#include "tk/Dialect/Tile/IR/TileDialect.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
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
  registry.insert<tk::tile::TileDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::gpu::GPUDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::ROCDL::ROCDLDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerROCDLDialectTranslation(registry);
  mlir::ROCDL::registerROCDLTargetInterfaceExternalModels(registry);

  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "tk-mlir version " << TK_MLIR_VERSION << "\n";
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
