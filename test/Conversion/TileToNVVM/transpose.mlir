// tile.transpose: a gather of each element from (col, row) of the source
// (Exchange.cpp). A 16 x 16 warp tile from #tile.row to #tile.col needs no
// data movement (each lane already holds the transposed elements, in the
// same registers); to #tile.row, indexed shuffles within the warp; a 64 x
// 64 warpgroup tile moves between the warps, through a shared scratch
// (the thread's 32 elements stored at (row, col), a warpgroup barrier on
// each side, 32 loads at (col, row)). AMD: test/Conversion/TileToROCDL/transpose.mlir.
// RUN: tk-opt %s -split-input-file -convert-tile-to-nvvm | FileCheck %s

// CHECK-LABEL: llvm.func @in_registers
// CHECK-NOT: nvvm.shfl
// CHECK-NOT: ptr<3>
// CHECK: llvm.return
!r = !tile.rt<16x16xf32, warp, #tile.row>
!c = !tile.rt<16x16xf32, warp, #tile.col>
tile.kernel @in_registers(%X: !tile.gl<?x16xf32>, %Y: !tile.gl<?x16xf32>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.gl<?x16xf32> -> !r
  %t = tile.transpose %x : !r to !c
  tile.store %t, %Y[%c0, %c0] : !c, !tile.gl<?x16xf32>
}

// -----

// CHECK-LABEL: llvm.func @in_warp
// CHECK-COUNT-16: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl
// CHECK-NOT: ptr<3>
// CHECK: llvm.return
!r = !tile.rt<16x16xf32, warp, #tile.row>
tile.kernel @in_warp(%X: !tile.gl<?x16xf32>, %Y: !tile.gl<?x16xf32>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.gl<?x16xf32> -> !r
  %t = tile.transpose %x : !r to !r
  tile.store %t, %Y[%c0, %c0] : !r, !tile.gl<?x16xf32>
}

// -----

// 16 KiB of scratch (the manifest counts 1 KiB more, for aligning the
// dynamic shared buffer at entry, as for any allocation).
// CHECK: shared_memory_bytes = 17408
// CHECK-LABEL: llvm.func @across_warps
// CHECK: nvvm.barrier id = {{.*}} number_of_threads = {{.*}}
// CHECK-COUNT-32: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier id = {{.*}} number_of_threads = {{.*}}
// CHECK-COUNT-32: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.shfl
!x = !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
tile.kernel @across_warps(%X: !tile.gl<?x64xf32>, %Y: !tile.gl<?x64xf32>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.gl<?x64xf32> -> !x
  %t = tile.transpose %x : !x to !x
  tile.store %t, %Y[%c0, %c0] : !x, !tile.gl<?x64xf32>
}
