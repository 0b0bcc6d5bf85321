//===- embed.cpp - Compile a tile program in-process ----------------------===//
//
// What a compiler embedding tk-mlir does: register the dialects, parse a
// tile program, compile it for sm_90a in memory and use the PTX and the
// manifest it gets back. Checks what it got and exits non-zero otherwise,
// so the test suite can run it.
//
// usage: embed [program.mlir]   (default: a small GEMM tile program)
//
//===----------------------------------------------------------------------===//
#include "tk/Compiler.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

// C = A · B with one 128x256 tile per block (kernels/gemm/gemm_naive.mlir).
static const char *kProgram = R"mlir(
!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x256xf32, block>
tile.kernel @gemm(%A: !view, %B: !view, %C: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  %tiles_m = arith.ceildivui %M, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index
  tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %tiles_k step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !view
  }
}
)mlir";

static int fail(const llvm::Twine &message) {
  llvm::errs() << "embed: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tk::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);

  // tk::parseProgram parses as mlir::parseSourceFile does, and first turns
  // what MLIR 22's parser would crash on into an error.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> source =
      argc > 1 ? mlir::openInputFile(argv[1], &error)
               : llvm::MemoryBuffer::getMemBuffer(kProgram, "<program>");
  if (!source)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(source), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tk::parseProgram(sourceMgr, &context);
  if (!module)
    return fail("the program does not parse");

  // Typed options, as -tile-to-nvidia's flags; PTX only (no ptxas needed).
  tk::NVIDIAPipelineOptions options;
  options.cubin = false;
  mlir::FailureOr<tk::CompiledKernels> kernels =
      tk::compileForNVIDIA(*module, options);
  if (mlir::failed(kernels))
    return fail("compilation failed");

  const std::string &ptx = kernels->assembly;
  if (kernels->target != "sm_90a" || kernels->assemblyExtension != ".ptx")
    return fail("unexpected target " + kernels->target);
  if (ptx.find(".target sm_90a") == std::string::npos ||
      ptx.find(".entry " + kernels->name) == std::string::npos ||
      ptx.find("wgmma.mma_async") == std::string::npos)
    return fail("the PTX lacks the sm_90a target, the kernel entry or wgmma");

  llvm::Expected<llvm::json::Value> manifest =
      llvm::json::parse(kernels->manifest);
  if (!manifest)
    return fail("the manifest is not JSON: " + toString(manifest.takeError()));
  const llvm::json::Object *root = manifest->getAsObject();
  const llvm::json::Object *entry =
      root && root->getObject("kernels")
          ? root->getObject("kernels")->getObject(kernels->name)
          : nullptr;
  if (!entry || !entry->getInteger("threads") ||
      root->getString("ptx") != kernels->name + ".ptx")
    return fail("the manifest does not describe kernel " + kernels->name);

  llvm::outs() << "tk-mlir " << tk::version() << ": kernel " << kernels->name
               << ", " << ptx.size() << " bytes of PTX, "
               << *entry->getInteger("threads") << " threads, "
               << entry->getInteger("shared_memory_bytes").value_or(0)
               << " bytes of shared memory\n";
  return 0;
}
