// Attention forward, naive form, head dim 64 with 128-query tiles:
// kernels/attention/attention_naive.mlir (see there) with 64-column Q, K, V and O, i.e.
// kernels/attention/attention_naive_d64.mlir with two consumer warpgroups of 64 rows
// instead of three, which compute fewer masked scores per diagonal.
// attention() does not run it: the 192-query program, whose warpgroups
// skip the key tiles above their own rows, is faster for short causal
// sequences too (CHOICES in python/tk_mlir/ops/attention.py).
!qkv = !tile.gl<?x?x?x64xbf16>
!st = !tile.st<128x64xbf16>
!s = !tile.rt<128x128xf32, block>
!p16 = !tile.rt<128x128xbf16, block>
!o = !tile.rt<128x64xf32, block>
!o16 = !tile.rt<128x64xbf16, block>
!row = !tile.rv<128xf32, block>

tile.kernel @attention_naive_d64_q128(%Q: !qkv, %K: !qkv, %V: !qkv, %O: !qkv,
                                  %L: !tile.gl<?x?x?xf32>, %scale: f32,
                                  %causal: i1)
    launch(warpgroups = 2, grid = persistent) {
  %q = tile.alloc : !st
  %k = tile.alloc : !st
  %v = tile.alloc : !st
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %batch = tile.dim %Q[0] : !qkv
  %heads = tile.dim %Q[1] : !qkv
  %seq = tile.dim %Q[2] : !qkv
  %kv_heads = tile.dim %K[1] : !qkv
  %group = arith.divui %heads, %kv_heads : index
  %q_tiles = arith.ceildivui %seq, %c128 : index
  %last_q = arith.subi %q_tiles, %c1 : index
  // snake: a persistent block's causal tiles alternate long and short (the
  // query tile varies fastest, so a plain stride would give a block the
  // same length every round).
  tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) snake {
    // Causal: the longest rows first; key tiles up to the diagonal.
    %reversed = arith.subi %last_q, %t : index
    %qt = arith.select %causal, %reversed, %t : index
    %diag = arith.addi %qt, %c1 : index
    %kv_tiles = arith.select %causal, %diag, %q_tiles : index
    %hk = arith.divui %h, %group : index
    %q0 = arith.muli %qt, %c128 : index
    tile.copy %Q[%b, %h, %qt, %c0] -> %q {tile.stages = 2} : !qkv, !st
    %m0 = tile.fill 0xFFF0000000000000 : !row
    %l0 = tile.fill 0.0 : !row
    %o0 = tile.fill 0.0 : !o
    %m, %l, %o = scf.for %j = %c0 to %kv_tiles step %c1
        iter_args(%m_j = %m0, %l_j = %l0, %o_j = %o0) -> (!row, !row, !o) {
      tile.copy %K[%b, %hk, %j, %c0] -> %k : !qkv, !st
      tile.copy %V[%b, %hk, %j, %c0] -> %v : !qkv, !st
      %k0 = arith.muli %j, %c128 : index
      %s_raw = tile.mma ABt %q, %k : !st, !st -> !s
      // Keys past the end exist only in the last key tile.
      %k_end = arith.addi %k0, %c128 : index
      %tail = arith.cmpi ugt, %k_end, %seq : index
      %s_in = scf.if %tail -> (!s) {
        %bounded = tile.bound_mask %s_raw[%q0, %k0] within [%seq, %seq] fill neg_inf : !s
        scf.yield %bounded : !s
      } else {
        scf.yield %s_raw : !s
      }
      %on_diag = arith.cmpi eq, %j, %qt : index
      %needs_mask = arith.andi %causal, %on_diag : i1
      %s_ij = scf.if %needs_mask -> (!s) {
        %masked = tile.causal_mask %s_in[%q0, %k0] fill neg_inf : !s
        scf.yield %masked : !s
      } else {
        scf.yield %s_in : !s
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
    // The log-sum-exp first: it does not need the last P V, so
    // tile-early-epilogue runs it (and 1 / l) while that MMA multiplies.
    %m_nat = tile.mul %m, %scale : !row, f32
    %log_l = tile.log %l : !row
    %lse = tile.add %m_nat, %log_l : !row
    tile.store %lse, %L[%b, %h, %qt] : !row, !tile.gl<?x?x?xf32>
    // One division per row, not per element.
    %ones = tile.fill 1.0 : !row
    %inv_l = tile.div %ones, %l : !row
    %inv_b = tile.broadcast row %inv_l : !row to !o
    %o_norm = tile.mul %o, %inv_b : !o
    %o16 = tile.cast %o_norm : !o to !o16
    tile.store %o16, %O[%b, %h, %qt, %c0] : !o16, !qkv
  }
}
