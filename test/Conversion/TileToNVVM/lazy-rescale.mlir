// Conditional rescaling: `tile.row_max ... slack %t` keeps the init element
// unless the tile's maximum passes it by more than %t (fsub, fcmp ogt,
// select after the max), and `tile.mul ... skip_ones` multiplies inside an
// scf.if that a thread enters only when one of its factors is not 1.0 — for
// a broadcast vector its few registers are compared (here the 2 rows a
// thread holds of a 64-row tile), otherwise every field. Without the
// attribute the multiply is unconditional. The AMD lowering shares both.
// RUN: tk-opt %s -split-input-file -convert-tile-to-nvvm | FileCheck %s

// CHECK-LABEL: llvm.func @lazy
// CHECK-SAME: (%[[T:[^:]*]]: f32
// Row 0: the tile's maximum, combined with the init (extracted just
// before), kept unless it moved.
// CHECK: llvm.extractvalue %{{.*}}[0] : !llvm.struct<(f32, f32)>
// CHECK: %[[MAX0:.*]] = llvm.intr.maxnum(%[[P0:[0-9]+]], %[[OLD0:[0-9]+]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[GROWN0:.*]] = llvm.fsub %[[P0]], %[[OLD0]]
// CHECK-NEXT: %[[MOVES0:.*]] = llvm.fcmp "ogt" %[[GROWN0]], %[[T]] : f32
// CHECK-NEXT: llvm.select %[[MOVES0]], %[[MAX0]], %[[OLD0]] : i1, f32
// Row 1 (the thread's second row) alike.
// CHECK: llvm.fcmp "ogt" %{{.*}}, %[[T]] : f32
// CHECK-NEXT: llvm.select
// The skipped multiply: two compares with 1.0, one branch, 8 products.
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT: %[[NE0:.*]] = llvm.fcmp "une" %{{.*}}, %[[ONE]] : f32
// CHECK-NEXT: %[[NE1:.*]] = llvm.fcmp "une" %{{.*}}, %[[ONE]] : f32
// CHECK-NEXT: %[[ANY:.*]] = llvm.or %[[NE0]], %[[NE1]] : i1
// CHECK-NEXT: %[[O:.*]] = scf.if %[[ANY]] -> (!llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
// CHECK-COUNT-8: llvm.fmul
// CHECK: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[S:.*]] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
!acc = !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
!row = !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
tile.kernel @lazy(%t: f32, %O: !tile.gl<?x?xf32>, %L: !tile.gl<?xf32>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %s = tile.fill 2.0 : !acc
  %m0 = tile.fill 1.0 : !row
  %m = tile.row_max %s, %m0 slack %t : !acc -> !row
  %d = tile.sub %m0, %m : !row
  %a = tile.exp2 %d : !row
  %ab = tile.broadcast row %a : !row to !acc
  %o = tile.mul %s, %ab skip_ones : !acc
  tile.store %o, %O[%c0, %c0] : !acc, !tile.gl<?x?xf32>
  tile.store %m, %L[%c0] : !row, !tile.gl<?xf32>
}

// -----

// A whole-tile rhs: each of the thread's 8 fields is compared.
// CHECK-LABEL: llvm.func @tile_rhs
// CHECK-COUNT-8: llvm.fcmp "une"
// CHECK: scf.if
// A scalar rhs: one compare.
// CHECK: llvm.fcmp "une"
// CHECK-NOT: llvm.fcmp
// CHECK: scf.if
!acc = !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
tile.kernel @tile_rhs(%t: f32, %O: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %s = tile.fill 2.0 : !acc
  %f = tile.fill 1.0 : !acc
  %o = tile.mul %s, %f skip_ones : !acc
  %p = tile.mul %o, %t skip_ones : !acc, f32
  tile.store %p, %O[%c0, %c0] : !acc, !tile.gl<?x?xf32>
}

// -----

// Without the attributes: no compare, no branch around the multiply (the
// scf.if left are the stores' own guards).
// CHECK-LABEL: llvm.func @plain
// CHECK-NOT: llvm.fcmp
// CHECK-NOT: scf.if %{{.*}} -> (!llvm.struct
// CHECK: llvm.return
!acc = !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
!row = !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
tile.kernel @plain(%O: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %s = tile.fill 2.0 : !acc
  %m0 = tile.fill 1.0 : !row
  %m = tile.row_max %s, %m0 : !acc -> !row
  %ab = tile.broadcast row %m : !row to !acc
  %o = tile.mul %s, %ab : !acc
  tile.store %o, %O[%c0, %c0] : !acc, !tile.gl<?x?xf32>
}
