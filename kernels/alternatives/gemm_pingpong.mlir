// C = A · B (bf16 in, f32 accumulate, bf16 out) with ping-pong consumers.
//
// As gemm.mlir, one producer warpgroup streams tiles through a ring, but the
// two consumer warpgroups do not share an output tile: each owns whole
// 64x256 tiles, taking turns along the block's tile sequence (warpgroup
// t mod 2 computes the t-th tile). A warpgroup starts a tile's main loop
// only after the other has waited for all of the previous tile's stages
// (`order`), so the ring is consumed in sequence and no wait looks more than
// one round ahead; one warpgroup's main loop runs while the other writes its
// previous tile out, so the epilogue leaves the tensor cores busy. Each
// k-step keeps one MMA group in flight and releases the previous step's
// stage.
!a_ring = !tile.st<4x64x64xbf16, #tile.swizzle<128>>
!b_ring = !tile.st<4x64x256xbf16, #tile.swizzle<128>>
!a_tile = !tile.st<64x64xbf16, #tile.swizzle<128>>
!b_tile = !tile.st<64x256xbf16, #tile.swizzle<128>>
!acc = !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
!out = !tile.rt<64x256xbf16, warpgroup, #tile.mma_acc>
!c_pair = !tile.st<128x256xbf16, #tile.swizzle<128>>
!c_tile = !tile.st<64x256xbf16, #tile.swizzle<128>>
!view = !tile.gl<?x?xbf16>

tile.kernel @gemm_pingpong(%A: !view, %B: !view, %C: !view)
    launch(warpgroups = 3, grid = persistent) {
  %a = tile.alloc : !a_ring
  %b = tile.alloc : !b_ring
  %c = tile.alloc : !c_pair
  %full = tile.alloc : !tile.sem<4>
  %empty = tile.alloc : !tile.sem<4>
  %order = tile.alloc : !tile.sem<2>
  tile.sem_init %full, 1 : !tile.sem<4>
  tile.sem_init %empty, 1 : !tile.sem<4>
  tile.sem_init %order, 1 : !tile.sem<2>
  tile.fence sem_init
  tile.barrier block

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c1_i32 = arith.constant 1 : i32
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  %tiles_m = arith.ceildivui %M, %c64 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index

  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 16 iteration(%t) {
      %base = arith.muli %t, %tiles_k : index
      scf.for %k = %c0 to %tiles_k step %c1 {
        %it = arith.addi %base, %k : index
        %s = arith.remui %it, %c4 : index
        %round = arith.divui %it, %c4 : index
        %r32 = arith.index_cast %round : index to i32
        %prev = arith.xori %r32, %c1_i32 : i32
        %empty_s = tile.slot %empty[%s] : !tile.sem<4>
        tile.sem_wait %empty_s, %prev
        %full_s = tile.slot %full[%s] : !tile.sem<4>
        %a_s = tile.slot %a[%s] : !a_ring
        %b_s = tile.slot %b[%s] : !b_ring
        tile.sem_expect %full_s, %a_s, %b_s : !a_tile, !b_tile
        tile.load_async %A[%m, %k] -> %a_s, %full_s : !view, !a_tile
        tile.load_async %B[%k, %n] -> %b_s, %full_s : !view, !b_tile
      }
    }
  } consumer(warpgroups = 2, registers = 232) {
    %wg = tile.warpgroup_id
    %c_wg = tile.subtile %c[%wg, %c0] : !c_pair to !c_tile
    tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 16 iteration(%t) {
      %turn = arith.remui %t, %c2 : index
      %mine = arith.cmpi eq, %turn, %wg : index
      scf.if %mine {
        // Tile t - 1's main loop (the other warpgroup) has passed its waits:
        // completion j - 1 + wg of order[wg], j = t / 2.
        %started = arith.cmpi ugt, %t, %c0 : index
        scf.if %started {
          %j = arith.divui %t, %c2 : index
          %jw = arith.addi %j, %wg : index
          %done = arith.subi %jw, %c1 : index
          %parity = arith.index_cast %done : index to i32
          %mine_s = tile.slot %order[%wg] : !tile.sem<2>
          tile.sem_wait %mine_s, %parity
        }
        %base = arith.muli %t, %tiles_k : index
        %zero = tile.fill 0.0 : !acc
        %acc = scf.for %k = %c0 to %tiles_k step %c1 iter_args(%acc_k = %zero) -> (!acc) {
          %it = arith.addi %base, %k : index
          %s = arith.remui %it, %c4 : index
          %round = arith.divui %it, %c4 : index
          %phase = arith.index_cast %round : index to i32
          %full_s = tile.slot %full[%s] : !tile.sem<4>
          tile.sem_wait %full_s, %phase
          %a_s = tile.slot %a[%s] : !a_ring
          %b_s = tile.slot %b[%s] : !b_ring
          %next = tile.mma_async AB %a_s, %b_s, %acc_k : !a_tile, !b_tile -> !acc
          // The previous k-step's MMA is done: hand its stage back.
          tile.mma_wait 1
          %later = arith.cmpi ugt, %k, %c0 : index
          scf.if %later {
            %it_prev = arith.subi %it, %c1 : index
            %s_prev = arith.remui %it_prev, %c4 : index
            %empty_p = tile.slot %empty[%s_prev] : !tile.sem<4>
            tile.sem_arrive %empty_p
          }
          scf.yield %next : !acc
        }
        %other = arith.subi %c1, %wg : index
        %other_s = tile.slot %order[%other] : !tile.sem<2>
        tile.sem_arrive %other_s
        tile.mma_wait 0
        %any = arith.cmpi ugt, %tiles_k, %c0 : index
        scf.if %any {
          %last = arith.addi %base, %tiles_k : index
          %it_last = arith.subi %last, %c1 : index
          %s_last = arith.remui %it_last, %c4 : index
          %empty_l = tile.slot %empty[%s_last] : !tile.sem<4>
          tile.sem_arrive %empty_l
        }
        %out = tile.cast %acc : !acc to !out
        tile.store_async_wait
        tile.store %out, %c_wg : !out, !c_tile
        tile.store_async %c_wg -> %C[%m, %n] : !c_tile, !view
      }
    }
    tile.store_async_wait
  }
}
