// Attention backward, dK and dV (naive form): for each 128-key tile of a kv
// head, over the query heads that share it (GQA) and their 128-query tiles
// (from the diagonal on when causal), recompute Pᵀ from the forward's
// log-sum-exp L, then dV += Pᵀ dO, dSᵀ = Pᵀ ∘ (V dOᵀ − Δ), dK += dSᵀ Q;
// dK = scale · dK. Scores are kept transposed (keys along rows), so L and Δ
// are column vectors. Q, dO: [batch, heads, seq, 64] bf16; K, V, dK, dV:
// [batch, kv heads, seq, 64] bf16; L, Δ: [batch, heads, seq] f32 (seq a
// multiple of 4: they are copied with TMA).
// Head dim 64: attention_bwd_dkv.mlir with 64-column Q, K, V, dO, dK, dV,
// and 128-query steps instead of 64: the dK and dV accumulators take half
// the registers, which leaves room for 128-column scores, so Sᵀ and dPᵀ are
// m64n128 MMAs (1.02-1.12x the 64-query form; docs/performance.md).
!qkv = !tile.gl<?x?x?x64xbf16>
!vec = !tile.gl<?x?x?xf32>
!kv_st = !tile.st<128x64xbf16>
!q_st = !tile.st<128x64xbf16>
!st = !tile.rt<128x128xf32, block>
!st16 = !tile.rt<128x128xbf16, block>
!acc = !tile.rt<128x64xf32, block>
!acc16 = !tile.rt<128x64xbf16, block>
!col = !tile.rv<128xf32, block>
!col_st = !tile.sv<128xf32>

tile.kernel @attention_bwd_dkv_d64(%Q: !qkv, %K: !qkv, %V: !qkv, %dO: !qkv,
                               %L: !vec, %Dl: !vec, %dK: !qkv, %dV: !qkv,
                               %scale: f32, %causal: i1) launch(warpgroups = 2) {
  %k = tile.alloc : !kv_st
  %v = tile.alloc : !kv_st
  %q = tile.alloc : !q_st
  %do = tile.alloc : !q_st
  %lse_s = tile.alloc : !col_st
  %delta_s = tile.alloc : !col_st
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
  %kv_tiles = arith.ceildivui %seq, %c128 : index
  %q_tiles = arith.ceildivui %seq, %c128 : index
  tile.foreach_tile (%j, %hk, %b) in (%kv_tiles, %kv_heads, %batch) {
    %k0 = arith.muli %j, %c128 : index
    tile.copy %K[%b, %hk, %j, %c0] -> %k : !qkv, !kv_st
    tile.copy %V[%b, %hk, %j, %c0] -> %v : !qkv, !kv_st
    // Causal: query tiles from the one holding the tile's first key on.
    %first = arith.select %causal, %j, %c0 : index
    %count = arith.subi %q_tiles, %first : index
    %steps = arith.muli %count, %group : index
    %zero = tile.fill 0.0 : !acc
    %dk, %dv = scf.for %x = %c0 to %steps step %c1
        iter_args(%dk_x = %zero, %dv_x = %zero) -> (!acc, !acc) {
      %g = arith.divui %x, %count : index
      %i_rel = arith.remui %x, %count : index
      %i = arith.addi %first, %i_rel : index
      %hg = arith.muli %hk, %group : index
      %h = arith.addi %hg, %g : index
      tile.copy %Q[%b, %h, %i, %c0] -> %q : !qkv, !q_st
      tile.copy %dO[%b, %h, %i, %c0] -> %do : !qkv, !q_st
      %q0 = arith.muli %i, %c128 : index
      // L and Δ come with Q and dO (the passes make them async copies the
      // producer issues ahead), not as loads in the consumers' critical path.
      tile.copy %L[%b, %h, %i] -> %lse_s : !vec, !col_st
      tile.copy %Dl[%b, %h, %i] -> %delta_s : !vec, !col_st
      %lse = tile.load %lse_s : !col_st -> !col
      %lse2 = tile.mul %lse, %log2e : !col, f32
      %lse_b = tile.broadcast col %lse2 : !col to !st
      %delta = tile.load %delta_s : !col_st -> !col
      %delta_b = tile.broadcast col %delta : !col to !st
      // Pᵀ = exp2(Sᵀ · scale · log2 e − L · log2 e), Sᵀ = K Qᵀ.
      %s_raw = tile.mma ABt %k, %q : !kv_st, !q_st -> !st
      // Keys or queries past the end exist only in the last tiles.
      %k_end = arith.addi %k0, %c128 : index
      %q_end = arith.addi %q0, %c128 : index
      %k_tail = arith.cmpi ugt, %k_end, %seq : index
      %q_tail = arith.cmpi ugt, %q_end, %seq : index
      %tail = arith.ori %k_tail, %q_tail : i1
      %s_in = scf.if %tail -> (!st) {
        %bounded = tile.bound_mask %s_raw[%k0, %q0] within [%seq, %seq] fill neg_inf : !st
        scf.yield %bounded : !st
      } else {
        scf.yield %s_raw : !st
      }
      // Only query tiles that start before the key tile ends cross the
      // diagonal.
      %k_last = arith.addi %k0, %c128 : index
      %crosses = arith.cmpi ult, %q0, %k_last : index
      %needs_mask = arith.andi %causal, %crosses : i1
      %s_ij = scf.if %needs_mask -> (!st) {
        %masked = tile.causal_mask %s_in[%k0, %q0] transposed fill neg_inf : !st
        scf.yield %masked : !st
      } else {
        scf.yield %s_in : !st
      }
      %s_scaled = tile.mul %s_ij, %scale2 : !st, f32
      %s_shift = tile.sub %s_scaled, %lse_b : !st
      %p = tile.exp2 %s_shift : !st
      %p16 = tile.cast %p : !st to !st16
      %dv_next = tile.mma AB %p16, %do, %dv_x : !st16, !q_st -> !acc
      // dSᵀ = Pᵀ ∘ (V dOᵀ − Δ), dK += dSᵀ Q.
      %dp = tile.mma ABt %v, %do : !kv_st, !q_st -> !st
      %dp_c = tile.sub %dp, %delta_b : !st
      %ds = tile.mul %p, %dp_c : !st
      %ds16 = tile.cast %ds : !st to !st16
      %dk_next = tile.mma AB %ds16, %q, %dk_x : !st16, !q_st -> !acc
      scf.yield %dk_next, %dv_next : !acc, !acc
    }
    %dk_s = tile.mul %dk, %scale : !acc, f32
    %dk16 = tile.cast %dk_s : !acc to !acc16
    tile.store %dk16, %dK[%b, %hk, %j, %c0] : !acc16, !qkv
    %dv16 = tile.cast %dv : !acc to !acc16
    tile.store %dv16, %dV[%b, %hk, %j, %c0] : !acc16, !qkv
  }
}
