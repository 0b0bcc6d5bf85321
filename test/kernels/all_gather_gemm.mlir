// RUN: tk-opt %kernels/multi_gpu/all_gather_gemm.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/multi_gpu/all_gather_gemm.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// Layouts and swizzles are left open for tile-assign-layouts: none is named.
// RUN: tk-opt %kernels/multi_gpu/all_gather_gemm.mlir | not grep -E '#tile[.](row|col|mma_acc|mfma|vec|swizzle)'
// Through the default pipeline, the producer waits for the tile's shard
// before it loads it; the consumers see the shard through the ring and
// wait themselves only for a tile without k-steps.
// RUN: tk-opt %kernels/multi_gpu/all_gather_gemm.mlir -tile-pipeline -tile-warp-specialize | FileCheck %s --check-prefix=ROLES

// CHECK-LABEL: tile.kernel @all_gather_gemm
// CHECK-SAME: launch(warpgroups = 2, grid = persistent)
// CHECK: %[[ROWS:.*]] = arith.muli
// CHECK: tile.foreach_tile (%{{.*}}, %{{.*}}) in (%[[ROWS]], %{{.*}})
// CHECK: tile.signal_wait {{.*}} at_least
// CHECK-NOT: tile.signal_wait
// CHECK: tile.copy
// CHECK: tile.mma AB

// ROLES: tile.warp_specialize producer
// ROLES: tile.foreach_tile
// ROLES: tile.signal_wait {{.*}} at_least
// ROLES-NOT: tile.signal_wait
// ROLES: tile.load_async
// ROLES: consumer
// ROLES: scf.if
// ROLES-NEXT: tile.signal_wait {{.*}} at_least
// ROLES-NEXT: }
// ROLES-NEXT: scf.for
