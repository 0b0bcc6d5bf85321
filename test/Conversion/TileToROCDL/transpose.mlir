// tile.transpose on AMD: the exchange shared with NVIDIA
// (test/Conversion/TileToNVVM/transpose.mlir). A 64 x 32 tile over a 4 x 1
// wave grid into a 32 x 64 tile over 2 x 2 moves between the waves: each
// lane stores its 8 elements to the LDS scratch at (row, col), the
// workgroup synchronizes, each lane loads its 8 at (col, row).
// RUN: tk-opt %s -convert-tile-to-rocdl | FileCheck %s
// RUN: rm -rf %t && tk-opt %s -tile-to-amdgpu="chip=gfx942 out=%t" -o /dev/null

// CHECK-LABEL: llvm.func @transpose
// CHECK: rocdl.barrier
// CHECK-COUNT-8: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: rocdl.barrier
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> f32
!a = !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
!b = !tile.rt<32x64xf32, block, #tile.mfma<16x16x16, acc, waves = 2x2>>
module attributes {tile.target = "gfx942"} {
  tile.kernel @transpose(%A: !tile.gl<?x?xf32>, %B: !tile.gl<?x?xf32>)
      launch(warpgroups = 1) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.gl<?x?xf32> -> !a
    %t = tile.transpose %a : !a to !b
    tile.store %t, %B[%c0, %c0] : !b, !tile.gl<?x?xf32>
  }
}
