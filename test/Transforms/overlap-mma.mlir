// tile-overlap-mma: a loop whose second MMA accumulates into a loop-carried
// value and reads a value computed from the first MMA is rotated: iteration
// i issues the first MMA of i and the second of i - 1 asynchronously, waits
// for the first (mma_wait 1), runs what depends on it, then waits for the
// second (mma_wait 0), releases its buffer and rescales the accumulator.
// Loops of other shapes are left alone, with a remark when they have two
// MMAs.
// RUN: tk-opt %s -split-input-file -tile-overlap-mma -verify-diagnostics | FileCheck %s

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// CHECK-LABEL: tile.kernel @attention_like
// CHECK:      %[[ANY:.*]] = arith.cmpi slt, %[[C0:.*]], %[[N:.*]] : index
// CHECK:      %[[R:.*]]:2 = scf.if %[[ANY]] -> (!tile.rv<64xf32, warpgroup>, !tile.rt<64x64xf32, warpgroup>) {
//   Prologue: iteration 0 up to the second MMA, the first MMA synchronous.
// CHECK:        tile.sem_wait
// CHECK:        %[[S0:.*]] = tile.mma ABt
// CHECK:        tile.row_max %[[S0]]
// CHECK:        %[[ACC0:.*]] = tile.mul %[[INIT:.*]], %{{.*}} : !tile.rt<64x64xf32, warpgroup>
// CHECK:        %[[P0:.*]] = tile.cast
// CHECK-NOT:    tile.mma
// CHECK:        %[[START:.*]] = arith.addi %[[C0]], %[[C1:.*]] : index
// CHECK:        %[[L:.*]]:3 = scf.for %[[I:.*]] = %[[START]] to %[[N]] step %[[C1]] iter_args(%[[M:.*]] = %{{.*}}, %[[PP:.*]] = %[[P0]], %[[ACC:.*]] = %[[ACC0]])
// CHECK:          %[[PREV:.*]] = arith.subi %[[I]], %[[C1]] : index
// CHECK:          tile.sem_wait
// CHECK:          %[[S:.*]] = tile.mma_async ABt
//   The previous iteration's V slot, recomputed from its index.
// CHECK:          %[[ST:.*]] = arith.remui %[[PREV]]
// CHECK:          %[[VS:.*]] = tile.slot %{{.*}}[%[[ST]]] : !tile.st<2x64x64xbf16>
// CHECK:          %[[O:.*]] = tile.mma_async AB %[[PP]], %[[VS]], %[[ACC]]
// CHECK-NEXT:     tile.mma_wait 1
// CHECK:          tile.row_max %[[S]], %[[M]]
// CHECK:          %[[PN:.*]] = tile.cast
// CHECK:          tile.mma_wait 0
// CHECK-NEXT:     %[[ST2:.*]] = arith.remui %[[PREV]]
// CHECK-NEXT:     %[[VE:.*]] = tile.slot %{{.*}}[%[[ST2]]] : !tile.sem<2>
// CHECK-NEXT:     tile.sem_arrive %[[VE]]
// CHECK-NEXT:     %[[ACCN:.*]] = tile.mul %[[O]], %{{.*}} : !tile.rt<64x64xf32, warpgroup>
// CHECK-NEXT:     scf.yield %{{.*}}, %[[PN]], %[[ACCN]]
//   Epilogue: the last iteration's second MMA, synchronous.
// CHECK:        %[[TRIPS:.*]] = arith.select
// CHECK:        %[[LASTI:.*]] = arith.addi %[[C0]], %{{.*}} : index
// CHECK:        %[[LST:.*]] = arith.remui %[[LASTI]]
// CHECK:        %[[LV:.*]] = tile.slot %{{.*}}[%[[LST]]] : !tile.st<2x64x64xbf16>
// CHECK:        %[[OL:.*]] = tile.mma AB %[[L]]#1, %[[LV]], %[[L]]#2
// CHECK:        tile.sem_arrive
// CHECK:        scf.yield %[[L]]#0, %[[OL]]
// CHECK:      } else {
// CHECK:        scf.yield %{{.*}}, %[[INIT]]
// CHECK:      tile.store %[[R]]#1
tile.kernel @attention_like(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %stage2 = arith.remui %j, %c2 : index
      %v_s = tile.slot %v[%stage2] : !ring
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %stage3 = arith.remui %j, %c2 : index
      %e = tile.slot %v_empty[%stage3] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    %c0_1 = arith.constant 0 : index
    tile.store %o, %O[%c0_1, %c0_1] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>

// The second MMA accumulates into the loop-carried value itself (no
// rescale between): the carried value is handed over like P, the previous
// step's second MMA accumulating into the one before it.
// CHECK-LABEL: tile.kernel @carried_accumulator
// CHECK:        %[[S0:.*]] = tile.mma ABt
// CHECK:        %[[P0:.*]] = tile.cast %[[S0]]
// CHECK:        %[[L:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PP:.*]] = %[[P0]], %[[ACC:.*]] = %[[ZERO:.*]]) -> (!tile.rt<64x64xbf16, warpgroup>, !tile.rt<64x64xf32, warpgroup>)
// CHECK:          %[[S:.*]] = tile.mma_async ABt
// CHECK:          %[[O:.*]] = tile.mma_async AB %[[PP]], %{{.*}}, %[[ACC]]
// CHECK-NEXT:     tile.mma_wait 1
// CHECK:          %[[PN:.*]] = tile.cast %[[S]]
// CHECK:          tile.mma_wait 0
// CHECK:          scf.yield %[[PN]], %[[O]]
// CHECK:        %[[OL:.*]] = tile.mma AB %[[L]]#0, %{{.*}}, %[[L]]#1
// CHECK:        scf.yield %[[OL]]
tile.kernel @carried_accumulator(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %p16 = tile.cast %s : !s to !p
      %v_s = tile.slot %v[%stage] : !ring
      %next = tile.mma AB %p16, %v_s, %acc : !p, !st -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %next : !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// One MMA (a GEMM main loop): not a candidate, no remark.
// CHECK-LABEL: tile.kernel @one_mma
// CHECK-NOT: tile.mma_async
tile.kernel @one_mma(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %next = tile.add %acc, %s : !s
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// The second MMA's result is read in the iteration.
// CHECK-LABEL: tile.kernel @result_used
// CHECK-NOT: tile.mma_async
tile.kernel @result_used(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    // expected-remark @+1 {{MMAs not overlapped: the second MMA's result is used in the iteration}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %r = tile.row_max %next, %m_new : !s -> !row
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %r, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// The second MMA starts from zero each iteration.
// CHECK-LABEL: tile.kernel @not_accumulated
// CHECK-NOT: tile.mma_async
tile.kernel @not_accumulated(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    // expected-remark @+1 {{MMAs not overlapped: the second MMA's result is used in the iteration}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %fresh = tile.mma AB %p16, %v_s : !p, !st -> !s
      %next = tile.add %fresh, %scaled : !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// The second MMA does not read the first one's result.
// CHECK-LABEL: tile.kernel @independent
// CHECK-NOT: tile.mma_async
tile.kernel @independent(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    // expected-remark @+1 {{MMAs not overlapped: the second MMA does not read the first one's result}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %pa, %v_s, %scaled : !p, !st -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// The second MMA's accumulator is not the loop-carried value.
// CHECK-LABEL: tile.kernel @no_accumulator
// CHECK-NOT: tile.mma_async
tile.kernel @no_accumulator(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    // expected-remark @+1 {{MMAs not overlapped: the second MMA does not accumulate into the loop-carried value}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %p16, %v_s, %zero : !p, !st -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// The first MMA's result is read after the second MMA.
// CHECK-LABEL: tile.kernel @first_used_after
// CHECK-NOT: tile.mma_async
tile.kernel @first_used_after(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    // expected-remark @+1 {{MMAs not overlapped: the first MMA's result is used after the second MMA}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %late = tile.row_max %s, %m_new : !s -> !row
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %late, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// The rotated loop would not fit the consumers' registers.
// CHECK-LABEL: tile.kernel @over_budget
// CHECK-NOT: tile.mma_async
tile.kernel @over_budget(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !tile.st<2x256x64xbf16>
  %v = tile.alloc : !tile.st<2x256x64xbf16>
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    // expected-remark @+1 {{MMAs not overlapped: it would keep about 264 registers per thread live, over the consumers' 240}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !tile.st<2x256x64xbf16>
      %v_s = tile.slot %v[%stage] : !tile.st<2x256x64xbf16>
      %s = tile.mma ABt %q, %k_s : !st, !tile.st<256x64xbf16> -> !tile.rt<64x256xf32, warpgroup>
      %m_new = tile.row_max %s, %m_j : !tile.rt<64x256xf32, warpgroup> -> !row
      %m_b = tile.broadcast row %m_new : !row to !tile.rt<64x256xf32, warpgroup>
      %shift = tile.sub %s, %m_b : !tile.rt<64x256xf32, warpgroup>
      %p = tile.exp2 %shift : !tile.rt<64x256xf32, warpgroup>
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !tile.rt<64x256xf32, warpgroup> to !tile.rt<64x256xbf16, warpgroup>
      %next = tile.mma AB %p16, %v_s, %scaled : !tile.rt<64x256xbf16, warpgroup>, !tile.st<256x64xbf16> -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x128xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x128xf32, warpgroup>
!p = !tile.rt<64x128xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// S (88 registers), O (64) and P (44, counted once: the new P takes the
// registers S frees) plus 40 fit 240: rotated.
// CHECK-LABEL: tile.kernel @fits_with_p_once
// CHECK: tile.mma_async ABt
// CHECK: tile.mma_async AB
// CHECK: tile.mma_wait 1
tile.kernel @fits_with_p_once(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !tile.st<2x176x128xbf16>
  %v = tile.alloc : !tile.st<2x176x128xbf16>
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !tile.st<2x176x128xbf16>
      %v_s = tile.slot %v[%stage] : !tile.st<2x176x128xbf16>
      %s = tile.mma ABt %q, %k_s : !st, !tile.st<176x128xbf16> -> !tile.rt<64x176xf32, warpgroup>
      %m_new = tile.row_max %s, %m_j : !tile.rt<64x176xf32, warpgroup> -> !row
      %m_b = tile.broadcast row %m_new : !row to !tile.rt<64x176xf32, warpgroup>
      %shift = tile.sub %s, %m_b : !tile.rt<64x176xf32, warpgroup>
      %p = tile.exp2 %shift : !tile.rt<64x176xf32, warpgroup>
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !tile.rt<64x176xf32, warpgroup> to !tile.rt<64x176xbf16, warpgroup>
      %next = tile.mma AB %p16, %v_s, %scaled : !tile.rt<64x176xbf16, warpgroup>, !tile.st<176x128xbf16> -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!s = !tile.rt<64x128xf32, warpgroup>
!p = !tile.rt<64x128xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// @fits_with_p_once with Q read into registers before the loop: Q (32
// registers) is live throughout, so S (88), O (64), P (44), 40 and Q need
// 268, over 240.
// CHECK-LABEL: tile.kernel @invariant_register_operand
// CHECK-NOT: tile.mma_async
tile.kernel @invariant_register_operand(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q_s = tile.alloc : !tile.st<64x128xbf16>
  %k = tile.alloc : !tile.st<2x176x128xbf16>
  %v = tile.alloc : !tile.st<2x176x128xbf16>
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
    %q = tile.load %q_s : !tile.st<64x128xbf16> -> !p
    // expected-remark @+1 {{MMAs not overlapped: it would keep about 268 registers per thread live, over the consumers' 240}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !tile.st<2x176x128xbf16>
      %v_s = tile.slot %v[%stage] : !tile.st<2x176x128xbf16>
      %s = tile.mma ABt %q, %k_s : !p, !tile.st<176x128xbf16> -> !tile.rt<64x176xf32, warpgroup>
      %m_new = tile.row_max %s, %m_j : !tile.rt<64x176xf32, warpgroup> -> !row
      %m_b = tile.broadcast row %m_new : !row to !tile.rt<64x176xf32, warpgroup>
      %shift = tile.sub %s, %m_b : !tile.rt<64x176xf32, warpgroup>
      %p = tile.exp2 %shift : !tile.rt<64x176xf32, warpgroup>
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !tile.rt<64x176xf32, warpgroup> to !tile.rt<64x176xbf16, warpgroup>
      %next = tile.mma AB %p16, %v_s, %scaled : !tile.rt<64x176xbf16, warpgroup>, !tile.st<176x128xbf16> -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// Outside a consumer warp role the register budget is unknown.
// CHECK-LABEL: tile.kernel @no_role
// CHECK-NOT: tile.mma_async
tile.kernel @no_role(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0_i32 = arith.constant 0 : i32
  %zero = tile.fill 0.0 : !s
  %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
  // expected-remark @+1 {{MMAs not overlapped: the loop is not in a consumer warp role with a register budget}}
  %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
    %stage = arith.remui %j, %c2 : index
    %f = tile.slot %full[%stage] : !tile.sem<2>
    tile.sem_wait %f, %c0_i32
    %k_s = tile.slot %k[%stage] : !ring
    %v_s = tile.slot %v[%stage] : !ring
    %s = tile.mma ABt %q, %k_s : !st, !st -> !s
    %m_new = tile.row_max %s, %m_j : !s -> !row
    %m_b = tile.broadcast row %m_new : !row to !s
    %shift = tile.sub %s, %m_b : !s
    %p = tile.exp2 %shift : !s
    %diff = tile.sub %m_j, %m_new : !row
    %alpha = tile.exp2 %diff : !row
    %alpha_b = tile.broadcast row %alpha : !row to !s
    %scaled = tile.mul %acc, %alpha_b : !s
    %p16 = tile.cast %p : !s to !p
    %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
    %e = tile.slot %v_empty[%stage] : !tile.sem<2>
    tile.sem_arrive %e
    scf.yield %m_new, %next : !row, !s
  } {tile.pipelined = 2 : i64}
  tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// A store of the accumulator would have to move after the wait.
// CHECK-LABEL: tile.kernel @side_effect
// CHECK-NOT: tile.mma_async
tile.kernel @side_effect(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    // expected-remark @+1 {{MMAs not overlapped: 'tile.store' uses the loop-carried accumulator and has side effects}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      tile.store %acc, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// An MMA is asynchronous already.
// CHECK-LABEL: tile.kernel @already_async
// CHECK-NOT: tile.mma_wait 1
tile.kernel @already_async(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    // expected-remark @+1 {{MMAs not overlapped: an MMA is asynchronous already or nested in a region}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma_async ABt %q, %k_s : !st, !st -> !s
      tile.mma_wait 0
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// A loop-carried value computed after the second MMA.
// CHECK-LABEL: tile.kernel @carried_after
// CHECK-NOT: tile.mma_async
tile.kernel @carried_after(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
  %pa = tile.fill 1.0 : !p
    // expected-remark @+1 {{MMAs not overlapped: 'tile.exp2' after the second MMA computes a loop-carried value}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %m_out = tile.exp2 %m_new : !row
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_out, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>
!view = !tile.gl<?x?xbf16>

// K and V in one ring stage with one semaphore pair (as tile-pipeline and
// tile-warp-specialize leave them): V gets its own pair first, so that K's
// stage is released after S = Q Kᵀ and V's one iteration later. The
// producer waits for and signals them separately.
// CHECK-LABEL: tile.kernel @shared_ring
// CHECK:       %[[FULL:.*]] = tile.alloc : !tile.sem<2>
// CHECK-NEXT:  %[[EMPTY:.*]] = tile.alloc : !tile.sem<2>
// CHECK-NEXT:  %[[VFULL:.*]] = tile.alloc : !tile.sem<2>
// CHECK-NEXT:  %[[VEMPTY:.*]] = tile.alloc : !tile.sem<2>
// CHECK:       tile.sem_init %[[EMPTY]], 2
// CHECK-NEXT:  tile.sem_init %[[VFULL]], 1
// CHECK-NEXT:  tile.sem_init %[[VEMPTY]], 2
// CHECK:       tile.warp_specialize producer
// CHECK:         tile.sem_wait %{{.*}}, %[[PREV:.*]]
// CHECK:         tile.sem_expect %[[F:.*]], %[[KS:.*]] : !tile.st<64x64xbf16>
// CHECK-NEXT:    tile.load_async %{{.*}} -> %[[KS]], %[[F]]
// CHECK-NEXT:    %[[VE:.*]] = tile.slot %[[VEMPTY]]
// CHECK-NEXT:    tile.sem_wait %[[VE]], %[[PREV]]
// CHECK-NEXT:    %[[VF:.*]] = tile.slot %[[VFULL]]
// CHECK-NEXT:    tile.sem_expect %[[VF]], %[[VS:.*]] : !tile.st<64x64xbf16>
// CHECK-NEXT:    tile.load_async %{{.*}} -> %[[VS]], %[[VF]]
// CHECK:       } consumer
// CHECK:         scf.for
// CHECK:           tile.mma_async ABt
// CHECK:           %[[VW:.*]] = tile.slot %[[VFULL]]
// CHECK-NEXT:      tile.sem_wait %[[VW]]
// CHECK:           tile.mma_async AB
// CHECK-NEXT:      tile.mma_wait 1
// CHECK-NEXT:      %[[KR:.*]] = tile.slot %[[EMPTY]]
// CHECK-NEXT:      tile.sem_arrive %[[KR]]
// CHECK:           tile.mma_wait 0
// CHECK:           %[[VR:.*]] = tile.slot %[[VEMPTY]]
// CHECK-NEXT:      tile.sem_arrive %[[VR]]
tile.kernel @shared_ring(%K: !view, %V: !view, %O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %empty = tile.alloc : !tile.sem<2>
  tile.sem_init %full, 1 : !tile.sem<2>
  tile.sem_init %empty, 2 : !tile.sem<2>
  tile.fence sem_init
  tile.barrier block
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c1_i32 = arith.constant 1 : i32
    scf.for %j = %c0 to %n step %c1 {
      %stage = arith.remui %j, %c2 : index
      %round = arith.divui %j, %c2 : index
      %r = arith.index_cast %round : index to i32
      %prev = arith.xori %r, %c1_i32 : i32
      %e = tile.slot %empty[%stage] : !tile.sem<2>
      tile.sem_wait %e, %prev
      %f = tile.slot %full[%stage] : !tile.sem<2>
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      tile.sem_expect %f, %k_s, %v_s : !st, !st
      tile.load_async %K[%j, %c0] -> %k_s, %f : !view, !st
      tile.load_async %V[%j, %c0] -> %v_s, %f : !view, !st
    }
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %round = arith.divui %j, %c2 : index
      %phase = arith.index_cast %round : index to i32
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %phase
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %e = tile.slot %empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>

// A hand-scheduled loop (no tile.pipelined): left alone, no remark.
// CHECK-LABEL: tile.kernel @hand_scheduled
// CHECK-NOT:   tile.mma_async
tile.kernel @hand_scheduled(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !st
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = tile.fill 0.0 : !s
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!s) {
      %s = tile.mma ABt %q, %k : !st, !st -> !s
      %p16 = tile.cast %s : !s to !p
      %next = tile.mma AB %p16, %k, %acc : !p, !st -> !s
      scf.yield %next : !s
    }
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!b = !tile.rt<64x64xf32, block>

// Block-scope MMAs (not split over warpgroups yet): left alone.
// CHECK-LABEL: tile.kernel @block_scope
// CHECK-NOT:   tile.mma_async
tile.kernel @block_scope(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 1) {
  %q = tile.alloc : !st
  %k = tile.alloc : !st
  %v = tile.alloc : !st
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = tile.fill 0.0 : !b
  // expected-remark @+1 {{MMAs not overlapped: the MMAs are not warpgroup-scope (run tile-warp-specialize first)}}
  %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!b) {
    %s = tile.mma ABt %q, %k : !st, !st -> !b
    %next = tile.mma AB %q, %v, %acc : !st, !st -> !b
    scf.yield %next : !b
  } {tile.pipelined = 2 : i64}
  tile.store %o, %O[%c0, %c0] : !b, !tile.gl<?x?xf32>
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>

// The first MMA reads the carried accumulator: it cannot run an iteration
// ahead of the second.
// CHECK-LABEL: tile.kernel @first_reads_carried
// CHECK-NOT:   tile.mma_async
tile.kernel @first_reads_carried(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = tile.fill 0.0 : !s
    // expected-remark @+1 {{MMAs not overlapped: the first MMA depends on the loop-carried accumulator}}
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!s) {
      %stage = arith.remui %j, %c2 : index
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %a16 = tile.cast %acc : !s to !p
      %s = tile.mma AB %a16, %k_s : !p, !st -> !s
      %p16 = tile.cast %s : !s to !p
      %next = tile.mma AB %p16, %v_s, %acc : !p, !st -> !s
      scf.yield %next : !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>

// An op with a region after the second MMA: it could not move to the next
// iteration as a plain side effect.
// CHECK-LABEL: tile.kernel @region_after
// CHECK-NOT:   tile.mma_async
tile.kernel @region_after(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = tile.fill 0.0 : !s
    // expected-remark @+1 {{MMAs not overlapped: 'scf.if' after the second MMA is not a plain side effect}}
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!s) {
      %stage = arith.remui %j, %c2 : index
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %p16 = tile.cast %s : !s to !p
      %next = tile.mma AB %p16, %v_s, %acc : !p, !st -> !s
      %first = arith.cmpi eq, %j, %c0 : index
      scf.if %first {
      }
      scf.yield %next : !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// A side effect after the second MMA that reads this iteration's row
// maximum: moved to the next iteration, it would read the next one's.
// CHECK-LABEL: tile.kernel @late_reads_iteration
// CHECK-NOT:   tile.mma_async
tile.kernel @late_reads_iteration(%O: !tile.gl<?x?xf32>, %M: !tile.gl<?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
    // expected-remark @+1 {{MMAs not overlapped: 'tile.store' after the second MMA depends on this iteration's results}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %p16 = tile.cast %s : !s to !p
      %next = tile.mma AB %p16, %v_s, %acc : !p, !st -> !s
      tile.store %m_new, %M[%j] : !row, !tile.gl<?xf32>
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!view = !tile.gl<?x?xbf16>

// V has its own semaphores, but the consumer's wait for V picks its slot
// from a loop-carried index: run late, it would wait on the next
// iteration's slot.
// CHECK-LABEL: tile.kernel @wait_reads_carried
// CHECK-NOT:   tile.mma_async
tile.kernel @wait_reads_carried(%K: !view, %V: !view, %O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_full = tile.alloc : !tile.sem<2>
  tile.sem_init %full, 1 : !tile.sem<2>
  tile.sem_init %v_full, 1 : !tile.sem<2>
  tile.fence sem_init
  tile.barrier block
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %j = %c0 to %n step %c1 {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      %vf = tile.slot %v_full[%stage] : !tile.sem<2>
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      tile.sem_expect %f, %k_s : !st
      tile.load_async %K[%j, %c0] -> %k_s, %f : !view, !st
      tile.sem_expect %vf, %v_s : !st
      tile.load_async %V[%j, %c0] -> %v_s, %vf : !view, !st
    }
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    // expected-remark @+1 {{MMAs not overlapped: the wait for the second MMA's buffer depends on this iteration's results}}
    %o, %t = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero, %t_j = %c0) -> (!s, index) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %p16 = tile.cast %s : !s to !p
      %vf = tile.slot %v_full[%t_j] : !tile.sem<2>
      tile.sem_wait %vf, %c0_i32
      %t_next = arith.remui %j, %c2 : index
      %next = tile.mma AB %p16, %v_s, %acc : !p, !st -> !s
      scf.yield %next, %t_next : !s, index
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!view = !tile.gl<?x?xbf16>

// K and V share one semaphore, but the loop releases nothing after the
// second MMA: there is no release to split, so V cannot get its own pair.
// CHECK-LABEL: tile.kernel @shared_without_release
// CHECK-NOT:   tile.mma_async
tile.kernel @shared_without_release(%K: !view, %V: !view, %O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  tile.sem_init %full, 1 : !tile.sem<2>
  tile.fence sem_init
  tile.barrier block
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %j = %c0 to %n step %c1 {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      tile.sem_expect %f, %k_s, %v_s : !st, !st
      tile.load_async %K[%j, %c0] -> %k_s, %f : !view, !st
      tile.load_async %V[%j, %c0] -> %v_s, %f : !view, !st
    }
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    // expected-remark @+1 {{MMAs not overlapped: the second MMA's buffer is signalled by the same semaphore as the first's, and its ring is not set up the way tile-pipeline leaves it, so it cannot be given a semaphore pair of its own}}
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %p16 = tile.cast %s : !s to !p
      %next = tile.mma AB %p16, %v_s, %acc : !p, !st -> !s
      scf.yield %next : !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

// A loop counting in i32 is left alone: the rotation builds index arithmetic.
// CHECK-LABEL: tile.kernel @i32_induction_variable
// CHECK-NOT: tile.mma_async
!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>

tile.kernel @i32_induction_variable(%O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    %c0_i = arith.constant 0 : i32
    %c1_i = arith.constant 1 : i32
    %n_i = arith.index_cast %n : index to i32
    // expected-remark @+1 {{MMAs not overlapped: the loop's induction variable is not of type 'index'}}
    %o = scf.for %ji = %c0_i to %n_i step %c1_i iter_args(%acc = %zero) -> (!s) : i32 {
      %j = arith.index_cast %ji : i32 to index
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %p16 = tile.cast %s : !s to !p
      %v_s = tile.slot %v[%stage] : !ring
      %next = tile.mma AB %p16, %v_s, %acc : !p, !st -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %next : !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

// The second MMA's buffer index comes from an scf.if that signals: computing
// it again for the previous step would signal twice.
// CHECK-LABEL: tile.kernel @index_with_side_effects
// CHECK-COUNT-1: tile.signal_add
// CHECK-NOT: tile.signal_add
!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>

tile.kernel @index_with_side_effects(%O: !tile.gl<?x?xf32>, %n: index, %flag: i1, %cnt: !tile.gl<?xi32>) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %v_empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = tile.fill 0.0 : !s
    // expected-remark @+1 {{MMAs not overlapped: the second MMA's operands are computed by 'scf.if', which has side effects or regions}}
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!s) {
      %stage = arith.remui %j, %c2 : index
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %c0_i32
      %k_s = tile.slot %k[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %p16 = tile.cast %s : !s to !p
      %vidx = scf.if %flag -> (index) {
        %one_i32 = arith.constant 1 : i32
        tile.signal_add %cnt[%c0], %one_i32 : !tile.gl<?xi32>
        scf.yield %stage : index
      } else {
        scf.yield %stage : index
      }
      %v_s = tile.slot %v[%vidx] : !ring
      %next = tile.mma AB %p16, %v_s, %acc : !p, !st -> !s
      %e = tile.slot %v_empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %next : !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

// Two loops read one ring: once the first is rotated (its second buffer
// given a semaphore pair of its own), the second waits on neither of the new
// pair and is left alone.
// CHECK-LABEL: tile.kernel @two_loops_one_ring
!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>
!view = !tile.gl<?x?xbf16>

tile.kernel @two_loops_one_ring(%K: !view, %V: !view, %O: !tile.gl<?x?xf32>, %n: index, %n2: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %empty = tile.alloc : !tile.sem<2>
  tile.sem_init %full, 1 : !tile.sem<2>
  tile.sem_init %empty, 2 : !tile.sem<2>
  tile.fence sem_init
  tile.barrier block
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c1_i32 = arith.constant 1 : i32
    scf.for %j = %c0 to %n2 step %c1 {
      %stage = arith.remui %j, %c2 : index
      %round = arith.divui %j, %c2 : index
      %r = arith.index_cast %round : index to i32
      %prev = arith.xori %r, %c1_i32 : i32
      %e = tile.slot %empty[%stage] : !tile.sem<2>
      tile.sem_wait %e, %prev
      %f = tile.slot %full[%stage] : !tile.sem<2>
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      tile.sem_expect %f, %k_s, %v_s : !st, !st
      tile.load_async %K[%j, %c0] -> %k_s, %f : !view, !st
      tile.load_async %V[%j, %c0] -> %v_s, %f : !view, !st
    }
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %round = arith.divui %j, %c2 : index
      %phase = arith.index_cast %round : index to i32
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %phase
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %e = tile.slot %empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    // expected-remark @+1 {{MMAs not overlapped: the loop does not wait on the semaphore that signals the second MMA's buffer}}
    %m2, %o2 = scf.for %j = %n to %n2 step %c1 iter_args(%m_j = %m0, %acc = %o) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %round = arith.divui %j, %c2 : index
      %phase = arith.index_cast %round : index to i32
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %phase
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %shift = tile.sub %s, %m_b : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %e = tile.slot %empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o2, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}

// -----

// K is read again after the first MMA: its release cannot move up to that
// MMA, so the semaphores stay shared and the loop is left alone.
// CHECK-LABEL: tile.kernel @first_buffer_read_later
// CHECK-COUNT-2: tile.sem_init
// CHECK-NOT: tile.sem_init
// CHECK-NOT: tile.mma_async
!st = !tile.st<64x64xbf16>
!ring = !tile.st<2x64x64xbf16>
!s = !tile.rt<64x64xf32, warpgroup>
!p = !tile.rt<64x64xbf16, warpgroup>
!row = !tile.rv<64xf32, warpgroup>
!view = !tile.gl<?x?xbf16>

tile.kernel @first_buffer_read_later(%K: !view, %V: !view, %O: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 3) {
  %q = tile.alloc : !st
  %k = tile.alloc : !ring
  %v = tile.alloc : !ring
  %full = tile.alloc : !tile.sem<2>
  %empty = tile.alloc : !tile.sem<2>
  tile.sem_init %full, 1 : !tile.sem<2>
  tile.sem_init %empty, 2 : !tile.sem<2>
  tile.fence sem_init
  tile.barrier block
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c1_i32 = arith.constant 1 : i32
    scf.for %j = %c0 to %n step %c1 {
      %stage = arith.remui %j, %c2 : index
      %round = arith.divui %j, %c2 : index
      %r = arith.index_cast %round : index to i32
      %prev = arith.xori %r, %c1_i32 : i32
      %e = tile.slot %empty[%stage] : !tile.sem<2>
      tile.sem_wait %e, %prev
      %f = tile.slot %full[%stage] : !tile.sem<2>
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      tile.sem_expect %f, %k_s, %v_s : !st, !st
      tile.load_async %K[%j, %c0] -> %k_s, %f : !view, !st
      tile.load_async %V[%j, %c0] -> %v_s, %f : !view, !st
    }
  } consumer(warpgroups = 2, registers = 240) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = tile.fill 0.0 : !s
    %m0 = tile.fill 0xFFF0000000000000 : !row
    // expected-remark @+1 {{MMAs not overlapped: the second MMA's buffer is signalled by the same semaphore as the first's, and its ring is not set up the way tile-pipeline leaves it, so it cannot be given a semaphore pair of its own}}
    %m, %o = scf.for %j = %c0 to %n step %c1 iter_args(%m_j = %m0, %acc = %zero) -> (!row, !s) {
      %stage = arith.remui %j, %c2 : index
      %round = arith.divui %j, %c2 : index
      %phase = arith.index_cast %round : index to i32
      %f = tile.slot %full[%stage] : !tile.sem<2>
      tile.sem_wait %f, %phase
      %k_s = tile.slot %k[%stage] : !ring
      %v_s = tile.slot %v[%stage] : !ring
      %s = tile.mma ABt %q, %k_s : !st, !st -> !s
      %m_new = tile.row_max %s, %m_j : !s -> !row
      %m_b = tile.broadcast row %m_new : !row to !s
      %kr = tile.load %k_s : !st -> !p
      %kf = tile.cast %kr : !p to !s
      %shift0 = tile.sub %s, %m_b : !s
      %shift = tile.add %shift0, %kf : !s
      %p = tile.exp2 %shift : !s
      %diff = tile.sub %m_j, %m_new : !row
      %alpha = tile.exp2 %diff : !row
      %alpha_b = tile.broadcast row %alpha : !row to !s
      %scaled = tile.mul %acc, %alpha_b : !s
      %p16 = tile.cast %p : !s to !p
      %next = tile.mma AB %p16, %v_s, %scaled : !p, !st -> !s
      %e = tile.slot %empty[%stage] : !tile.sem<2>
      tile.sem_arrive %e
      scf.yield %m_new, %next : !row, !s
    } {tile.pipelined = 2 : i64}
    tile.store %o, %O[%c0, %c0] : !s, !tile.gl<?x?xf32>
  }
}
