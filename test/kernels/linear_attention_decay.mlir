// RUN: tk-opt %kernels/linear_attention/linear_attention_decay.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/linear_attention_decay.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/linear_attention_decay.mlir -canonicalize -cse | tk-opt -verify-each > /dev/null
// Layouts and swizzles are left open for tile-assign-layouts: none is named.
// RUN: tk-opt %kernels/linear_attention/linear_attention_decay.mlir | not grep -E '#tile[.](row|col|mma_acc|mfma|vec|swizzle)'

// CHECK-LABEL: tile.kernel @linear_attention_decay
// CHECK: tile.warpgroup_id
// CHECK: scf.for
// CHECK: tile.copy
// CHECK: tile.cumsum
// CHECK: tile.broadcast row
// CHECK: tile.broadcast col
// CHECK: tile.mma ABt
// CHECK: tile.causal_mask {{.*}} fill zero
// CHECK: tile.vec_reduce sum
// CHECK: math.exp
// CHECK: tile.mma AtB
