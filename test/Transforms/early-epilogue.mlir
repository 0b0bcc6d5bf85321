// tile-early-epilogue: the ops after a guard whose then-branch ends by
// waiting for an asynchronous MMA (only slots and releases after the wait)
// move into both branches -- before the wait, before the else yield -- when
// they do not read the MMA's result and compute in registers, store to
// global memory or wait for copies out. The first op that stays and touches
// memory ends the scan.
// RUN: tk-opt %s -split-input-file -tile-early-epilogue | FileCheck %s
// The attention program after the scheduling passes: the log-sum-exp, its
// store, 1 / l and the output buffer's wait run before the last P V's wait;
// O · (1 / l) and the stores of O after it.
// RUN: tk-opt %kernels/attention/attention_naive.mlir -tile-set-target=chip=sm_90a -tile-pipeline -tile-warp-specialize -tile-overlap-mma -tile-pingpong -tile-early-epilogue 2>/dev/null | FileCheck %s --check-prefix=ATTN
// -tile-to-nvidia runs it unless told not to: in the PTX the reciprocals
// come before the last wgmma wait, or after it with early-epilogue=false.
// RUN: rm -rf %t && tk-opt %kernels/attention/attention_naive.mlir -tile-to-nvidia="out=%t/on cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/on/attention_naive.ptx
// RUN: tk-opt %kernels/attention/attention_naive.mlir -tile-to-nvidia="out=%t/off cubin=false producer-registers=24 early-epilogue=false" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=OFF < %t/off/attention_naive.ptx

// ATTN: tile.mul %{{.*}}, %arg5
// ATTN-NEXT: tile.log
// ATTN-NEXT: tile.add
// ATTN: tile.store %{{.*}}, %arg4
// ATTN-NOT: tile.mma
// ATTN: tile.div
// ATTN: tile.store_async_wait
// ATTN-NEXT: tile.mma_wait 0
// ATTN-NEXT: tile.slot
// ATTN-NEXT: tile.sem_arrive
// ATTN-NEXT: scf.yield
// ATTN: } else {
// ATTN: tile.log
// ATTN: tile.div
// ATTN: tile.store_async_wait
// ATTN-NEXT: scf.yield
// ATTN: }
// ATTN-NOT: tile.div
// ATTN-NOT: tile.log
// ATTN: tile.mul %{{.*}}#2,
// ATTN: tile.store %{{.*}}, %{{.*}} : !tile.rt<64x128xbf16
// ATTN-NEXT: tile.store_async

// PTX: lg2.approx.f32
// PTX: rcp.rn.f32
// PTX-NEXT: rcp.rn.f32
// PTX-NEXT: bar.sync
// PTX-NEXT: wgmma.wait_group.sync.aligned 0
// OFF: lg2.approx.f32
// OFF: rcp.rn.f32
// OFF-NEXT: rcp.rn.f32
// OFF-NOT: wgmma.wait_group

!p = !tile.rt<64x64xbf16, warpgroup>
!v = !tile.st<64x128xbf16>
!o = !tile.rt<64x128xf32, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// The reciprocal, the log-sum-exp and its global store and the copy-out
// wait move; the normalisation reads the MMA's result and stays, and so do
// the ops after it. The reciprocal becomes a new result of the guard.
// CHECK-LABEL: tile.kernel @epilogue
// CHECK: %[[R:.*]]:3 = scf.if %{{.*}} -> (!tile.rv<64xf32, warpgroup>, !tile.rt<64x128xf32, warpgroup>, !tile.rv<64xf32, warpgroup>) {
// CHECK:   %[[O:.*]] = tile.mma_async AB
// CHECK-NEXT: tile.mma_turn pass
// CHECK-NEXT: %[[LSE:.*]] = tile.log %[[L:.*]] : !tile.rv<64xf32, warpgroup>
// CHECK-NEXT: tile.store %[[LSE]], %arg0[%{{.*}}]
// CHECK-NEXT: %[[ONE:.*]] = tile.fill 1.0
// CHECK-NEXT: %[[INV:.*]] = tile.div %[[ONE]], %[[L]]
// CHECK-NEXT: tile.store_async_wait
// CHECK-NEXT: tile.mma_wait 0
// CHECK-NEXT: %[[S:.*]] = tile.slot
// CHECK-NEXT: tile.sem_arrive %[[S]]
// CHECK-NEXT: scf.yield %[[L]], %[[O]], %[[INV]]
// CHECK: } else {
// CHECK-NEXT: %[[LSE0:.*]] = tile.log %[[L0:.*]] : !tile.rv<64xf32, warpgroup>
// CHECK-NEXT: tile.store %[[LSE0]], %arg0[%{{.*}}]
// CHECK-NEXT: %[[ONE0:.*]] = tile.fill 1.0
// CHECK-NEXT: %[[INV0:.*]] = tile.div %[[ONE0]], %[[L0]]
// CHECK-NEXT: tile.store_async_wait
// CHECK-NEXT: scf.yield %[[L0]], %{{.*}}, %[[INV0]]
// CHECK: }
// CHECK-NEXT: %[[B:.*]] = tile.broadcast row %[[R]]#2
// CHECK-NEXT: %[[N:.*]] = tile.mul %[[R]]#1, %[[B]]
// CHECK-NEXT: tile.store %[[N]], %arg1
// CHECK-NEXT: tile.log %[[R]]#0
tile.kernel @epilogue(%L: !tile.gl<?xf32>, %O: !tile.gl<?x128xf32>,
                      %any: i1) launch(warpgroups = 3) {
  %v = tile.alloc : !v
  %empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    %c0 = arith.constant 0 : index
    %p = tile.fill 1.0 : !p
    %acc = tile.fill 0.0 : !o
    %l0 = tile.fill 1.0 : !row
    %r:2 = scf.if %any -> (!row, !o) {
      %l = tile.fill 2.0 : !row
      tile.mma_turn take
      %o = tile.mma_async AB %p, %v, %acc : !p, !v -> !o
      tile.mma_turn pass
      tile.mma_wait 0
      %s = tile.slot %empty[%c0] : !tile.sem<2>
      tile.sem_arrive %s
      scf.yield %l, %o : !row, !o
    } else {
      scf.yield %l0, %acc : !row, !o
    }
    %lse = tile.log %r#0 : !row
    tile.store %lse, %L[%c0] : !row, !tile.gl<?xf32>
    %ones = tile.fill 1.0 : !row
    %inv = tile.div %ones, %r#0 : !row
    %inv_b = tile.broadcast row %inv : !row to !o
    %on = tile.mul %r#1, %inv_b : !o
    tile.store_async_wait
    tile.store %on, %O[%c0, %c0] : !o, !tile.gl<?x128xf32>
    %late = tile.log %r#0 : !row
    tile.store %late, %L[%c0] : !row, !tile.gl<?xf32>
  }
}

// -----

!p = !tile.rt<64x64xbf16, warpgroup>
!v = !tile.st<64x128xbf16>
!o = !tile.rt<64x128xf32, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// Left alone: a store to shared memory first (memory order ends the scan
// before anything moves); a wait followed by other work; a guard with no
// asynchronous MMA; moves that would be index arithmetic only.
// CHECK-LABEL: tile.kernel @left_alone
// CHECK: scf.if
// CHECK: tile.mma_wait 0
// CHECK-NEXT: scf.yield
// CHECK: tile.store %{{.*}}, %[[BUF:.*]] : !tile.rt<64x128xf32, warpgroup>, !tile.st<64x128xf32>
// CHECK-NEXT: tile.log
// CHECK: scf.if
// CHECK: tile.mma_wait 0
// CHECK-NEXT: tile.fill
// CHECK-NEXT: scf.yield
// CHECK: tile.log
// CHECK: scf.if
// CHECK: tile.mma_wait 0
// CHECK-NEXT: scf.yield
// CHECK: tile.log
// CHECK: scf.if
// CHECK: tile.mma_wait 0
// CHECK-NEXT: scf.yield
// CHECK: arith.addi
tile.kernel @left_alone(%L: !tile.gl<?xf32>, %any: i1, %n: index)
    launch(warpgroups = 3) {
  %v = tile.alloc : !v
  %buf = tile.alloc : !tile.st<64x128xf32>
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    %c0 = arith.constant 0 : index
    %p = tile.fill 1.0 : !p
    %acc = tile.fill 0.0 : !o
    %l0 = tile.fill 1.0 : !row
    %a:2 = scf.if %any -> (!row, !o) {
      %o = tile.mma_async AB %p, %v, %acc : !p, !v -> !o
      tile.mma_wait 0
      scf.yield %l0, %o : !row, !o
    } else {
      scf.yield %l0, %acc : !row, !o
    }
    tile.store %acc, %buf : !o, !tile.st<64x128xf32>
    %x = tile.log %a#0 : !row
    tile.store %x, %L[%c0] : !row, !tile.gl<?xf32>
    %b:2 = scf.if %any -> (!row, !o) {
      %o = tile.mma_async AB %p, %v, %acc : !p, !v -> !o
      tile.mma_wait 0
      %f = tile.fill 3.0 : !row
      scf.yield %f, %o : !row, !o
    } else {
      scf.yield %l0, %acc : !row, !o
    }
    %y = tile.log %b#0 : !row
    tile.store %y, %L[%c0] : !row, !tile.gl<?xf32>
    %c:2 = scf.if %any -> (!row, !o) {
      %o = tile.mma AB %p, %v, %acc : !p, !v -> !o
      tile.mma_wait 0
      scf.yield %l0, %o : !row, !o
    } else {
      scf.yield %l0, %acc : !row, !o
    }
    %z = tile.log %c#0 : !row
    tile.store %z, %L[%c0] : !row, !tile.gl<?xf32>
    %d:2 = scf.if %any -> (!row, !o) {
      %o = tile.mma_async AB %p, %v, %acc : !p, !v -> !o
      tile.mma_wait 0
      scf.yield %l0, %o : !row, !o
    } else {
      scf.yield %l0, %acc : !row, !o
    }
    %i = arith.addi %n, %n : index
    tile.store %d#1, %buf : !o, !tile.st<64x128xf32>
  }
}

// -----

!p = !tile.rt<64x64xbf16, warpgroup>
!v = !tile.st<64x128xbf16>
!o = !tile.rt<64x128xf32, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

// A running sum of the tile loop (tile.prefix_sum) stays directly in its
// body, and so does what reads it; the log moves.
// CHECK-LABEL: tile.kernel @prefix_sum_stays
// CHECK: scf.if
// CHECK: tile.log
// CHECK: tile.mma_wait 0
// CHECK: } else {
// CHECK: tile.log
// CHECK: }
// CHECK-NEXT: %[[BASE:.*]] = tile.prefix_sum
// CHECK-NEXT: tile.store %{{.*}}, %{{.*}}[%[[BASE]]]
tile.kernel @prefix_sum_stays(%L: !tile.gl<?xf32>, %any: i1, %n: index) launch(warpgroups = 3, grid = persistent) {
  %v = tile.alloc : !v
  %empty = tile.alloc : !tile.sem<2>
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.foreach_tile (%t) in (%n) {
      %p = tile.fill 1.0 : !p
      %acc = tile.fill 0.0 : !o
      %l0 = tile.fill 1.0 : !row
      %r:2 = scf.if %any -> (!row, !o) {
        %l = tile.fill 2.0 : !row
        %o = tile.mma_async AB %p, %v, %acc : !p, !v -> !o
        tile.mma_wait 0
        %s = tile.slot %empty[%c0] : !tile.sem<2>
        tile.sem_arrive %s
        scf.yield %l, %o : !row, !o
      } else {
        scf.yield %l0, %acc : !row, !o
      }
      %lse = tile.log %r#0 : !row
      %base = tile.prefix_sum %c1
      tile.store %lse, %L[%base] : !row, !tile.gl<?xf32>
    }
  }
}
