// tile.prefetch: one thread of the warpgroup issues TMA prefetches into L2
// through a tensor map of the box (swizzle 0); a box wider than 256
// elements along a dimension takes several 256-wide chunks; the box's
// dimensions are the view's last ones, its coordinates count boxes.
// RUN: tk-opt %s -convert-tile-to-nvvm | FileCheck %s
// RUN: rm -rf %t && tk-opt %s -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/prefetch.ptx

// One tensor map per box shape: 128 x 64 bf16, 256 x 256 bf16 (the chunks
// of 512 x 320), 1 x 1 x 8 f32.
// CHECK: {box = array<i64: 128, 64>, dtype = "bf16", kind = "tensor_map", param = 0 : i64, swizzle = 0 : i64}
// CHECK-SAME: {box = array<i64: 256, 256>, dtype = "bf16", kind = "tensor_map", param = 0 : i64, swizzle = 0 : i64}
// CHECK-SAME: {box = array<i64: 1, 1, 8>, dtype = "f32", kind = "tensor_map", param = 1 : i64, swizzle = 0 : i64}
// CHECK-LABEL: llvm.func @prefetch
// CHECK: scf.if
// CHECK: %[[R:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: nvvm.cp.async.bulk.tensor.prefetch %arg7, box[%{{.*}}, %{{.*}}]
// The 512 x 320 box: rows 0 and 256, columns 0 and 256 of it.
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.prefetch %arg8, box[%{{.*}}, %{{.*}}]
// CHECK: nvvm.cp.async.bulk.tensor.prefetch %arg9, box[%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-NOT: nvvm.cp.async.bulk.tensor.prefetch
// CHECK-NOT: tile.prefetch

// PTX-COUNT-5: cp.async.bulk.prefetch.tensor.2d.L2.global.tile
// PTX: cp.async.bulk.prefetch.tensor.3d.L2.global.tile
// PTX-NOT: cp.async.bulk.prefetch
!view = !tile.gl<?x?xbf16>
!view3 = !tile.gl<?x?x?xf32>
tile.kernel @prefetch(%A: !view, %B: !view3) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.prefetch %A[%c1, %c0] box [128, 64] : !view
  tile.prefetch %A[%c0, %c1] box [512, 320] : !view
  tile.prefetch %B[%c1, %c0, %c1] box [8] : !view3
}
