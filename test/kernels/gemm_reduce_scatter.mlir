// RUN: tk-opt %kernels/multi_gpu/gemm_reduce_scatter.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/multi_gpu/gemm_reduce_scatter.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// Layouts and swizzles are left open for tile-assign-layouts: none is named.
// RUN: tk-opt %kernels/multi_gpu/gemm_reduce_scatter.mlir | not grep -E '#tile[.](row|col|mma_acc|mfma|vec|swizzle)'

// CHECK-LABEL: tile.kernel @gemm_reduce_scatter
// CHECK-SAME: !tile.gl<?x?xbf16, devices = 8>
// CHECK-SAME: launch(warpgroups = 2, grid = persistent)
// CHECK: tile.device_id
// CHECK: tile.device_count
// CHECK-NOT: tile.device_barrier
// CHECK: scf.for
// CHECK-NEXT: tile.signal_add {{.*}} device
// CHECK-NOT: tile.device_barrier
// CHECK: tile.foreach_tile
// CHECK: tile.copy
// CHECK: tile.mma AB
// CHECK: tile.signal_wait {{.*}} at_least
// CHECK-NEXT: tile.store {{.*}} device {{.*}} reduce add
// CHECK: tile.signal_wait %[[F:[a-z0-9_]+]][%[[C1:[a-z0-9_]+]]], %[[T:[a-z0-9_]+]] at_least
// CHECK-NEXT: tile.device_barrier %[[F]][%{{.*}}], %[[T]]
// Block 0 alone takes the launch's count off the announcements, after the
// barrier.
// CHECK-NEXT: %[[B:.*]] = tile.block_id
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[B]]
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: %[[UNDO:[a-z0-9_]+]] = arith.subi %{{.*}}, %[[T]] : i32
// CHECK-NEXT: tile.signal_add %[[F]][%[[C1]]], %[[UNDO]] : !tile.gl
