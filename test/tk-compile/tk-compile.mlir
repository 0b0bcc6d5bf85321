// tk-compile: a tile program in, one artifact out (stdout or -o), through
// the in-process compiler (tk::compile); --out-dir writes them all.
// RUN: tk-compile %kernels/gemm/gemm_naive.mlir --options="cubin=false" | FileCheck %s --check-prefix=PTX
// RUN: tk-compile %kernels/gemm/gemm_naive.mlir --options="cubin=false" --emit=manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: rm -rf %t && mkdir %t
// RUN: tk-compile %kernels/gemm/gemm_naive.mlir --options="cubin=false stages=2" -o %t/k.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: tk-compile %kernels/gemm/gemm_naive.mlir --target=gfx950 | FileCheck %s --check-prefix=ISA
// RUN: tk-compile %kernels/gemm/gemm_naive.mlir --target=gfx942 --emit=bin -o %t/k.hsaco --out-dir %t/all
// RUN: %python -c "import sys; sys.exit(open(sys.argv[1], 'rb').read(4) != b'\x7fELF')" %t/k.hsaco
// RUN: ls %t/all | FileCheck %s --check-prefix=FILES
// RUN: not tk-compile %kernels/gemm/gemm_naive.mlir --target=sm_80 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not tk-compile %kernels/gemm/gemm_naive.mlir --options="stages=x" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not tk-compile %kernels/gemm/gemm_naive.mlir --options="cubin=maybe" 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not tk-compile %kernels/gemm/gemm_naive.mlir --options="wait-timeout-ms=-1" 2>&1 | FileCheck %s --check-prefix=UINT
// RUN: not tk-compile %kernels/gemm/gemm_naive.mlir --options="cubin=false" --emit=bin 2>&1 | FileCheck %s --check-prefix=NOBIN
// RUN: not tk-compile %S/Inputs/no-kernel.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tk-compile %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: not tk-compile %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: tk-compile %S/Inputs/mfma-layouts.mlir --target=gfx942 | FileCheck %s --check-prefix=CHIP942
// RUN: not tk-compile %S/Inputs/mfma-layouts.mlir 2>&1 | FileCheck %s --check-prefix=CHIPNV
// RUN: tk-compile %S/Inputs/names-gfx950.mlir | FileCheck %s --check-prefix=NAMED
// RUN: tk-compile --help | FileCheck %s --check-prefix=HELP
// RUN: tk-compile --help | FileCheck %s --check-prefix=HELPONLY
// PTX: .target sm_90a
// PTX: .entry gemm_naive
// PTX: wgmma.mma_async
// MANIFEST: "format": "tk-mlir-manifest-1"
// MANIFEST: "ptx": "gemm_naive.ptx"
// ISA: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// ISA: v_mfma
// FILES: gemm_naive.hsaco
// FILES: gemm_naive.json
// FILES: gemm_naive.s
// The chip --target names is the one the program is verified for; without
// --target, the program's tile.target, else sm_90a.
// CHIP942: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// CHIP942: v_mfma
// CHIPNV: mfma-layouts.mlir:5:8: error: 'tile.mma' op result layout must be #tile.mma_acc on sm_90a
// NAMED: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// TARGET: gemm_naive.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unknown target 'sm_80': tk-mlir compiles for sm_90a, gfx942 and gfx950
// A bad value's reason is in the diagnostic, and nothing else is printed.
// OPTION-NOT: for the
// OPTION: error: invalid options for sm_90a: 'stages=x': option 'stages' takes an integer, got 'x'
// OPTION-NOT: for the
// BOOL: error: invalid options for sm_90a: 'cubin=maybe': option 'cubin' takes true or false, got 'maybe'
// UINT: error: invalid options for sm_90a: 'wait-timeout-ms=-1': option 'wait-timeout-ms' takes a non-negative integer, got '-1'
// NOBIN: error: no binary was built for sm_90a (for sm_90a: ptxas not found, or cubin=false)
// EMPTY: no-kernel.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the program has no tile.kernel
// INVALID: invalid.mlir:2:3: error:
// MISSING: tk-compile: cannot open input file

// --help lists the tool's own options, not those of the LLVM libraries.
// HELP: USAGE: tk-compile [options] <program.mlir>
// HELP-DAG: --emit=<value>
// HELP-DAG: --options=<string>
// HELP-DAG: --out-dir=<dir>
// HELP-DAG: --target=<string>
// HELPONLY-NOT: --amdgpu
// HELPONLY-NOT: --aarch64
// HELPONLY-NOT: --x86
