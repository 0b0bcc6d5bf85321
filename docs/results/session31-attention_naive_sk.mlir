// EXPERIMENT (thirty-first session, docs/performance.md): not bundled, not
// compiled by CI; measured 1% slower than kernels/attention_naive.mlir on an
// H100. Kept as the record of a working stream-K attention forward.
// Attention forward, non-causal, head dim 128, with the last round of
// query tiles split along the keys (stream-K): O = softmax(Q Kᵀ · scale) V
// and the log-sum-exp L, as kernels/attention_naive.mlir computes them.
// Q, K, V, O: [batch, heads, seq, 128] bf16; L: [batch, heads, seq] f32;
// K and V may have fewer heads than Q (GQA/MQA).
//
// When the 128-query tiles do not divide evenly over the persistent
// blocks (batch × heads × seq / 128 = 2048 tiles on 132 multiprocessors:
// 15.5 rounds), `foreach_tile ... stream_k` runs all but the last one to
// two rounds' tiles whole and deals the key tiles of the rest out in equal
// ranges, so every block ends at once. A query tile split over two blocks
// is combined through global memory: the unit with the tile's later key
// tiles stores its unnormalized O, row max and row sum in the workspace
// (WO rows 128 slot .., WML row slot: max in columns 0-127, sum in
// 128-255) and adds 1 to the counter F[slot]; the unit with the first key
// tile (the last one its block runs) waits for the counter, merges the two
// online-softmax states, sets the counter back to 0 and stores O and L.
// WO needs 256 rows per block of the grid (128 columns), WML two rows per
// block (256 columns), F two counters per block, zero before the first
// launch. (Each share of the split rounds is at least one query tile's key
// tiles, so no tile is split over more than two blocks.)
//
// Everything else (stagger, pingpong, the passes' producer and consumer
// warpgroups) is as in kernels/attention_naive.mlir.
!qkv = !tile.gl<?x?x?x128xbf16>
!q_rt = !tile.rt<128x128xbf16, block>
!st = !tile.st<128x128xbf16>
!s = !tile.rt<128x128xf32, block>
!p16 = !tile.rt<128x128xbf16, block>
!o = !tile.rt<128x128xf32, block>
!o16 = !tile.rt<128x128xbf16, block>
!row = !tile.rv<128xf32, block>
!work = !tile.gl<?x?xf32>
!counters = !tile.gl<?xi32>

tile.kernel @attention_naive_sk(%Q: !qkv, %K: !qkv, %V: !qkv, %O: !qkv,
                                %L: !tile.gl<?x?x?xf32>, %WO: !work,
                                %WML: !work, %F: !counters, %scale: f32)
    launch(warpgroups = 2, grid = persistent)
    attributes {tile.stagger = 2400, tile.pingpong} {
  %q = tile.alloc : !st
  %k = tile.alloc : !st
  %v = tile.alloc : !st
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c1_i32 = arith.constant 1 : i32
  %c-1_i32 = arith.constant -1 : i32
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %batch = tile.dim %Q[0] : !qkv
  %heads = tile.dim %Q[1] : !qkv
  %seq = tile.dim %Q[2] : !qkv
  %kv_heads = tile.dim %K[1] : !qkv
  %group = arith.divui %heads, %kv_heads : index
  %q_tiles = arith.ceildivui %seq, %c128 : index
  tile.foreach_tile (%qt, %h, %b) in (%q_tiles, %heads, %batch)
      stream_k(%kb, %ke, %slot) of %q_tiles {
    %hk = arith.divui %h, %group : index
    %q0 = arith.muli %qt, %c128 : index
    tile.copy %Q[%b, %h, %qt, %c0] -> %q {tile.stages = 2} : !qkv, !st
    %q_r = tile.load %q : !st -> !q_rt
    %m0 = tile.fill 0xFFF0000000000000 : !row
    %l0 = tile.fill 0.0 : !row
    %o0 = tile.fill 0.0 : !o
    %m_u, %l_u, %o_u = scf.for %j = %kb to %ke step %c1
        iter_args(%m_j = %m0, %l_j = %l0, %o_j = %o0) -> (!row, !row, !o) {
      tile.copy %K[%b, %hk, %j, %c0] -> %k : !qkv, !st
      tile.copy %V[%b, %hk, %j, %c0] -> %v : !qkv, !st
      %k0 = arith.muli %j, %c128 : index
      %s_raw = tile.mma ABt %q_r, %k : !q_rt, !st -> !s
      // Keys past the end exist only in the last key tile.
      %k_end = arith.addi %k0, %c128 : index
      %tail = arith.cmpi ugt, %k_end, %seq : index
      %s_ij = scf.if %tail -> (!s) {
        %bounded = tile.bound_mask %s_raw[%q0, %k0] within [%seq, %seq] fill neg_inf : !s
        scf.yield %bounded : !s
      } else {
        scf.yield %s_raw : !s
      }
      %m_new = tile.row_max %s_ij, %m_j : !s -> !row
      %m_diff = tile.sub %m_j, %m_new : !row
      %m_diff2 = tile.mul %m_diff, %scale2 : !row, f32
      %alpha = tile.exp2 %m_diff2 : !row
      %m_scaled = tile.mul %m_new, %scale2 : !row, f32
      %m_b = tile.broadcast row %m_scaled : !row to !s
      %s_scaled = tile.mul %s_ij, %scale2 : !s, f32
      %s_shift = tile.sub %s_scaled, %m_b : !s
      %p = tile.exp2 %s_shift : !s
      %l_scaled = tile.mul %l_j, %alpha : !row
      %l_new = tile.row_sum %p, %l_scaled : !s -> !row
      %alpha_b = tile.broadcast row %alpha : !row to !o
      %o_scaled = tile.mul %o_j, %alpha_b : !o
      %p16 = tile.cast %p : !s to !p16
      %o_new = tile.mma AB %p16, %v, %o_scaled : !p16, !st -> !o
      scf.yield %m_new, %l_new, %o_new : !row, !row, !o
    } {tile.stages = 2}
    %first = arith.cmpi eq, %kb, %c0 : index
    %to_end = arith.cmpi eq, %ke, %q_tiles : index
    scf.if %first {
      %m, %l, %o = scf.if %to_end -> (!row, !row, !o) {
        scf.yield %m_u, %l_u, %o_u : !row, !row, !o
      } else {
        // The block with the tile's later key tiles left its state.
        tile.signal_wait %F[%slot], %c1_i32 : !counters
        %o_p = tile.load %WO[%slot, %c0] : !work -> !o
        %m_p = tile.load %WML[%slot, %c0] : !work -> !row
        %l_p = tile.load %WML[%slot, %c1] : !work -> !row
        tile.signal_add %F[%slot], %c-1_i32 : !counters
        %m_max = tile.max %m_u, %m_p : !row
        %d_u = tile.sub %m_u, %m_max : !row
        %d_u2 = tile.mul %d_u, %scale2 : !row, f32
        %a_u = tile.exp2 %d_u2 : !row
        %d_p = tile.sub %m_p, %m_max : !row
        %d_p2 = tile.mul %d_p, %scale2 : !row, f32
        %a_p = tile.exp2 %d_p2 : !row
        %l_us = tile.mul %l_u, %a_u : !row
        %l_ps = tile.mul %l_p, %a_p : !row
        %l_sum = tile.add %l_us, %l_ps : !row
        %a_ub = tile.broadcast row %a_u : !row to !o
        %a_pb = tile.broadcast row %a_p : !row to !o
        %o_us = tile.mul %o_u, %a_ub : !o
        %o_ps = tile.mul %o_p, %a_pb : !o
        %o_sum = tile.add %o_us, %o_ps : !o
        scf.yield %m_max, %l_sum, %o_sum : !row, !row, !o
      }
      // One division per row, not per element.
      %ones = tile.fill 1.0 : !row
      %inv_l = tile.div %ones, %l : !row
      %inv_b = tile.broadcast row %inv_l : !row to !o
      %o_norm = tile.mul %o, %inv_b : !o
      %o16 = tile.cast %o_norm : !o to !o16
      tile.store %o16, %O[%b, %h, %qt, %c0] : !o16, !qkv
      %m_nat = tile.mul %m, %scale : !row, f32
      %log_l = tile.log %l : !row
      %lse = tile.add %m_nat, %log_l : !row
      tile.store %lse, %L[%b, %h, %qt] : !row, !tile.gl<?x?x?xf32>
    } else {
      tile.store %o_u, %WO[%slot, %c0] : !o, !work
      tile.store %m_u, %WML[%slot, %c0] : !row, !work
      tile.store %l_u, %WML[%slot, %c1] : !row, !work
      tile.signal_add %F[%slot], %c1_i32 : !counters
    }
  }
}
