// C = A · B with stream-K: bf16 A (M x K) and B (K x N), f32 accumulation,
// bf16 C (M x N). The same load/compute/store template as gemm.mlir (one
// producer and two consumer warpgroups, 128x256x64 tiles, 3-stage TMA
// ring, persistent grid in groups of 8 rows), but the tile loop is
// `stream_k`: when the 128x256 tiles do not divide evenly over the blocks
// (4096^3: 512 tiles on 132 multiprocessors), the last one to two waves of
// tiles are dealt out by k-steps so every block finishes at once.
//
// A tile split over several blocks is combined through global memory: the
// units without the tile's first k-step add their partial sums into the
// f32 workspace W (rows 128 slot .. 128 slot + 127) and count their
// k-steps on the i32 counter F[slot]; the unit with the first k-step (the
// last one its block runs) waits for the count, adds the workspace to its
// own sums, zeroes the workspace rows and the counter for the next launch,
// and stores C. W needs 256 rows per block of the grid (256 columns), F
// two counters per block; both must be zero before the first launch.
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
!work = !tile.gl<?x?xf32>
!counters = !tile.gl<?xi32>

tile.kernel @gemm_streamk(%A: !view, %B: !view, %C: !view, %W: !work,
                          %F: !counters)
    launch(warpgroups = 3, grid = persistent) {
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
  %N = tile.dim %B[1] : !view
  %tiles_m = arith.ceildivui %M, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index

  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 8
        stream_k(%kb, %ke, %slot) of %tiles_k {
      // Ring position: k-steps this block loaded before this unit.
      %steps = arith.subi %ke, %kb : index
      %base = tile.prefix_sum %steps
      scf.for %k = %kb to %ke step %c1 {
        %local = arith.subi %k, %kb : index
        %it = arith.addi %base, %local : index
        %s = arith.remui %it, %c3 : index
        %round = arith.divui %it, %c3 : index
        %free = arith.index_cast %round : index to i32
        %empty_s = tile.slot %empty[%s] : !tile.sem<3>
        %prev = arith.xori %free, %c1_i32 : i32
        tile.sem_wait %empty_s, %prev
        %full_s = tile.slot %full[%s] : !tile.sem<3>
        %a_s = tile.slot %a[%s] : !a_ring
        %b_s = tile.slot %b[%s] : !b_ring
        tile.sem_expect %full_s, %a_s, %b_s : !a_tile, !b_tile
        tile.load_async %A[%m, %k] -> %a_s, %full_s : !view, !a_tile
        tile.load_async %B[%k, %n] -> %b_s, %full_s : !view, !b_tile
      }
    }
  } consumer(warpgroups = 2, registers = 232) {
    %wg = tile.warpgroup_id
    tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 8
        stream_k(%kb, %ke, %slot) of %tiles_k {
      %steps = arith.subi %ke, %kb : index
      %base = tile.prefix_sum %steps
      %zero = tile.fill 0.0 : !acc
      %acc = scf.for %k = %kb to %ke step %c1 iter_args(%acc_k = %zero) -> (!acc) {
        %local = arith.subi %k, %kb : index
        %it = arith.addi %base, %local : index
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
        tile.sem_arrive %empty_s
        scf.yield %next : !acc
      }
      // This warpgroup's 64 rows of the slot's 128 workspace rows.
      %slot2 = arith.muli %slot, %c2 : index
      %w_row = arith.addi %slot2, %wg : index
      %first = arith.cmpi eq, %kb, %c0 : index
      %to_end = arith.cmpi eq, %ke, %tiles_k : index
      scf.if %first {
        %sums = scf.if %to_end -> (!acc) {
          scf.yield %acc : !acc
        } else {
          // The other units of this tile did k-steps [ke, tiles_k).
          %rest = arith.subi %tiles_k, %ke : index
          %rest_i32 = arith.index_cast %rest : index to i32
          tile.signal_wait %F[%slot], %rest_i32 : !counters
          %partial = tile.load %W[%w_row, %c0] : !work -> !acc
          %total = tile.add %acc, %partial : !acc
          tile.store %zero, %W[%w_row, %c0] : !acc, !work
          %c0_i32 = arith.constant 0 : i32
          %reset = arith.subi %c0_i32, %rest_i32 : i32
          tile.signal_add %F[%slot], %reset : !counters
          scf.yield %total : !acc
        }
        %out = tile.cast %sums : !acc to !out
        %c_wg = tile.subtile %c[%wg, %c0] : !c_tile to !c_half
        tile.store_async_wait
        tile.store %out, %c_wg : !out, !c_half
        %m2 = arith.muli %m, %c2 : index
        %row = arith.addi %m2, %wg : index
        tile.store_async %c_wg -> %C[%row, %n] : !c_half, !view
      } else {
        tile.store %acc, %W[%w_row, %c0] reduce add : !acc, !work
        %steps_i32 = arith.index_cast %steps : index to i32
        tile.signal_add %F[%slot], %steps_i32 : !counters
      }
    }
    tile.store_async_wait
  }
}
