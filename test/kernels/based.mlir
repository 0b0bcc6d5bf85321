// RUN: tk-opt %kernels/linear_attention/based.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/based.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/linear_attention/based.mlir -canonicalize -cse | tk-opt -verify-each > /dev/null

// CHECK-LABEL: tile.kernel @based
// CHECK-SAME: blocks_per_sm = 2
// CHECK: tile.foreach_tile
// CHECK: scf.for
// CHECK: tile.copy
// CHECK: tile.outer {{.*}} -> !tile.rt<64x256xbf16, warpgroup>
// CHECK: tile.mma_async ABt
// CHECK: tile.mma_async AtB
// CHECK: tile.mma_wait 6
// CHECK: tile.causal_mask {{.*}} fill zero
// CHECK: tile.mma_wait 0
// CHECK: scf.if
// CHECK: tile.row_sum
