// The AMD side of the exchanges between lanes and waves (Exchange.cpp):
// ds_bpermute within a wave, an LDS scratch between workgroup barriers
// across waves.
// RUN: tk-opt %s -split-input-file -convert-tile-to-rocdl | FileCheck %s

// A row maximum of a 2 x 2 wave grid combines the 2 waves holding other
// columns of each row through 64 x 2 f32 of LDS.
// CHECK-LABEL: llvm.func @across_waves
// CHECK: rocdl.ds_bpermute
// CHECK: rocdl.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: rocdl.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.intr.maxnum
module attributes {tile.target = "gfx942"} {
  tile.kernel @across_waves(%L: !tile.gl<?xf32>) launch(warpgroups = 1) {
    %s = tile.fill 1.0 : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
    %m = tile.row_max %s : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>> -> !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>>
    %c0 = arith.constant 0 : index
    tile.store %m, %L[%c0] : !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>>, !tile.gl<?xf32>
  }
}

// -----

// A row vector used as a column vector, and its running sum (the waves'
// block totals through the scratch).
// CHECK-LABEL: llvm.func @vectors
// CHECK: rocdl.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: rocdl.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: rocdl.ds_bpermute
// CHECK: rocdl.barrier
module attributes {tile.target = "gfx942"} {
  tile.kernel @vectors(%L: !tile.gl<?xf32>) launch(warpgroups = 1) {
    %v = tile.fill 1.0 : !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>>
    %w = tile.convert_layout %v : !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>> to !tile.rv<64xf32, block, #tile.vec<col, #tile.mfma<32x32x8, acc, waves = 2x2>>>
    %p = tile.cumsum %w : !tile.rv<64xf32, block, #tile.vec<col, #tile.mfma<32x32x8, acc, waves = 2x2>>>
    %c0 = arith.constant 0 : index
    tile.store %p, %L[%c0] : !tile.rv<64xf32, block, #tile.vec<col, #tile.mfma<32x32x8, acc, waves = 2x2>>>, !tile.gl<?xf32>
  }
}

// -----

// tile.outer whose lhs rows lie in other waves than the result's (a 2 x 2
// wave grid against row bands): the lhs gather goes through LDS between
// workgroup barriers; the rhs (row bands like the result) is held by the
// very lane that needs it (MFMA fragments put column j of a row in lane
// j % 16), so it takes no exchange at all.
// CHECK-LABEL: llvm.func @outer_across_waves
// CHECK: rocdl.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: rocdl.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: rocdl.ds_bpermute
// CHECK-NOT: rocdl.barrier
// CHECK: llvm.fmul
module attributes {tile.target = "gfx942"} {
  tile.kernel @outer_across_waves(%O: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
    %a = tile.fill 1.0 : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 2x2>>
    %b = tile.fill 2.0 : !tile.rt<64x16xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
    %c = tile.outer %a, %b : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 2x2>>, !tile.rt<64x16xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>> -> !tile.rt<64x512xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
    %c0 = arith.constant 0 : index
    tile.store %c, %O[%c0, %c0] : !tile.rt<64x512xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>, !tile.gl<?x?xf32>
  }
}
