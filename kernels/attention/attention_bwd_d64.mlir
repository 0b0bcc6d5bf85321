// Attention backward in one kernel, head dim 64 (FlashAttention-3's form):
// for each 128-key tile of a kv head, over the query heads that share it
// (GQA) and their 128-query tiles (from the diagonal on when causal),
// recompute Pᵀ from the forward's log-sum-exp L, then dV += Pᵀ dO,
// dSᵀ = Pᵀ ∘ (V dOᵀ − Δ), dK += dSᵀ Q, and add this key tile's part of dQ,
// scale · dS K, into the f32 dQ accumulator (which the caller zeroes; every
// key tile's block adds to it). dSᵀ reaches the dQ product through shared
// memory. dK = scale · dK.
// Q, dO: [batch, heads, seq, 64] bf16; K, V, dK, dV: [batch, kv heads,
// seq, 64] bf16; L, Δ: [batch, heads, seq] f32 (seq a multiple of 4:
// they are copied with TMA); dQ: [batch, heads, seq, 64] f32 in fragment
// order (seq padded to 64; the host reorders it). The passes split every
// product by rows: each consumer warpgroup takes 64 keys for Sᵀ, dPᵀ, dV
// and dK and 64 queries for dQ, whose part it adds with 16-byte shared
// stores and one bulk reduction (FlashAttention-3's dQ accumulator).
// The steps of attention_bwd.mlir (head dim 128) on twice the queries: at
// head dim 64 the products of a 64-query step are small (Sᵀ and dPᵀ are
// m64n64k64 per warpgroup) and the step's fixed costs — waits, the
// barrier, the dQ reduction, index arithmetic — weigh as much as the
// tensor-core work. 128 queries double the work per step for the same fixed
// costs, and the accumulators (dK, dV: 32 registers each per thread) leave
// room for Sᵀ and dPᵀ, 64 registers each, queued together: the softmax of
// Sᵀ runs while the tensor cores compute dPᵀ. 1.12-1.19x the 64-query
// program at 512-16384 on H100, no spills (docs/performance.md).
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
!ds_st = !tile.st<128x128xbf16>
!ds_ring = !tile.st<2x128x128xbf16>
!dq = !tile.rt<128x64xf32, block>
!dqg = !tile.gl<?x?x?x64xf32, fragments>

tile.kernel @attention_bwd_d64(%Q: !qkv, %K: !qkv, %V: !qkv, %dO: !qkv,
                               %L: !vec, %Dl: !vec, %dQ: !dqg, %dK: !qkv,
                               %dV: !qkv, %scale: f32, %causal: i1)
    launch(warpgroups = 2) {
  %k = tile.alloc : !kv_st
  %v = tile.alloc : !kv_st
  %q = tile.alloc : !q_st
  %do = tile.alloc : !q_st
  %ds_ring = tile.alloc : !ds_ring
  %lse_s = tile.alloc : !col_st
  %delta_s = tile.alloc : !col_st
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
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
    // Two Q/dO stages (tile.stages): with the three that fit otherwise, the
    // shared buffer that stages dQ's bulk reduction does not fit and the
    // passes add dQ element by element (atomics).
    %dk, %dv = scf.for %x = %c0 to %steps step %c1
        iter_args(%dk_x = %zero, %dv_x = %zero) -> (!acc, !acc) {
      %g = arith.divui %x, %count : index
      %i_rel = arith.remui %x, %count : index
      %parity = arith.remui %x, %c2 : index
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
      // Pᵀ = exp2(Sᵀ · scale · log2 e − L · log2 e), Sᵀ = K Qᵀ; Sᵀ and dPᵀ =
      // V dOᵀ queue back to back.
      %s_raw = tile.mma_async ABt %k, %q : !kv_st, !q_st -> !st
      %dp = tile.mma_async ABt %v, %do : !kv_st, !q_st -> !st
      tile.mma_wait 1
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
      // L and Δ are read from shared memory where they are used (kept from
      // before the products, their registers would spill).
      %lse = tile.load %lse_s : !col_st -> !col
      %lse2 = tile.mul %lse, %log2e : !col, f32
      %lse_b = tile.broadcast col %lse2 : !col to !st
      %s_shift = tile.sub %s_scaled, %lse_b : !st
      %p = tile.exp2 %s_shift : !st
      %p16 = tile.cast %p : !st to !st16
      // dSᵀ = Pᵀ ∘ (V dOᵀ − Δ).
      tile.mma_wait 0
      %delta = tile.load %delta_s : !col_st -> !col
      %delta_b = tile.broadcast col %delta : !col to !st
      %dp_c = tile.sub %dp, %delta_b : !st
      %ds = tile.mul %p, %dp_c : !st
      %ds16 = tile.cast %ds : !st to !st16
      // dSᵀ (keys along rows) goes to shared memory for dQ, in two buffers
      // taken in turn: each warpgroup's dQ rows read both warpgroups' dSᵀ,
      // and the step that wrote this buffer last has passed the barrier
      // below, after which it is not read again.
      %ds_s = tile.slot %ds_ring[%parity] : !ds_ring
      tile.store %ds16, %ds_s : !st16, !ds_st
      tile.fence async_proxy
      // dV += Pᵀ dO while the other warps write their dSᵀ; once all of dSᵀ
      // is written, dQ = scale · dS K, then dK += dSᵀ Q. The first wait
      // leaves only dK in flight, so dQ goes out (through shared memory)
      // while the tensor cores run dK.
      %dv_next = tile.mma_async AB %p16, %do, %dv_x : !st16, !q_st -> !acc
      tile.barrier block
      %dq = tile.mma_async AtB %ds_s, %k : !ds_st, !kv_st -> !dq
      %dk_next = tile.mma_async AB %ds16, %q, %dk_x : !st16, !q_st -> !acc
      tile.mma_wait 1
      %dq_s = tile.mul %dq, %scale : !dq, f32
      tile.store %dq_s, %dQ[%b, %h, %i, %c0] reduce add : !dq, !dqg
      tile.mma_wait 0
      scf.yield %dk_next, %dv_next : !acc, !acc
    } {tile.stages = 2}
    %dk_s = tile.mul %dk, %scale : !acc, f32
    %dk16 = tile.cast %dk_s : !acc to !acc16
    tile.store %dk16, %dK[%b, %hk, %j, %c0] : !acc16, !qkv
    %dv16 = tile.cast %dv : !acc to !acc16
    tile.store %dv16, %dV[%b, %hk, %j, %c0] : !acc16, !qkv
  }
}
