// RUN: tk-opt %kernels/linear_attention/linear_attention_d128.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/linear_attention_d128.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/linear_attention_d128.mlir -canonicalize -cse | tk-opt -verify-each > /dev/null

// CHECK-LABEL: tile.kernel @linear_attention_d128
// CHECK: tile.warpgroup_id
// CHECK: scf.for
// CHECK: tile.copy
// CHECK: tile.mma AB {{.*}} -> !tile.rt<64x16xf32, warpgroup>
// CHECK: tile.row_max
// CHECK: tile.mma ABt
// CHECK: tile.mma AtB
