// RUN: tk-opt %kernels/linear_attention/based.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/based.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/based.mlir -canonicalize -cse | tk-opt -verify-each > /dev/null

// CHECK-LABEL: tile.kernel @based
// CHECK: tile.warpgroup_id
// CHECK: scf.for
// CHECK: tile.copy
// CHECK: tile.outer {{.*}} -> !tile.rt<64x256xbf16, warpgroup>
// CHECK: tile.mma ABt
// CHECK: tile.causal_mask {{.*}} fill zero
// CHECK: tile.col_sum
// CHECK: tile.mma AtB
