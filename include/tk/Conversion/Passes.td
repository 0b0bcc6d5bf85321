//===- Passes.td - Conversions out of the tile dialect -----*- tablegen -*-===//
#ifndef TK_CONVERSION_PASSES_TD
#define TK_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToNVVM : Pass<"convert-tile-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels to LLVM + NVVM for sm_90a";
  let description = [{
    Turns every `tile.kernel` into an `llvm.func` kernel inside the module's
    `gpu.module @tk_kernels`, with the launch ABI recorded on the module as
    `tile.abi` (read by `tile-emit-nvidia`):

    - each global view becomes a `ptr addrspace(1)` and one `i64` per
      dimension; each (view, box, swizzle) that async copies use becomes a
      128-byte `__grid_constant__` TMA descriptor parameter at the end;
    - register tiles become LLVM structs with one field per element a thread
      holds (the layout's `FragmentMap`); layouts and swizzles must be set;
    - shared memory is one dynamic buffer, aligned to 1024 bytes at entry;
    - semaphores become mbarriers; `tile.load_async` TMA bulk tensor copies;
      `tile.mma` with shared operands `wgmma.mma_async` from descriptors;
      `tile.warp_specialize` a branch per role with `setmaxnreg`;
      `tile.foreach_tile` one tile per block or a persistent strided loop.

    Ops the lowering does not handle yet are reported with their location.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileEmitNVIDIA : Pass<"tile-emit-nvidia", "::mlir::ModuleOp"> {
  let summary = "Write PTX, cubin (when ptxas is found) and a JSON manifest";
  let description = [{
    Serializes `gpu.module @tk_kernels` (fully lowered to LLVM + NVVM) for
    sm_90a with the LLVM NVPTX back end and writes, for each kernel `K`,
    `K.ptx`, `K.cubin` (when `ptxas` is on PATH or under `$CUDA_ROOT` /
    `/usr/local/cuda`) and `K.json`, the manifest stating the kernel's ABI.
  }];
  let options = [
    Option<"outputDir", "out", "std::string", "\".\"",
           "Folder the artifacts are written to">,
    Option<"emitCubin", "cubin", "bool", "true",
           "Also assemble a cubin when ptxas can be found">,
  ];
}

#endif // TK_CONVERSION_PASSES_TD
