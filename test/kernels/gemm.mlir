// The bundled GEMM verifies, round-trips in both forms, and has the shape it
// claims: a persistent 3-warpgroup kernel whose roles stream a 3-stage ring
// and write C through shared memory with async stores.
// RUN: tk-opt %kernels/gemm/gemm.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/gemm/gemm.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/gemm/gemm.mlir -canonicalize -cse | tk-opt -verify-each > /dev/null

// CHECK-LABEL: tile.kernel @gemm
// CHECK-SAME: launch(warpgroups = 3, grid = persistent)
// CHECK-DAG: tile.alloc : !tile.st<3x128x64xbf16, #tile.swizzle<128>>
// CHECK-DAG: tile.alloc : !tile.st<3x64x256xbf16, #tile.swizzle<128>>
// CHECK-DAG: tile.alloc : !tile.st<128x256xbf16, #tile.swizzle<128>>
// CHECK: tile.warp_specialize producer(warpgroups = 1, registers = 40)
// CHECK: tile.foreach_tile ({{.*}}) in ({{.*}}) group 16 iteration
// CHECK: tile.sem_wait
// CHECK: tile.sem_expect
// CHECK: tile.load_async
// CHECK: tile.load_async
// CHECK: consumer(warpgroups = 2, registers = 232)
// CHECK: tile.mma AB {{.*}} -> !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.sem_arrive
// CHECK: tile.cast
// CHECK: tile.store_async_wait
// CHECK: tile.store
// CHECK: tile.store_async
