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
  let options = [
    Option<"fpContract", "fp-contract", "bool", "true",
           "Mark the tile ops' float adds, subtracts and multiplies "
           "contractable, so LLVM fuses a multiply and the add that uses it "
           "into one fma (nvcc's default --fmad=true; false keeps them "
           "separately rounded)">,
    Option<"anchorMmaWaits", "anchor-mma-waits", "bool", "false",
           "Give each tile.mma_wait a basic block of its own, so ptxas keeps "
           "the wgmma wait after the work written before it (ptxas otherwise "
           "moves a wait_group to the top of its block; measured on H100, "
           "docs/performance.md)">,
    Option<"waitTimeoutMs", "wait-timeout-ms", "unsigned", "0",
           "A thread that waits on a semaphore (or the tile queue) or polls "
           "a counter (tile.signal_wait, tile.device_barrier) longer than "
           "this many milliseconds records its block, thread, the wait's "
           "site, the parity or value it waited for and the semaphore or "
           "counter address in the buffer the host put in __tk_wait_report "
           "(the manifest's wait_timeout lists the sites' source "
           "locations), then traps, so the launch fails instead of hanging: "
           "for finding deadlocks, and for kernels whose peers may die (the "
           "tensor-parallel ops' kernels are built with a limit). 0: waits "
           "have no limit (docs/nvidia.md, \"Finding a deadlock\")">,
  ];
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
    Warns at the kernel when a ptxas older than 13.1 assembles PTX that
    reads a wgmma's A operand from registers (ptxas 13.0 can reuse those
    registers while they are still needed; docs/nvidia.md, "Assembler").
  }];
  let options = [
    Option<"outputDir", "out", "std::string", "\"\"",
           "Folder the artifacts are written to (required)">,
    Option<"emitCubin", "cubin", "bool", "true",
           "Also assemble a cubin when ptxas can be found">,
  ];
}

def ConvertTileToROCDL : Pass<"convert-tile-to-rocdl", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels to LLVM + ROCDL for gfx942 / gfx950";
  let description = [{
    The AMD counterpart of `convert-tile-to-nvvm`, with the same kernel ABI
    (minus TMA descriptors) recorded as `tile.abi`: each kernel becomes an
    `llvm.func` with `rocdl.kernel` and its workgroup size (256 threads per
    warpgroup of four wave64 waves) in `gpu.module @tk_kernels`.

    - register tiles are structs in the order of their `#tile.mfma`
      FragmentMap; block-scope tiles use the layout's wave grid;
    - `tile.copy` moves 16-byte chunks global → LDS with buffer loads (the
      hardware range check zero-fills rows past the view; columns past it
      are masked) and block barriers before and after;
    - `tile.mma` reads MFMA fragments from LDS (or registers) and issues
      `v_mfma_f32_{32x32x8,16x16x16}` (gfx942) and the k-doubled forms
      (gfx950) per atom and k-step;
    - `tile.foreach_tile` deals tiles so each XCD runs a contiguous run of
      the tile order (blocks go to XCDs round-robin);
    - fills, casts, elementwise ops, masks, row/column reductions (lane
      exchanges with `ds_bpermute`) and register → global stores are the
      FragmentMap patterns shared with NVIDIA.

    Ops it does not handle are reported with their location and a reason.
  }];
  let options = [
    Option<"fpContract", "fp-contract", "bool", "true",
           "Mark the tile ops' float adds, subtracts and multiplies "
           "contractable, so LLVM fuses a multiply and the add that uses it "
           "into one fma (nvcc's default --fmad=true; false keeps them "
           "separately rounded)">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::ROCDL::ROCDLDialect",
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileEmitAMDGPU : Pass<"tile-emit-amdgpu", "::mlir::ModuleOp"> {
  let summary = "Write the AMDGPU ISA, an HSACO code object and a manifest";
  let description = [{
    Serializes `gpu.module @tk_kernels` (fully lowered to LLVM + ROCDL) for
    the kernels' chip with the LLVM AMDGPU back end and writes, for each
    kernel `K`, `K.s` (the ISA), `K.hsaco` (the code object, linked with
    `ld.lld`; no ROCm installation needed) and `K.json`, the manifest. The
    manifest adds the code object's register and LDS use (`resources`), and
    the pass fails when they exceed the chip's limits.
  }];
  let options = [
    Option<"outputDir", "out", "std::string", "\"\"",
           "Folder the artifacts are written to (required)">,
    Option<"lld", "lld", "std::string", "\"\"",
           "ld.lld to link the code object with (default: LLVM's, then PATH)">,
  ];
}

#endif // TK_CONVERSION_PASSES_TD
