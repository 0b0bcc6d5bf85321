// C = A · B with TMA multicast: kernels/gemm/gemm.mlir run by pairs of blocks.
//
// Each 2-block cluster takes a 256x256 output tile: block r of the pair
// computes rows [128 r, 128 r + 128) with the same 64x256 tiles of B, so B
// is read from global memory once per pair: each block's producer copies
// 32 of the 64 rows of a B stage into both blocks (`multicast`), and the
// consumers hand a stage back to both producers (`sem_arrive ... cluster`,
// so `empty` counts 2 consumers x 2 blocks). The pair synchronises after
// initialising its semaphores, which the other block signals, and before
// exiting, so no signal targets a block that has gone.
!a_ring = !tile.st<3x128x64xbf16, #tile.swizzle<128>>
!b_ring = !tile.st<3x64x256xbf16, #tile.swizzle<128>>
!a_tile = !tile.st<128x64xbf16, #tile.swizzle<128>>
!a_half = !tile.st<64x64xbf16, #tile.swizzle<128>>
!b_tile = !tile.st<64x256xbf16, #tile.swizzle<128>>
!acc = !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
!out = !tile.rt<64x256xbf16, warpgroup, #tile.mma_acc>
!c_tile = !tile.st<128x256xbf16, #tile.swizzle<128>>
!c_half = !tile.st<64x256xbf16, #tile.swizzle<128>>
!view = !tile.gl<?x?xbf16>

tile.kernel @gemm_multicast(%A: !view, %B: !view, %C: !view)
    launch(warpgroups = 3, grid = persistent, cluster = [2, 1, 1]) {
  %a = tile.alloc : !a_ring
  %b = tile.alloc : !b_ring
  %c = tile.alloc : !c_tile
  %full = tile.alloc : !tile.sem<3>
  %empty = tile.alloc : !tile.sem<3>
  tile.sem_init %full, 1 : !tile.sem<3>
  tile.sem_init %empty, 4 : !tile.sem<3>
  tile.fence sem_init
  tile.cluster_sync

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
  %N = tile.dim %B[1] : !view
  %pairs_m = arith.ceildivui %M, %c256 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index

  %rank = tile.cluster_rank

  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    tile.foreach_tile (%pm, %n) in (%pairs_m, %tiles_n) group 8 iteration(%t) {
      %m2r = arith.muli %pm, %c2 : index
      %m = arith.addi %m2r, %rank : index
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
        tile.load_async %B[%k, %n] -> %b_s, %full_s multicast : !view, !b_tile
      }
    }
  } consumer(warpgroups = 2, registers = 232) {
    %wg = tile.warpgroup_id
    tile.foreach_tile (%pm, %n) in (%pairs_m, %tiles_n) group 8 iteration(%t) {
      %m2r = arith.muli %pm, %c2 : index
      %m = arith.addi %m2r, %rank : index
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
        %next = tile.mma AB %a_wg, %b_s, %acc_k : !a_half, !b_tile -> !acc
        %empty_s = tile.slot %empty[%s] : !tile.sem<3>
        tile.sem_arrive %empty_s cluster
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
  tile.cluster_sync
}
