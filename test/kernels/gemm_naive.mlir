// The naive GEMM verifies, round-trips in both forms, and stays naive: no
// semaphores, rings, warp roles or layouts until the passes run.
// RUN: tk-opt %kernels/gemm/gemm_naive.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/gemm/gemm_naive.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// RUN: wc -l < %kernels/gemm/gemm_naive.mlir | FileCheck %s --check-prefix=LINES

// CHECK-LABEL: tile.kernel @gemm_naive
// CHECK-SAME:  launch(warpgroups = 2)
// CHECK-NOT:   tile.sem
// CHECK-NOT:   tile.warp_specialize
// CHECK-NOT:   #tile.
// CHECK:       tile.copy
// CHECK:       tile.copy
// CHECK:       tile.mma AB
// CHECK-SAME:  -> !tile.rt<128x256xf32, block>
// CHECK:       tile.store

// The issue's bound: at most 40 lines, comments included.
// LINES: {{^([1-3][0-9]|40|[0-9])$}}
