// RUN: tk-opt %kernels/alternatives/all_gather_gemm_blocks.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/alternatives/all_gather_gemm_blocks.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// Through the scheduling passes: both regions' copies become rings; the
// compute region's tile loop splits into producer and consumer warpgroups;
// the communicate region keeps its peer loads (device) for all warpgroups.
// RUN: tk-opt %kernels/alternatives/all_gather_gemm_blocks.mlir -tile-pipeline -tile-warp-specialize | FileCheck %s --check-prefix=ROLES

// CHECK-LABEL: tile.kernel @all_gather_gemm_blocks
// CHECK-SAME: launch(warpgroups = 2, grid = persistent)
// CHECK: tile.block_roles communicate(blocks = 16)
// CHECK: tile.device_barrier
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] device
// CHECK: tile.store_async
// CHECK: tile.signal_add
// CHECK: tile.device_barrier
// CHECK: } compute {
// CHECK: tile.foreach_tile
// CHECK: tile.signal_wait {{.*}} at_least

// ROLES: tile.block_roles communicate(blocks = 16)
// ROLES: tile.device_barrier
// ROLES: tile.load_async %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] device
// ROLES: } {tile.pipelined = 3 : i64}
// ROLES: } compute {
// ROLES-NEXT: tile.warp_specialize producer
// ROLES: tile.signal_wait {{.*}} at_least
// ROLES: tile.load_async
// ROLES: consumer
