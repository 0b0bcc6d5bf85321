// Attention forward, naive form, head dim 128, with 176-key tiles: the
// program of kernels/attention/attention_naive.mlir with K and V copied 176 keys at a
// time (wgmma n = 176, FlashAttention-3's choice for head dim 128), so a
// 128-query tile takes 1.375x fewer key steps, and Q read by the MMA from
// shared memory instead of registers (the 64x176 S tile takes the registers).
// Shared memory: Q in one buffer (32 KB) and two stages of K and V (176 KB).
// tk_mlir.attention() runs it for long non-causal calls, where it is faster
// than the 128-key program; at shorter ones the last, partly masked key tile
// and the rotated loop's longer prologue cost more than the fewer steps save
// (H100, against the 128-key program: 1.8-2.5% faster at 8192 non-causal,
// 0.9-3.1% at 16384, 2.3-3.8% slower at 4096; docs/performance.md).
!qkv = !tile.gl<?x?x?x128xbf16>
!st = !tile.st<128x128xbf16>
!skv = !tile.st<176x128xbf16>
!s = !tile.rt<128x176xf32, block>
!p16 = !tile.rt<128x176xbf16, block>
!o = !tile.rt<128x128xf32, block>
!o16 = !tile.rt<128x128xbf16, block>
!row = !tile.rv<128xf32, block>

tile.kernel @attention_naive_kv176(%Q: !qkv, %K: !qkv, %V: !qkv, %O: !qkv,
                                   %L: !tile.gl<?x?x?xf32>, %scale: f32, %causal: i1)
    launch(warpgroups = 2, grid = persistent) {
  %q = tile.alloc : !st
  %k = tile.alloc : !skv
  %v = tile.alloc : !skv
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c176 = arith.constant 176 : index
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  %batch = tile.dim %Q[0] : !qkv
  %heads = tile.dim %Q[1] : !qkv
  %seq = tile.dim %Q[2] : !qkv
  %kv_heads = tile.dim %K[1] : !qkv
  %group = arith.divui %heads, %kv_heads : index
  %q_tiles = arith.ceildivui %seq, %c128 : index
  %last_q = arith.subi %q_tiles, %c1 : index
  %k_tiles = arith.ceildivui %seq, %c176 : index
  // snake: a persistent block's causal tiles alternate long and short (the
  // query tile varies fastest, so a plain stride would give a block the
  // same length every round).
  tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) snake {
    // Causal: the longest rows first; key tiles up to the diagonal.
    %reversed = arith.subi %last_q, %t : index
    %qt = arith.select %causal, %reversed, %t : index
    %q0 = arith.muli %qt, %c128 : index
    %q_end = arith.addi %q0, %c128 : index
    %to_diag = arith.ceildivui %q_end, %c176 : index
    %diag = arith.minui %to_diag, %k_tiles : index
    %kv_tiles = arith.select %causal, %diag, %k_tiles : index
    %hk = arith.divui %h, %group : index
    tile.copy %Q[%b, %h, %qt, %c0] -> %q {tile.stages = 1} : !qkv, !st
    %m0 = tile.fill 0xFFF0000000000000 : !row
    %l0 = tile.fill 0.0 : !row
    %o0 = tile.fill 0.0 : !o
    %m, %l, %o = scf.for %j = %c0 to %kv_tiles step %c1
        iter_args(%m_j = %m0, %l_j = %l0, %o_j = %o0) -> (!row, !row, !o) {
      tile.copy %K[%b, %hk, %j, %c0] -> %k : !qkv, !skv
      tile.copy %V[%b, %hk, %j, %c0] -> %v : !qkv, !skv
      %k0 = arith.muli %j, %c176 : index
      %s_raw = tile.mma ABt %q, %k : !st, !skv -> !s
      // Keys past the end exist only in the last key tile.
      %k_end = arith.addi %k0, %c176 : index
      %tail = arith.cmpi ugt, %k_end, %seq : index
      %s_in = scf.if %tail -> (!s) {
        %bounded = tile.bound_mask %s_raw[%q0, %k0] within [%seq, %seq] fill neg_inf : !s
        scf.yield %bounded : !s
      } else {
        scf.yield %s_raw : !s
      }
      // Causal: only tiles holding a key after the tile's first query.
      %k_last = arith.subi %k_end, %c1 : index
      %crosses = arith.cmpi ugt, %k_last, %q0 : index
      %needs_mask = arith.andi %causal, %crosses : i1
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
      %o_new = tile.mma AB %p16, %v, %o_scaled : !p16, !skv -> !o
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
