// RUN: tk-opt %kernels/multi_gpu/all_gather_gemm.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/multi_gpu/all_gather_gemm.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// Layouts and swizzles are left open for tile-assign-layouts: none is named.
// RUN: tk-opt %kernels/multi_gpu/all_gather_gemm.mlir | not grep -E '#tile[.](row|col|mma_acc|mfma|vec|swizzle)'
// Through the default pipeline, the producer waits for the tile's shards
// before it loads them.
// RUN: tk-opt %kernels/multi_gpu/all_gather_gemm.mlir -tile-pipeline -tile-warp-specialize | FileCheck %s --check-prefix=ROLES

// CHECK-LABEL: tile.kernel @all_gather_gemm
// CHECK-SAME: launch(warpgroups = 2, grid = persistent)
// CHECK: tile.foreach_tile
// CHECK: tile.signal_wait {{.*}} at_least
// CHECK: tile.signal_wait {{.*}} at_least
// CHECK: tile.copy
// CHECK: tile.mma AB

// ROLES: tile.warp_specialize producer
// ROLES: tile.signal_wait {{.*}} at_least
// ROLES-NEXT: tile.signal_wait {{.*}} at_least
// ROLES: tile.load_async
// ROLES: consumer
