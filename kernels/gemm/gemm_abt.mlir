// C = A · Bᵀ: bf16 A (M x K) and B (N x K), f32 accumulation, bf16 C (M x N).
//
// TK's load/compute/store template, written out: one producer warpgroup
// streams 128x64 tiles of A and 256x64 tiles of B through a 3-stage ring of
// shared buffers (TMA, completing on `full`); two consumer warpgroups each
// multiply their 64 rows of the 128x256 output tile, hand each stage back on
// `empty`, and write C through shared memory with an async TMA store that
// overlaps the next tile. The grid is persistent and walks output tiles in
// groups of 16 rows for L2 reuse (16 rather than 8: 1.000-1.030x the
// TFLOP/s at nine shapes, 1.011-1.030x at K = 2048; one H200,
// docs/performance.md). Tails: loads past the edges read zeros,
// stores clip.
!a_ring = !tile.st<3x128x64xbf16, #tile.swizzle<128>>
!b_ring = !tile.st<3x256x64xbf16, #tile.swizzle<128>>
!a_tile = !tile.st<128x64xbf16, #tile.swizzle<128>>
!a_half = !tile.st<64x64xbf16, #tile.swizzle<128>>
!b_tile = !tile.st<256x64xbf16, #tile.swizzle<128>>
!acc = !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
!out = !tile.rt<64x256xbf16, warpgroup, #tile.mma_acc>
!c_tile = !tile.st<128x256xbf16, #tile.swizzle<128>>
!c_half = !tile.st<64x256xbf16, #tile.swizzle<128>>
!view = !tile.gl<?x?xbf16>

// The warpgroup index comes from each thread's own index
// (tile.uniform_warpgroup_id = false): with lane 0's, which ptxas schedules
// differently, the 8192 x 8192 x 28672 product measured 0.963-0.966x (H100,
// docs/performance.md).
tile.kernel @gemm_abt(%A: !view, %B: !view, %C: !view)
    launch(warpgroups = 3, grid = persistent)
    attributes {tile.uniform_warpgroup_id = false} {
  %a = tile.alloc : !a_ring
  %b = tile.alloc : !b_ring
  %c = tile.alloc : !c_tile
  %full = tile.alloc : !tile.sem<3>
  %empty = tile.alloc : !tile.sem<3>
  tile.sem_init %full, 1 : !tile.sem<3>
  tile.sem_init %empty, 2 : !tile.sem<3>
  tile.fence sem_init
  tile.barrier block

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c1_i32 = arith.constant 1 : i32
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[0] : !view
  %tiles_m = arith.ceildivui %M, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index

  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 16 iteration(%t) {
      %base = arith.muli %t, %tiles_k : index
      scf.for %k = %c0 to %tiles_k step %c1 {
        // Ring position of this k-step: stage and the parity of its round.
        %it = arith.addi %base, %k : index
        %s = arith.remui %it, %c3 : index
        %round = arith.divui %it, %c3 : index
        %free = arith.index_cast %round : index to i32
        // Wait for the consumers to release the stage (parity of last round).
        %empty_s = tile.slot %empty[%s] : !tile.sem<3>
        %prev = arith.xori %free, %c1_i32 : i32
        tile.sem_wait %empty_s, %prev
        %full_s = tile.slot %full[%s] : !tile.sem<3>
        %a_s = tile.slot %a[%s] : !a_ring
        %b_s = tile.slot %b[%s] : !b_ring
        tile.sem_expect %full_s, %a_s, %b_s : !a_tile, !b_tile
        tile.load_async %A[%m, %k] -> %a_s, %full_s : !view, !a_tile
        tile.load_async %B[%n, %k] -> %b_s, %full_s : !view, !b_tile
      }
    }
  } consumer(warpgroups = 2, registers = 232) {
    %wg = tile.warpgroup_id
    tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 16 iteration(%t) {
      %base = arith.muli %t, %tiles_k : index
      %zero = tile.fill 0.0 : !acc
      %acc = scf.for %k = %c0 to %tiles_k step %c1 iter_args(%acc_k = %zero) -> (!acc) {
        %it = arith.addi %base, %k : index
        %s = arith.remui %it, %c3 : index
        %round = arith.divui %it, %c3 : index
        %phase = arith.index_cast %round : index to i32
        %full_s = tile.slot %full[%s] : !tile.sem<3>
        tile.sem_wait %full_s, %phase
        %a_s = tile.slot %a[%s] : !a_ring
        %a_wg = tile.subtile %a_s[%wg, %c0] : !a_tile to !a_half
        %b_s = tile.slot %b[%s] : !b_ring
        %next = tile.mma ABt %a_wg, %b_s, %acc_k : !a_half, !b_tile -> !acc
        %empty_s = tile.slot %empty[%s] : !tile.sem<3>
        tile.sem_arrive %empty_s
        scf.yield %next : !acc
      }
      %out = tile.cast %acc : !acc to !out
      // Reuse this warpgroup's half of the C buffer once its last copy out
      // has read it; rows in units of the warpgroup's 64-row tile.
      %c_wg = tile.subtile %c[%wg, %c0] : !c_tile to !c_half
      tile.store_async_wait
      tile.store %out, %c_wg : !out, !c_half
      %m2 = arith.muli %m, %c2 : index
      %row = arith.addi %m2, %wg : index
      tile.store_async %c_wg -> %C[%row, %n] : !c_half, !view
    }
    tile.store_async_wait
  }
}
