// P = softmax(Q Kᵀ · scale), row by row: the core of attention's online
// softmax, on the wgmma accumulator in registers (row max and row sum with
// lane shuffles, no shared-memory round trip). Q: [n, 64], K: [128, 64],
// P: [n, 128], bf16; one block per 64 rows of Q.
!q_tile = !tile.st<64x64xbf16, #tile.swizzle<128>>
!k_tile = !tile.st<128x64xbf16, #tile.swizzle<128>>
!s = !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
!row = !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>

tile.kernel @softmax_scores(%Q: !tile.gl<?x64xbf16>, %K: !tile.gl<128x64xbf16>,
                            %P: !tile.gl<?x128xbf16>, %scale: f32)
    launch(warpgroups = 1) {
  %q = tile.alloc : !q_tile
  %k = tile.alloc : !k_tile
  %ready = tile.alloc : !tile.sem
  tile.sem_init %ready, 1 : !tile.sem
  tile.fence sem_init
  tile.barrier block

  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %phase = arith.constant 0 : i32
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %n = tile.dim %Q[0] : !tile.gl<?x64xbf16>
  %tiles = arith.ceildivui %n, %c64 : index
  tile.foreach_tile (%i) in (%tiles) {
    tile.sem_expect %ready, %q, %k : !q_tile, !k_tile
    tile.load_async %Q[%i, %c0] -> %q, %ready : !tile.gl<?x64xbf16>, !q_tile
    tile.load_async %K[%c0, %c0] -> %k, %ready : !tile.gl<128x64xbf16>, !k_tile
    tile.sem_wait %ready, %phase
    %s = tile.mma ABt %q, %k : !q_tile, !k_tile -> !s
    %m = tile.row_max %s : !s -> !row
    %m_b = tile.broadcast row %m : !row to !s
    %shifted = tile.sub %s, %m_b : !s
    %scaled = tile.mul %shifted, %scale2 : !s, f32
    %p = tile.exp2 %scaled : !s
    %l = tile.row_sum %p : !s -> !row
    %l_b = tile.broadcast row %l : !row to !s
    %p_norm = tile.div %p, %l_b : !s
    %p16 = tile.cast %p_norm : !s to !tile.rt<64x128xbf16, warpgroup, #tile.mma_acc>
    tile.store %p16, %P[%i, %c0] : !tile.rt<64x128xbf16, warpgroup, #tile.mma_acc>, !tile.gl<?x128xbf16>
  }
}
