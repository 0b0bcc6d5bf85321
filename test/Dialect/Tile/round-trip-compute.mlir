// RUN: tk-opt %s -allow-unregistered-dialect | tk-opt -allow-unregistered-dialect | FileCheck %s
// RUN: tk-opt %s -allow-unregistered-dialect -mlir-print-op-generic | tk-opt -allow-unregistered-dialect | FileCheck %s

!acc = !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
!row = !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
!col = !tile.rv<128xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>

// CHECK-LABEL: tile.kernel @mma_forms
// CHECK: tile.mma AB %{{.*}}, %{{.*}}, %{{.*}} : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.mma ABt %{{.*}}, %{{.*}} : !tile.st<64x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.mma AtB %{{.*}}, %{{.*}} : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.mma AtBt %{{.*}}, %{{.*}}, %{{.*}} : !tile.st<64x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.mma AB %{{.*}}, %{{.*}} : !tile.rt<64x64xbf16, warpgroup, #tile.row>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, warpgroup>
// CHECK: tile.mma AB %{{.*}}, %{{.*}} : !tile.rt<16x16xf16, warp, #tile.row>, !tile.rt<16x16xf16, warp, #tile.col> -> !tile.rt<16x16xf16, warp, #tile.mma_acc>
// CHECK: tile.mma ABt %{{.*}}, %{{.*}} : !tile.st<64x64xf8E4M3FN>, !tile.st<128x64xf8E5M2> -> !tile.rt<64x128xf32, warpgroup>
tile.kernel @mma_forms() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x128xbf16>
  %bt = tile.alloc : !tile.st<128x64xbf16>
  %c = tile.fill 0.0 : !acc
  %d0 = tile.mma AB %a, %b, %c : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !acc
  %d1 = tile.mma ABt %a, %bt : !tile.st<64x64xbf16>, !tile.st<128x64xbf16> -> !acc
  %d2 = tile.mma AtB %a, %b : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !acc
  %d3 = tile.mma AtBt %a, %bt, %d2 : !tile.st<64x64xbf16>, !tile.st<128x64xbf16> -> !acc
  %ar = "test.source"() : () -> !tile.rt<64x64xbf16, warpgroup, #tile.row>
  %d4 = tile.mma AB %ar, %b : !tile.rt<64x64xbf16, warpgroup, #tile.row>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, warpgroup>
  %wa = "test.source"() : () -> !tile.rt<16x16xf16, warp, #tile.row>
  %wb = "test.source"() : () -> !tile.rt<16x16xf16, warp, #tile.col>
  %d5 = tile.mma AB %wa, %wb : !tile.rt<16x16xf16, warp, #tile.row>, !tile.rt<16x16xf16, warp, #tile.col> -> !tile.rt<16x16xf16, warp, #tile.mma_acc>
  %fa = tile.alloc : !tile.st<64x64xf8E4M3FN>
  %fb = tile.alloc : !tile.st<128x64xf8E5M2>
  %d6 = tile.mma ABt %fa, %fb : !tile.st<64x64xf8E4M3FN>, !tile.st<128x64xf8E5M2> -> !tile.rt<64x128xf32, warpgroup>
}

// CHECK-LABEL: tile.kernel @mma_in_flight
// CHECK: %[[D:.*]] = tile.mma_async AB %{{.*}}, %{{.*}} : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.mma_async AB %{{.*}}, %{{.*}}, %[[D]]
// CHECK: tile.mma_wait 1
// CHECK: tile.mma_wait 0
tile.kernel @mma_in_flight() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x128xbf16>
  %d = tile.mma_async AB %a, %b : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !acc
  %e = tile.mma_async AB %a, %b, %d : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !acc
  tile.mma_wait 1
  tile.mma_wait 0
  "test.use"(%e) : (!acc) -> ()
}

// CHECK-LABEL: tile.kernel @mfma
// CHECK: tile.mma AB %{{.*}}, %{{.*}} : !tile.rt<32x16xbf16, warp, #tile.mfma<32x32x16, a>>, !tile.rt<16x32xbf16, warp, #tile.mfma<32x32x16, b>> -> !tile.rt<32x32xf32, warp, #tile.mfma<32x32x16, acc>>
module attributes {tile.target = "gfx950"} {
  tile.kernel @mfma() {
    %a = "test.source"() : () -> !tile.rt<32x16xbf16, warp, #tile.mfma<32x32x16, a>>
    %b = "test.source"() : () -> !tile.rt<16x32xbf16, warp, #tile.mfma<32x32x16, b>>
    %d = tile.mma AB %a, %b : !tile.rt<32x16xbf16, warp, #tile.mfma<32x32x16, a>>, !tile.rt<16x32xbf16, warp, #tile.mfma<32x32x16, b>> -> !tile.rt<32x32xf32, warp, #tile.mfma<32x32x16, acc>>
  }
}

// CHECK-LABEL: tile.kernel @elementwise
// CHECK: tile.exp %[[X:.*]] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.exp2 %[[X]]
// CHECK: tile.log %[[X]]
// CHECK: tile.neg %[[X]]
// CHECK: tile.abs %[[X]]
// CHECK: tile.add %[[X]], %[[X]] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>{{$}}
// CHECK: tile.sub %[[X]], %[[X]]
// CHECK: tile.mul %[[X]], %[[S:.*]] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>, f32
// CHECK: tile.div %[[X]], %[[S]] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>, f32
// CHECK: tile.max %[[X]], %[[X]]
// CHECK: tile.min %{{.*}}, %[[S]] : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, f32
// CHECK: tile.fma %[[X]], %[[X]], %[[X]] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.cast %[[X]] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc> to !tile.rt<64x128xbf16, warpgroup, #tile.mma_acc>
// CHECK: tile.cast %{{.*}} : !tile.rt<64x128xbf16, warpgroup> to !tile.rt<64x128xf8E4M3FN, warpgroup>
tile.kernel @elementwise(%s: f32) {
  %x = tile.fill 1.5 : !acc
  %v = tile.fill -2.0 : !row
  %0 = tile.exp %x : !acc
  %1 = tile.exp2 %x : !acc
  %2 = tile.log %x : !acc
  %3 = tile.neg %x : !acc
  %4 = tile.abs %x : !acc
  %5 = tile.add %x, %x : !acc
  %6 = tile.sub %x, %x : !acc
  %7 = tile.mul %x, %s : !acc, f32
  %8 = tile.div %x, %s : !acc, f32
  %9 = tile.max %x, %x : !acc
  %10 = tile.min %v, %s : !row, f32
  %11 = tile.fma %x, %x, %x : !acc
  %12 = tile.cast %x : !acc to !tile.rt<64x128xbf16, warpgroup, #tile.mma_acc>
  %y = tile.fill 0.0 : !tile.rt<64x128xbf16, warpgroup>
  %13 = tile.cast %y : !tile.rt<64x128xbf16, warpgroup> to !tile.rt<64x128xf8E4M3FN, warpgroup>
}

// CHECK-LABEL: tile.kernel @rows_and_columns
// CHECK: tile.row_max %[[X:.*]] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc> -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
// CHECK: tile.row_sum %[[X]], %{{.*}} : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc> -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
// CHECK: tile.col_max %[[X]] : {{.*}} -> !tile.rv<128xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
// CHECK: tile.col_sum %[[X]], %{{.*}} : {{.*}} -> !tile.rv<128xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
// CHECK: tile.broadcast row %{{.*}} : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>> to !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.broadcast col %{{.*}} : !tile.rv<128xf32, warpgroup, #tile.vec<col, #tile.mma_acc>> to !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.vec_reduce max %{{.*}} : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
// CHECK: tile.vec_reduce sum
// CHECK: tile.cumsum %{{.*}} : !tile.rv<64xf32, warpgroup>
// CHECK: tile.cumsum %{{.*}} exclusive : !tile.rv<64xf32, warpgroup>
// CHECK: tile.cumsum row %[[X]] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.cumsum col %[[X]] exclusive : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
tile.kernel @rows_and_columns() {
  %x = tile.fill 0.0 : !acc
  %r0 = tile.fill 0.0 : !row
  %c0 = tile.fill 0.0 : !col
  %rm = tile.row_max %x : !acc -> !row
  %rs = tile.row_sum %x, %r0 : !acc -> !row
  %cm = tile.col_max %x : !acc -> !col
  %cs = tile.col_sum %x, %c0 : !acc -> !col
  %br = tile.broadcast row %rm : !row to !acc
  %bc = tile.broadcast col %cm : !col to !acc
  %m = tile.vec_reduce max %rm : !row
  %s = tile.vec_reduce sum %rs : !row
  %v = tile.fill 1.0 : !tile.rv<64xf32, warpgroup>
  %p = tile.cumsum %v : !tile.rv<64xf32, warpgroup>
  %pe = tile.cumsum %v exclusive : !tile.rv<64xf32, warpgroup>
  %pr = tile.cumsum row %x : !acc
  %pc = tile.cumsum col %x exclusive : !acc
}

// A running maximum that may lag (slack) and a multiply that threads skip
// where their factors are all 1.0.
// CHECK-LABEL: tile.kernel @lazy_rescale
// CHECK: tile.row_max %[[X:.*]], %[[M:.*]] slack %[[T:.*]] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc> -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
// CHECK: tile.col_max %[[X]], %{{.*}} slack %[[T]] : {{.*}} -> !tile.rv<128xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
// CHECK: tile.mul %[[X]], %{{.*}} skip_ones : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>{{$}}
// CHECK: tile.mul %[[X]], %[[T]] skip_ones : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>, f32
tile.kernel @lazy_rescale(%t: f32) {
  %x = tile.fill 0.0 : !acc
  %r0 = tile.fill 0.0 : !row
  %c0 = tile.fill 0.0 : !col
  %rm = tile.row_max %x, %r0 slack %t : !acc -> !row
  %cm = tile.col_max %x, %c0 slack %t : !acc -> !col
  %br = tile.broadcast row %rm : !row to !acc
  %y = tile.mul %x, %br skip_ones : !acc
  %z = tile.mul %x, %t skip_ones : !acc, f32
}

// CHECK-LABEL: tile.kernel @shapes_and_masks
// CHECK: tile.fill 0xFFF0000000000000 : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.causal_mask %{{.*}}[%[[R:.*]], %[[C:.*]]] fill neg_inf : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.bound_mask %{{.*}}[%[[R]], %[[C]]] within [%{{.*}}, %{{.*}}] fill zero : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.causal_mask %{{.*}}[%[[C]], %[[R]]] transposed fill zero : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// CHECK: tile.transpose %{{.*}} : !tile.rt<64x128xf32, warpgroup> to !tile.rt<128x64xf32, warpgroup>
// CHECK: tile.convert_layout %{{.*}} : !tile.rt<64x128xbf16, warpgroup, #tile.mma_acc> to !tile.rt<64x128xbf16, warpgroup, #tile.row>
// CHECK: tile.outer %[[F:.*]], %[[F]] : !tile.rt<64x16xf32, warpgroup>, !tile.rt<64x16xf32, warpgroup> -> !tile.rt<64x256xf32, warpgroup>
// CHECK: tile.outer %{{.*}}, %{{.*}} : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>, !tile.rt<64x4xbf16, warpgroup> -> !tile.rt<64x64xbf16, warpgroup, #tile.row>
tile.kernel @shapes_and_masks(%r: index, %c: index, %n: index) {
  %x = tile.fill 0xFFF0000000000000 : !acc
  %m = tile.causal_mask %x[%r, %c] fill neg_inf : !acc
  %b = tile.bound_mask %m[%r, %c] within [%n, %n] fill zero : !acc
  %bt = tile.causal_mask %b[%c, %r] transposed fill zero : !acc
  %y = tile.fill 0.0 : !tile.rt<64x128xf32, warpgroup>
  %t = tile.transpose %y : !tile.rt<64x128xf32, warpgroup> to !tile.rt<128x64xf32, warpgroup>
  %p = tile.fill 0.0 : !tile.rt<64x128xbf16, warpgroup, #tile.mma_acc>
  %q = tile.convert_layout %p : !tile.rt<64x128xbf16, warpgroup, #tile.mma_acc> to !tile.rt<64x128xbf16, warpgroup, #tile.row>
  "test.use"(%q) : (!tile.rt<64x128xbf16, warpgroup, #tile.row>) -> ()
  %f = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup>
  %ff = tile.outer %f, %f : !tile.rt<64x16xf32, warpgroup>, !tile.rt<64x16xf32, warpgroup> -> !tile.rt<64x256xf32, warpgroup>
  %g = tile.fill 1.0 : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>
  %h = tile.fill 1.0 : !tile.rt<64x4xbf16, warpgroup>
  %gh = tile.outer %g, %h : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>, !tile.rt<64x4xbf16, warpgroup> -> !tile.rt<64x64xbf16, warpgroup, #tile.row>
}
