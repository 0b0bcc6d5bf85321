// RUN: tk-opt %kernels/alternatives/attention_fwd.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/alternatives/attention_fwd.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/alternatives/attention_fwd.mlir -canonicalize -cse | tk-opt -verify-each > /dev/null

// The online softmax runs on the accumulator in registers: the row max,
// exp2 and row sum all act on #tile.mma_acc values, P feeds the second mma
// from registers, and nothing round-trips through shared memory.
// CHECK-LABEL: tile.kernel @attention_fwd
// CHECK-SAME: launch(warpgroups = 3)
// CHECK: tile.foreach_tile ({{.*}}, {{.*}}, {{.*}}) in
// CHECK: tile.warp_specialize producer
// CHECK: consumer(warpgroups = 2
// CHECK: tile.mma ABt {{.*}} -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.bound_mask
// CHECK: tile.causal_mask
// CHECK: tile.row_max {{.*}} -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
// CHECK: tile.exp2
// CHECK: tile.row_sum
// CHECK: tile.convert_layout {{.*}} to !tile.rt<64x128xbf16, warpgroup, #tile.row>
// CHECK: tile.mma AB {{.*}} : !tile.rt<64x128xbf16, warpgroup, #tile.row>, !tile.st<128x128xbf16, #tile.swizzle<128>>
// CHECK: tile.log
// CHECK: tile.store {{.*}} : !tile.rv<64xf32, {{.*}}>, !tile.gl<?x?x?xf32>
