// tile-pingpong: with tile.pingpong on the kernel, the consumer warpgroups
// take turns issuing their MMAs. Each issue phase (MMAs of one block with
// no wait, barrier or region between them) is bracketed by
// tile.mma_turn take / pass; a synchronous tile.mma ending a phase becomes
// tile.mma_async, the pass, then tile.mma_wait 0.
// RUN: tk-opt %s -split-input-file -tile-pingpong 2>/dev/null | FileCheck %s
// RUN: tk-opt %s -split-input-file -tile-pingpong -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The attention program after the scheduling passes: the prologue's Q Kᵀ,
// the loop's Q Kᵀ and P V (issued together, the V wait between them), the
// epilogue's P V.
// RUN: tk-opt %kernels/attention/attention_naive.mlir -tile-pipeline -tile-warp-specialize -tile-overlap-mma -tile-pingpong 2>/dev/null | FileCheck %s --check-prefix=ATTN
// Without the attribute the program is left alone.
// RUN: sed 's/, tile.pingpong//' %kernels/attention/attention_naive.mlir | tk-opt -tile-pipeline -tile-warp-specialize -tile-overlap-mma -tile-pingpong 2>/dev/null | FileCheck %s --check-prefix=NOATTR

// ATTN: } consumer(warpgroups = 2, registers = 232, stagger = 2400) {
// ATTN-NOT: tile.mma_turn
// ATTN: tile.mma_turn take
// ATTN-NEXT: tile.mma_async ABt
// ATTN-NEXT: tile.mma_turn pass
// ATTN-NEXT: tile.mma_wait 0
// ATTN: scf.for
// ATTN: tile.mma_turn take
// ATTN-NEXT: tile.mma_async ABt
// ATTN-NOT: tile.mma_turn
// ATTN: tile.sem_wait
// ATTN-NEXT: tile.mma_async AB
// ATTN-NEXT: tile.mma_turn pass
// ATTN-NEXT: tile.mma_wait 1
// ATTN-NOT: tile.mma_turn
// ATTN: tile.mma_wait 0
// ATTN: scf.yield
// ATTN-NOT: tile.mma_turn
// ATTN: tile.mma_turn take
// ATTN-NEXT: tile.mma_async AB
// ATTN-NEXT: tile.mma_turn pass
// ATTN-NEXT: tile.mma_wait 0
// ATTN-NOT: tile.mma_turn
// NOATTR-NOT: tile.mma_turn

!a = !tile.st<64x64xbf16>
!b = !tile.st<64x256xbf16>
!acc = !tile.rt<64x256xf32, warpgroup>

// A k-loop of synchronous MMAs: each is its own phase, turned asynchronous
// so the pass comes before the wait; the MMA's attributes stay.
// CHECK-LABEL: tile.kernel @gemm_loop
// CHECK: } consumer(warpgroups = 2) {
// CHECK: scf.for
// CHECK-NEXT: tile.mma_turn take
// CHECK-NEXT: %[[R:.*]] = tile.mma_async AB %{{.*}}, %{{.*}}, %{{.*}} {tile.split = "columns"} : !tile.st<64x64xbf16>, !tile.st<64x256xbf16> -> !tile.rt<64x256xf32, warpgroup>
// CHECK-NEXT: tile.mma_turn pass
// CHECK-NEXT: tile.mma_wait 0
// CHECK-NEXT: scf.yield %[[R]]
tile.kernel @gemm_loop(%n: index) launch(warpgroups = 3)
    attributes {tile.pingpong} {
  %a = tile.alloc : !a
  %b = tile.alloc : !b
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = tile.fill 0.0 : !acc
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%x = %zero) -> (!acc) {
      %y = tile.mma AB %a, %b, %x {tile.split = "columns"} : !a, !b -> !acc
      scf.yield %y : !acc
    }
  }
}

// -----

!a = !tile.st<64x64xbf16>
!b = !tile.st<64x256xbf16>
!acc = !tile.rt<64x256xf32, warpgroup>

// Two MMAs issued back to back share a turn; a barrier between MMAs ends
// the phase; MMAs under a condition every warpgroup computes alike (a
// kernel argument) take turns inside it.
// CHECK-LABEL: tile.kernel @phases
// CHECK: tile.mma_turn take
// CHECK-NEXT: tile.mma_async AB
// CHECK-NEXT: tile.mma_async AB
// CHECK-NEXT: tile.mma_turn pass
// CHECK-NEXT: tile.mma_wait 1
// CHECK-NEXT: tile.mma_turn take
// CHECK-NEXT: tile.mma_async AB
// CHECK-NEXT: tile.mma_turn pass
// CHECK-NEXT: tile.mma_wait 0
// CHECK-NEXT: tile.barrier block
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.mma_turn take
// CHECK-NEXT: tile.mma_async AB
// CHECK-NEXT: tile.mma_turn pass
// CHECK-NEXT: tile.mma_wait 0
tile.kernel @phases(%flag: i1) launch(warpgroups = 3)
    attributes {tile.pingpong} {
  %a = tile.alloc : !a
  %b = tile.alloc : !b
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    %x = tile.mma_async AB %a, %b : !a, !b -> !acc
    %y = tile.mma_async AB %a, %b : !a, !b -> !acc
    tile.mma_wait 1
    %z = tile.mma AB %a, %b, %x : !a, !b -> !acc
    tile.barrier block
    scf.if %flag {
      %w = tile.mma AB %a, %b, %y : !a, !b -> !acc
    }
  }
}

// -----

!a = !tile.st<64x64xbf16>
!b = !tile.st<64x256xbf16>
!acc = !tile.rt<64x256xf32, warpgroup>

// Left alone: an MMA under a condition on the warpgroup's index.
// REMARK: remark: MMAs not ping-ponged: an MMA is under control flow that may differ between the consumer warpgroups
// CHECK-LABEL: tile.kernel @per_warpgroup_condition
// CHECK-NOT: tile.mma_turn
tile.kernel @per_warpgroup_condition() launch(warpgroups = 3)
    attributes {tile.pingpong} {
  %a = tile.alloc : !a
  %b = tile.alloc : !b
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    %c0 = arith.constant 0 : index
    %wg = tile.warpgroup_id
    %first = arith.cmpi eq, %wg, %c0 : index
    scf.if %first {
      %x = tile.mma AB %a, %b : !a, !b -> !acc
    }
  }
}

// -----

!a = !tile.st<64x64xbf16>
!b = !tile.st<64x256xbf16>
!acc = !tile.rt<64x256xf32, warpgroup>

// Left alone: a loop whose trip count is carried from the warpgroup's index
// through another loop's iter_args.
// REMARK: remark: MMAs not ping-ponged: an MMA is under control flow that may differ between the consumer warpgroups
// CHECK-LABEL: tile.kernel @carried_bound
// CHECK-NOT: tile.mma_turn
tile.kernel @carried_bound(%n: index) launch(warpgroups = 3)
    attributes {tile.pingpong} {
  %a = tile.alloc : !a
  %b = tile.alloc : !b
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %wg = tile.warpgroup_id
    %bound = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> (index) {
      %t = arith.addi %s, %wg : index
      scf.yield %t : index
    }
    scf.for %j = %c0 to %bound step %c1 {
      %x = tile.mma AB %a, %b : !a, !b -> !acc
    }
  }
}

// -----

!a = !tile.st<64x64xbf16>
!b = !tile.st<64x256xbf16>
!acc = !tile.rt<64x256xf32, warpgroup>

// Left alone: one consumer warpgroup has no one to take turns with.
// REMARK: remark: MMAs not ping-ponged: turns are taken among 2 to 4 consumer warpgroups, the role has 1
// CHECK-LABEL: tile.kernel @one_consumer
// CHECK-NOT: tile.mma_turn
tile.kernel @one_consumer() launch(warpgroups = 2)
    attributes {tile.pingpong} {
  %a = tile.alloc : !a
  %b = tile.alloc : !b
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 1) {
    %x = tile.mma AB %a, %b : !a, !b -> !acc
  }
}

// -----

// Left alone: no MMA in the consumer role.
// REMARK: remark: MMAs not ping-ponged: the consumer role issues no warpgroup MMA
// CHECK-LABEL: tile.kernel @no_mma
tile.kernel @no_mma() launch(warpgroups = 3) attributes {tile.pingpong} {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    tile.barrier block
  }
}

// -----

!a = !tile.st<64x64xbf16>
!b = !tile.st<64x256xbf16>
!acc = !tile.rt<64x256xf32, warpgroup>

// Left alone: a kernel tile-warp-specialize did not split has no roles.
// REMARK: remark: MMAs not ping-ponged: the kernel has no consumer role (tile-warp-specialize did not split it)
// CHECK-LABEL: tile.kernel @no_roles
// CHECK-NOT: tile.mma_turn
tile.kernel @no_roles() launch(warpgroups = 1) attributes {tile.pingpong} {
  %a = tile.alloc : !a
  %b = tile.alloc : !b
  %x = tile.mma AB %a, %b : !a, !b -> !acc
}

// -----

!a = !tile.st<64x64xbf16>
!b = !tile.st<64x256xbf16>
!acc = !tile.rt<64x256xf32, warpgroup>

// Turns the program already takes stay as they are.
// CHECK-LABEL: tile.kernel @hand_scheduled
// CHECK: tile.mma_turn take
// CHECK-NEXT: tile.mma AB
// CHECK-NEXT: tile.mma_turn pass
// CHECK-NEXT: tile.mma AB
// CHECK-NOT: tile.mma_turn
tile.kernel @hand_scheduled() launch(warpgroups = 3)
    attributes {tile.pingpong} {
  %a = tile.alloc : !a
  %b = tile.alloc : !b
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    tile.mma_turn take
    %x = tile.mma AB %a, %b : !a, !b -> !acc
    tile.mma_turn pass
    %y = tile.mma AB %a, %b : !a, !b -> !acc
  }
}

// -----

!a = !tile.st<64x64xbf16>
!b = !tile.st<64x256xbf16>
!acc = !tile.rt<64x256xf32, warpgroup>

// Left alone: AMD targets have no MMA turns.
// REMARK: remark: MMAs not ping-ponged: MMA turns are lowered for NVIDIA targets only
module attributes {tile.target = "gfx942"} {
  tile.kernel @amd() launch(warpgroups = 1) attributes {tile.pingpong} {
  }
}
