// tile-assign-layouts: open register layouts and shared swizzles are chosen
// from their uses; explicit ones are kept; where two fixed layouts meet one
// conversion is inserted, with a remark. Running it again changes nothing
// (and the output does not depend on anything but the input).
// RUN: tk-opt %s -split-input-file -tile-assign-layouts -verify-diagnostics | FileCheck %s
// RUN: tk-opt %s -split-input-file -tile-assign-layouts 2>/dev/null > %t.once
// RUN: tk-opt %t.once -split-input-file -tile-assign-layouts 2>/dev/null > %t.twice
// RUN: diff %t.once %t.twice

!view = !tile.gl<?x?xbf16>

// The accumulator chain (fill, loop, mma, cast) takes #tile.mma_acc.
// CHECK-LABEL: tile.kernel @accumulator
// CHECK:   tile.alloc : !tile.st<2x64x64xbf16, #tile.swizzle<128>>
// CHECK:   tile.alloc : !tile.st<64x256xbf16, #tile.swizzle<128>>
// CHECK:   tile.fill 0.000000e+00 : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
// CHECK:   scf.for {{.*}} -> (!tile.rt<64x256xf32, warpgroup, #tile.mma_acc>)
// CHECK:     tile.slot {{.*}} : !tile.st<2x64x64xbf16, #tile.swizzle<128>>
// CHECK:     tile.mma AB {{.*}} : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x256xbf16, #tile.swizzle<128>> -> !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
// CHECK:   tile.cast {{.*}} : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc> to !tile.rt<64x256xbf16, warpgroup, #tile.mma_acc>
tile.kernel @accumulator(%C: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<2x64x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = tile.fill 0.0 : !tile.rt<64x256xf32, warpgroup>
  %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%x = %zero) -> (!tile.rt<64x256xf32, warpgroup>) {
    %a_s = tile.slot %a[%k] : !tile.st<2x64x64xbf16>
    %y = tile.mma AB %a_s, %b, %x : !tile.st<64x64xbf16>, !tile.st<64x256xbf16> -> !tile.rt<64x256xf32, warpgroup>
    scf.yield %y : !tile.rt<64x256xf32, warpgroup>
  }
  %out = tile.cast %acc : !tile.rt<64x256xf32, warpgroup> to !tile.rt<64x256xbf16, warpgroup>
  tile.store %out, %C[%c0, %c0] : !tile.rt<64x256xbf16, warpgroup>, !view
}

// -----

// Values a tile loop carries (iter_args) share one layout with their init,
// the yielded value and the loop's result: the accumulator's here.
// CHECK-LABEL: tile.kernel @tile_loop_carries
// CHECK:   tile.fill 0.000000e+00 : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
// CHECK:   tile.foreach_tile {{.*}} -> (!tile.rt<64x256xf32, warpgroup, #tile.mma_acc>)
// CHECK:     tile.yield {{.*}} : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
// CHECK:   tile.cast {{.*}} : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc> to !tile.rt<64x256xbf16, warpgroup, #tile.mma_acc>
tile.kernel @tile_loop_carries(%C: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 1, grid = persistent) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %zero = tile.fill 0.0 : !tile.rt<64x256xf32, warpgroup>
  %acc = tile.foreach_tile (%t) in (%n) iter_args(%x = %zero) -> (!tile.rt<64x256xf32, warpgroup>) {
    %y = tile.mma AB %a, %b, %x : !tile.st<64x64xbf16>, !tile.st<64x256xbf16> -> !tile.rt<64x256xf32, warpgroup>
    tile.yield %y : !tile.rt<64x256xf32, warpgroup>
  }
  %out = tile.cast %acc : !tile.rt<64x256xf32, warpgroup> to !tile.rt<64x256xbf16, warpgroup>
  tile.store %out, %C[%c0, %c0] : !tile.rt<64x256xbf16, warpgroup>, !tile.gl<?x?xbf16>
}

// -----

// Swizzles: the widest of 128, 64, 32 bytes that divides a row, else none;
// subtiles follow their source; an explicit swizzle is kept.
// CHECK-LABEL: tile.kernel @swizzles
// CHECK: tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
// CHECK: tile.alloc : !tile.st<64x32xbf16, #tile.swizzle<64>>
// CHECK: tile.alloc : !tile.st<64x16xbf16, #tile.swizzle<32>>
// CHECK: tile.alloc : !tile.st<64x8xbf16, #tile.swizzle<0>>
// CHECK: tile.alloc : !tile.st<12x64xbf16, #tile.swizzle<0>>
// CHECK: tile.alloc : !tile.st<64x64xf32, #tile.swizzle<128>>
// CHECK: tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<32>>
// CHECK: tile.subtile {{.*}} : !tile.st<64x64xbf16, #tile.swizzle<128>> to !tile.st<32x64xbf16, #tile.swizzle<128>>
tile.kernel @swizzles() launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x32xbf16>
  %c = tile.alloc : !tile.st<64x16xbf16>
  %d = tile.alloc : !tile.st<64x8xbf16>
  %e = tile.alloc : !tile.st<12x64xbf16>
  %f = tile.alloc : !tile.st<64x64xf32>
  %g = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<32>>
  %c0 = arith.constant 0 : index
  %h = tile.subtile %a[%c0, %c0] : !tile.st<64x64xbf16> to !tile.st<32x64xbf16>
}

// -----

// Without an anchor a tile takes #tile.row; explicit layouts are kept.
// CHECK-LABEL: tile.kernel @defaults
// CHECK: tile.load {{.*}} -> !tile.rt<64x64xbf16, warpgroup, #tile.row>
// CHECK: tile.exp {{.*}} : !tile.rt<64x64xf32, warpgroup, #tile.row>
// CHECK: tile.load {{.*}} -> !tile.rt<64x64xbf16, warpgroup, #tile.col>
tile.kernel @defaults() launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %r = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
  %f = tile.cast %r : !tile.rt<64x64xbf16, warpgroup> to !tile.rt<64x64xf32, warpgroup>
  %e = tile.exp %f : !tile.rt<64x64xf32, warpgroup>
  %c = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup, #tile.col>
}

// -----

// Attention's core: the scores are an accumulator; their row max and the
// broadcast back follow it; P feeds the next mma as a register A operand,
// which needs #tile.row: one conversion, with a remark.
// CHECK-LABEL: tile.kernel @scores_to_operand
// CHECK: %[[S:.*]] = tile.mma ABt {{.*}} -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.row_max %[[S]] : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc> -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
// CHECK: tile.broadcast row {{.*}} : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>> to !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
// CHECK: %[[P:.*]] = tile.cast {{.*}} to !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc>
// CHECK: %[[PA:.*]] = tile.convert_layout %[[P]] : !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc> to !tile.rt<64x64xbf16, warpgroup, #tile.row>
// CHECK: tile.mma AB %[[PA]], {{.*}} -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
tile.kernel @scores_to_operand() launch(warpgroups = 1) {
  %q = tile.alloc : !tile.st<64x64xbf16>
  %s = tile.mma ABt %q, %q : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
  %m = tile.row_max %s : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
  %mb = tile.broadcast row %m : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
  %d = tile.sub %s, %mb : !tile.rt<64x64xf32, warpgroup>
  %p = tile.exp2 %d : !tile.rt<64x64xf32, warpgroup>
  %p16 = tile.cast %p : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
  // expected-remark @+1 {{layout conversion inserted for operand #0: #tile.mma_acc to #tile.row}}
  %o = tile.mma AB %p16, %q : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

// Two fixed classes meet: a row sum of a #tile.row tile accumulates into
// the row max of an accumulator, so the init operand is converted to the
// result's layout.
// CHECK-LABEL: tile.kernel @fixed_classes_meet
// CHECK: %[[M:.*]] = tile.row_max {{.*}} -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
// CHECK: %[[X:.*]] = tile.convert_layout %[[M]] : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>> to !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.row>>
// CHECK: tile.row_sum %{{.*}}, %[[X]] : !tile.rt<64x64xf32, warpgroup, #tile.row> -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.row>>
tile.kernel @fixed_classes_meet() launch(warpgroups = 1) {
  %q = tile.alloc : !tile.st<64x64xbf16>
  %s = tile.mma ABt %q, %q : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
  %m = tile.row_max %s : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
  %r = tile.load %q : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
  %f = tile.cast %r : !tile.rt<64x64xbf16, warpgroup> to !tile.rt<64x64xf32, warpgroup>
  // expected-remark @+1 {{layout conversion inserted for operand #1: #tile.vec<row, #tile.mma_acc> to #tile.vec<row, #tile.row>}}
  %sum = tile.row_sum %f, %m : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
}

// -----

// A tile read from a view in fragment order takes #tile.mma_acc, the order
// it was written in, and so does what it feeds (the cast); an explicit
// layout on such a load is kept; a load from a row-major view is left to
// the fallback (#tile.row).
// CHECK-LABEL: tile.kernel @fragment_order
// CHECK: tile.load {{.*}} : !tile.gl<?x64xf32, fragments> -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.cast {{.*}} to !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc>
// CHECK: tile.load {{.*}} : !tile.gl<?x64xf32, fragments> -> !tile.rt<64x64xf32, warpgroup, #tile.row>
// CHECK: tile.load {{.*}} : !tile.gl<?x64xf32> -> !tile.rt<64x64xf32, warpgroup, #tile.row>
tile.kernel @fragment_order(%F: !tile.gl<?x64xf32, fragments>, %G: !tile.gl<?x64xf32>, %O: !tile.gl<?x64xbf16>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %x = tile.load %F[%c0, %c0] : !tile.gl<?x64xf32, fragments> -> !tile.rt<64x64xf32, warpgroup>
  %y = tile.cast %x : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
  tile.store %y, %O[%c0, %c0] : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x64xbf16>
  %r = tile.load %F[%c0, %c0] : !tile.gl<?x64xf32, fragments> -> !tile.rt<64x64xf32, warpgroup, #tile.row>
  %g = tile.load %G[%c0, %c0] : !tile.gl<?x64xf32> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

// Vectors without a tile to follow take #tile.vec<row, #tile.row>; a
// column vector broadcast onto an accumulator follows it.
// CHECK-LABEL: tile.kernel @vectors
// CHECK: tile.fill 0.000000e+00 : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.row>>
// CHECK: tile.fill 1.000000e+00 : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
tile.kernel @vectors() launch(warpgroups = 1) {
  %q = tile.alloc : !tile.st<64x64xbf16>
  %v = tile.fill 0.0 : !tile.rv<64xf32, warpgroup>
  %w = tile.fill 1.0 : !tile.rv<64xf32, warpgroup>
  %s = tile.mma ABt %q, %q : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
  %wb = tile.broadcast col %w : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
  %x = tile.mul %s, %wb : !tile.rt<64x64xf32, warpgroup>
}

// -----

// AMD targets: MFMA fragments. The mma takes the first of the chip's MFMA
// shapes that tiles it (gfx942: 32x32x8), its register operands the `a` and
// `b` fragments, values it feeds and tiles nothing else fixes its
// accumulator, vectors follow; shared tiles get the XOR swizzles as on
// NVIDIA. Warp scope: no wave grid.
// CHECK-LABEL: tile.kernel @amd
// CHECK: tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
// CHECK: tile.load {{.*}} -> !tile.rt<32x16xbf16, warp, #tile.mfma<32x32x8, a>>
// CHECK: tile.load {{.*}} -> !tile.rt<16x64xbf16, warp, #tile.mfma<32x32x8, b>>
// CHECK: tile.mma AB {{.*}} -> !tile.rt<32x64xf32, warp, #tile.mfma<32x32x8, acc>>
// CHECK: tile.exp {{.*}} : !tile.rt<32x64xf32, warp, #tile.mfma<32x32x8, acc>>
// CHECK: tile.row_max {{.*}} -> !tile.rv<32xf32, warp, #tile.vec<row, #tile.mfma<32x32x8, acc>>>
// CHECK: tile.fill 0.000000e+00 : !tile.rt<64x64xf32, warp, #tile.mfma<32x32x8, acc>>
module attributes {tile.target = "gfx942"} {
  tile.kernel @amd(%A: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 1) {
    %s = tile.alloc : !tile.st<64x64xbf16>
    %a = tile.load %A[%i, %i] : !tile.gl<?x?xbf16> -> !tile.rt<32x16xbf16, warp>
    %b = tile.load %A[%i, %i] : !tile.gl<?x?xbf16> -> !tile.rt<16x64xbf16, warp>
    %d = tile.mma AB %a, %b : !tile.rt<32x16xbf16, warp>, !tile.rt<16x64xbf16, warp> -> !tile.rt<32x64xf32, warp>
    %e = tile.exp %d : !tile.rt<32x64xf32, warp>
    %m = tile.row_max %e : !tile.rt<32x64xf32, warp> -> !tile.rv<32xf32, warp>
    %z = tile.fill 0.0 : !tile.rt<64x64xf32, warp>
  }
}

// -----

// A warpgroup-scope mma on AMD splits its rows into one band per wave:
// 64 rows over 4 waves is 16 per wave, which the 32-row shapes do not fit,
// so the first 16-row shape is taken (gfx942: 16x16x16).
// CHECK-LABEL: tile.kernel @amd_warpgroup_bands
// CHECK: tile.mma ABt {{.*}} -> !tile.rt<64x64xf32, warpgroup, #tile.mfma<16x16x16, acc>>
module attributes {tile.target = "gfx942"} {
  tile.kernel @amd_warpgroup_bands(%i: index) launch(warpgroups = 1) {
    %q = tile.alloc : !tile.st<64x64xbf16>
    %k = tile.alloc : !tile.st<64x64xbf16>
    %s = tile.mma ABt %q, %k : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
  }
}

// -----

// A block-scope mma on AMD spreads over the kernel's waves as the grid with
// the smallest per-wave rows + columns: 128x256 over 8 waves is 2x4 (64x64
// per wave), the 32x32x8 shape tiles it.
// CHECK-LABEL: tile.kernel @amd_block_grid
// CHECK: tile.mma AB {{.*}} -> !tile.rt<128x256xf32, block, #tile.mfma<32x32x8, acc, waves = 2x4>>
// CHECK: tile.cast {{.*}} to !tile.rt<128x256xbf16, block, #tile.mfma<32x32x8, acc, waves = 2x4>>
module attributes {tile.target = "gfx942"} {
  tile.kernel @amd_block_grid(%C: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 2) {
    %a = tile.alloc : !tile.st<128x64xbf16>
    %b = tile.alloc : !tile.st<64x256xbf16>
    %z = tile.fill 0.0 : !tile.rt<128x256xf32, block>
    %d = tile.mma AB %a, %b, %z : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !tile.rt<128x256xf32, block>
    %c = tile.cast %d : !tile.rt<128x256xf32, block> to !tile.rt<128x256xbf16, block>
    tile.store %c, %C[%i, %i] : !tile.rt<128x256xbf16, block>, !tile.gl<?x?xbf16>
  }
}

// -----

// With a row reduction the waves split rows only (R x 1), so reductions
// stay inside a wave: 128 rows over 8 waves is 16 per wave, which only the
// 16-row shapes fit; gfx950 prefers its doubled-k 16x16x32.
// CHECK-LABEL: tile.kernel @amd_block_bands
// CHECK: tile.mma ABt {{.*}} -> !tile.rt<128x128xf32, block, #tile.mfma<16x16x32, acc, waves = 8x1>>
// CHECK: tile.row_max {{.*}} -> !tile.rv<128xf32, block, #tile.vec<row, #tile.mfma<16x16x32, acc, waves = 8x1>>>
module attributes {tile.target = "gfx950"} {
  tile.kernel @amd_block_bands(%i: index) launch(warpgroups = 2) {
    %q = tile.alloc : !tile.st<128x64xbf16>
    %k = tile.alloc : !tile.st<128x64xbf16>
    %s = tile.mma ABt %q, %k : !tile.st<128x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<128x128xf32, block>
    %m = tile.row_max %s : !tile.rt<128x128xf32, block> -> !tile.rv<128xf32, block>
  }
}

// -----

// gfx950 without an mma: nothing fixes the register tile and wave64 has no
// default layout, so it stays open.
// CHECK-LABEL: tile.kernel @amd_no_mma
// CHECK: tile.fill 0.000000e+00 : !tile.rt<64x64xf32, warp>{{$}}
module attributes {tile.target = "gfx950"} {
  tile.kernel @amd_no_mma() launch(warpgroups = 1) {
    %z = tile.fill 0.0 : !tile.rt<64x64xf32, warp>
  }
}

// -----

// No layout the pass would choose fits: register layouts stay open (all of
// them, so types still match), with a remark; swizzles are still chosen.
// CHECK-LABEL: tile.kernel @does_not_fit
// CHECK: tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
// CHECK: tile.fill 0.000000e+00 : !tile.rt<16x16xf32, block>{{$}}
// CHECK: tile.fill 0.000000e+00 : !tile.rt<64x64xf32, warpgroup>{{$}}
tile.kernel @does_not_fit() launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  // expected-remark @+1 {{register layouts left open: rows (16) must be a multiple of 64 for #tile.row (16 per warp, 4 warps) (layout #tile.row)}}
  %x = tile.fill 0.0 : !tile.rt<16x16xf32, block>
  %y = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup>
}

// -----

!acc = !tile.rt<64x64xf32, warpgroup>
!st = !tile.st<64x64xbf16>

// An scf.while carries the accumulator: its init, both regions' arguments,
// the condition's operand, the yield and the result share its layout.
// CHECK-LABEL: tile.kernel @while_carries_accumulator
// CHECK: scf.while ({{.*}}) : (index, !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>) -> (index, !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>)
// CHECK: scf.condition({{.*}}) {{.*}} : index, !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>):
// CHECK: scf.yield {{.*}} : index, !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
tile.kernel @while_carries_accumulator(%C: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 1) {
  %a = tile.alloc : !st
  %b = tile.alloc : !st
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = tile.fill 0.0 : !acc
  %r:2 = scf.while (%i = %c0, %x = %z) : (index, !acc) -> (index, !acc) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i, %x : index, !acc
  } do {
  ^bb0(%j: index, %y: !acc):
    %m = tile.mma AB %a, %b, %y : !st, !st -> !acc
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %m : index, !acc
  }
  tile.store %r#1, %C[%c0, %c0] : !acc, !tile.gl<?x?xf32>
}
