// RUN: tk-opt %kernels/linear_attention/linear_attention.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/linear_attention.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/linear_attention.mlir -canonicalize -cse | tk-opt -verify-each > /dev/null
// Layouts and swizzles are left open for tile-assign-layouts: none is named.
// RUN: tk-opt %kernels/linear_attention/linear_attention.mlir | not grep -E '#tile[.](row|col|mma_acc|mfma|vec|swizzle)'

// CHECK-LABEL: tile.kernel @linear_attention
// CHECK: scf.for
// CHECK: tile.max
// CHECK: tile.min
// CHECK: tile.exp
// CHECK: tile.mma ABt {{.*}} : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16>
// CHECK: tile.causal_mask {{.*}} fill zero
// CHECK: tile.mma AB {{.*}} -> !tile.rt<64x16xf32, warpgroup>
// CHECK: tile.row_max
// CHECK: tile.row_sum
// CHECK: tile.div
// CHECK: tile.mma AtB
// CHECK: tile.mma AtB {{.*}} -> !tile.rt<64x16xf32, warpgroup>
