// The artifacts (binary, assembly, manifest) go to the folder `out` names.
// Without `out` the pipelines write no files and end at the lowered module
// (tk-opt prints it); `out=-` (standard output cannot hold several files)
// is an error at the module, for both targets, and nothing is written; the
// emission passes alone need `out`.
// RUN: rm -rf %t && mkdir %t && cd %t
// RUN: tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-nvidia="cubin=false" | FileCheck %s --check-prefix=LOWERED
// RUN: tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-amdgpu="chip=gfx942 out=" | FileCheck %s --check-prefix=LOWERED
// RUN: ls -A %t | FileCheck %s --allow-empty --check-prefix=NOFILES
// RUN: not tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-nvidia="out=- cubin=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DASH
// RUN: not tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-amdgpu="chip=gfx942 out=-" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DASH
// RUN: tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-nvidia="cubin=false" | not tk-opt -tile-emit-nvidia 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: ls -A %t | FileCheck %s --allow-empty --check-prefix=NOFILES
// LOWERED: tile.abi
// LOWERED: gpu.module @tk_kernels
// LOWERED: llvm.func @gemm_naive
// NOFILES-NOT: {{.}}
// DASH: gemm_naive.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'out' must name a folder for the binary, assembly and manifest, got '-'
// EMPTY: error: 'out' must name a folder for the binary, assembly and manifest, got ''
