// Attention backward, dQ (naive form): for each 128-query tile, over the
// key tiles (up to the diagonal when causal), recompute P from the forward's
// log-sum-exp L, then dS = P ∘ (dO Vᵀ − Δ) and dQ += dS K; dQ = scale · dQ.
// Δ = rowsum(dO ∘ O) per query comes in precomputed. Q, K, V, dO, dQ:
// [batch, heads, seq, 128] bf16 (K, V may have fewer heads: GQA); L, Δ:
// [batch, heads, seq] f32. The -tile-to-nvidia passes schedule it like the
// forward: Q and dO per tile, K and V through a ring, rows split over two
// consumer warpgroups.
// Head dim 128 (attention_bwd_dq_d64.mlir: the same program for 64).
!qkv = !tile.gl<?x?x?x128xbf16>
!vec = !tile.gl<?x?x?xf32>
!st = !tile.st<128x128xbf16>
!s = !tile.rt<128x128xf32, block>
!s16 = !tile.rt<128x128xbf16, block>
!o = !tile.rt<128x128xf32, block>
!o16 = !tile.rt<128x128xbf16, block>
!row = !tile.rv<128xf32, block>

tile.kernel @attention_bwd_dq(%Q: !qkv, %K: !qkv, %V: !qkv, %dO: !qkv,
                              %L: !vec, %Dl: !vec, %dQ: !qkv, %scale: f32,
                              %causal: i1) launch(warpgroups = 2) {
  %q = tile.alloc : !st
  %do = tile.alloc : !st
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
  tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) {
    %reversed = arith.subi %last_q, %t : index
    %qt = arith.select %causal, %reversed, %t : index
    %diag = arith.addi %qt, %c1 : index
    %kv_tiles = arith.select %causal, %diag, %q_tiles : index
    %hk = arith.divui %h, %group : index
    %q0 = arith.muli %qt, %c128 : index
    tile.copy %Q[%b, %h, %qt, %c0] -> %q : !qkv, !st
    tile.copy %dO[%b, %h, %qt, %c0] -> %do : !qkv, !st
    // P = exp2(S · scale · log2 e − L · log2 e).
    %lse = tile.load %L[%b, %h, %qt] : !vec -> !row
    %lse2 = tile.mul %lse, %log2e : !row, f32
    %lse_b = tile.broadcast row %lse2 : !row to !s
    %delta = tile.load %Dl[%b, %h, %qt] : !vec -> !row
    %delta_b = tile.broadcast row %delta : !row to !s
    %dq0 = tile.fill 0.0 : !o
    %dq = scf.for %j = %c0 to %kv_tiles step %c1 iter_args(%acc = %dq0) -> (!o) {
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
      %s_scaled = tile.mul %s_ij, %scale2 : !s, f32
      %s_shift = tile.sub %s_scaled, %lse_b : !s
      %p = tile.exp2 %s_shift : !s
      // dS = P ∘ (dO Vᵀ − Δ), then dQ += dS K.
      %dp = tile.mma ABt %do, %v : !st, !st -> !s
      %dp_c = tile.sub %dp, %delta_b : !s
      %ds = tile.mul %p, %dp_c : !s
      %ds16 = tile.cast %ds : !s to !s16
      %next = tile.mma AB %ds16, %k, %acc : !s16, !st -> !o
      scf.yield %next : !o
    }
    %dq_s = tile.mul %dq, %scale : !o, f32
    %dq16 = tile.cast %dq_s : !o to !o16
    tile.store %dq16, %dQ[%b, %h, %qt, %c0] : !o16, !qkv
  }
}
