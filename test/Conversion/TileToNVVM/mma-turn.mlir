// tile.mma_turn: consumer i (of N) takes its turn on named barrier 10 + i
// (bar.sync, 256 threads: its own 128 and the giver's) and passes it on
// barrier 10 + (i + 1) mod N (bar.arrive). The last consumer passes the
// first consumer its first turn after the stagger, and the first takes the
// last pass after the role, so no arrival is left on a barrier.
// RUN: tk-opt %s -split-input-file -convert-tile-to-nvvm -canonicalize -cse | FileCheck %s

// With one producer warpgroup, consumer i is warpgroup w = i + 1 (lane 0's
// copy of thread / 128).
// CHECK-LABEL: llvm.func @two
// CHECK: TK_STAGGER
// CHECK: %[[W:.*]] = nvvm.shfl.sync idx
// CHECK: %[[I:.*]] = arith.subi %[[W]], %c1_i32 : i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[I]], %c1_i32 : i32
// CHECK: scf.if %[[LAST]] {
// CHECK: %[[WRAP0:.*]] = arith.cmpi eq, %[[W]], %c2_i32 : i32
// CHECK: %[[N0:.*]] = arith.select %[[WRAP0]], %c0_i32, %[[W]] : i32
// CHECK: %[[ID0:.*]] = arith.addi %[[N0]], %c10_i32 : i32
// CHECK: nvvm.barrier.arrive id = %[[ID0]] number_of_threads = %c256_i32
// CHECK: }
// take: barrier w + 9 = 10 + i
// CHECK: %[[W1:.*]] = nvvm.shfl.sync idx
// CHECK: %[[TAKE:.*]] = arith.addi %[[W1]], %c9_i32 : i32
// CHECK: nvvm.barrier id = %[[TAKE]] number_of_threads = %c256_i32
// pass: barrier 10 + (i + 1 == 2 ? 0 : i + 1)
// CHECK: %[[W2:.*]] = nvvm.shfl.sync idx
// CHECK: %[[WRAP:.*]] = arith.cmpi eq, %[[W2]], %c2_i32 : i32
// CHECK: %[[N:.*]] = arith.select %[[WRAP]], %c0_i32, %[[W2]] : i32
// CHECK: %[[GIVE:.*]] = arith.addi %[[N]], %c10_i32 : i32
// CHECK: nvvm.barrier.arrive id = %[[GIVE]] number_of_threads = %c256_i32
// After the role: consumer 0 takes the last pass, on barrier 10.
// CHECK: %[[W3:.*]] = nvvm.shfl.sync idx
// CHECK: %[[I3:.*]] = arith.subi %[[W3]], %c1_i32 : i32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[I3]], %c0_i32 : i32
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[ID:.*]] = arith.addi %[[W3]], %c9_i32 : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %c256_i32
tile.kernel @two() launch(warpgroups = 3) {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2, stagger = 100) {
    tile.mma_turn take
    tile.mma_turn pass
  }
}

// -----

// Three consumers after one producer: consumer 2 passes to consumer 0.
// CHECK-LABEL: llvm.func @three
// CHECK: %[[W:.*]] = nvvm.shfl.sync idx
// CHECK: %[[I:.*]] = arith.subi %[[W]], %c1_i32 : i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[I]], %c2_i32 : i32
// CHECK: scf.if %[[LAST]] {
// CHECK: %[[WRAP:.*]] = arith.cmpi eq, %[[W]], %c3_i32 : i32
// CHECK: arith.select %[[WRAP]], %c0_i32, %[[W]] : i32
// CHECK: nvvm.barrier.arrive
tile.kernel @three() launch(warpgroups = 4) {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 3) {
    tile.mma_turn take
    tile.mma_turn pass
  }
}

// -----

// A role without turns gets no turn barriers.
// CHECK-LABEL: llvm.func @none
// CHECK-NOT: nvvm.barrier
tile.kernel @none() launch(warpgroups = 3) {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
  }
}
