// Attention forward: O = softmax(Q Kᵀ · scale) V, and the log-sum-exp L
// that the backward pass recomputes from. Q, K, V, O: [batch, heads, seq,
// 128] bf16; L: [batch, heads, seq] f32. `causal` masks keys after the query.
//
// One block per 128 queries of one (batch, head): a producer warpgroup loads
// Q once and streams 128-key tiles of K and V through a 2-stage ring; two
// consumer warpgroups each own 64 query rows and run the online softmax on
// the MMA accumulator in registers, with exp2 and the scale folded in.
// Keys past the sequence end are masked; queries past it are not stored.
!qkv = !tile.gl<?x?x?x128xbf16>
!q_tile = !tile.st<128x128xbf16, #tile.swizzle<128>>
!q_half = !tile.st<64x128xbf16, #tile.swizzle<128>>
!kv_ring = !tile.st<2x128x128xbf16, #tile.swizzle<128>>
!kv_tile = !tile.st<128x128xbf16, #tile.swizzle<128>>
!s = !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
!p16 = !tile.rt<64x128xbf16, warpgroup, #tile.mma_acc>
!p_a = !tile.rt<64x128xbf16, warpgroup, #tile.row>
!row = !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>

tile.kernel @attention_fwd(%Q: !qkv, %K: !qkv, %V: !qkv, %O: !qkv,
                           %L: !tile.gl<?x?x?xf32>, %scale: f32, %causal: i1)
    launch(warpgroups = 3, grid = tiles) {
  %q = tile.alloc : !q_tile
  %k = tile.alloc : !kv_ring
  %v = tile.alloc : !kv_ring
  %q_full = tile.alloc : !tile.sem
  %kv_full = tile.alloc : !tile.sem<2>
  %kv_empty = tile.alloc : !tile.sem<2>
  tile.sem_init %q_full, 1 : !tile.sem
  tile.sem_init %kv_full, 1 : !tile.sem<2>
  tile.sem_init %kv_empty, 2 : !tile.sem<2>
  tile.fence sem_init
  tile.barrier block

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %batch = tile.dim %Q[0] : !qkv
  %heads = tile.dim %Q[1] : !qkv
  %seq = tile.dim %Q[2] : !qkv
  %q_tiles = arith.ceildivui %seq, %c128 : index
  // Causal: key tiles up to and including the diagonal.
  %all_kv = arith.ceildivui %seq, %c128 : index

  %last_q = arith.subi %q_tiles, %c1 : index
  tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) {
    // Causal: the longest rows first (blocks start in order), and key tiles
    // up to and including the diagonal.
    %reversed = arith.subi %last_q, %t : index
    %qt = arith.select %causal, %reversed, %t : index
    %diag = arith.addi %qt, %c1 : index
    %kv_tiles = arith.select %causal, %diag, %all_kv : index
    tile.warp_specialize producer(warpgroups = 1, registers = 24) {
      tile.sem_expect %q_full, %q : !q_tile
      tile.load_async %Q[%b, %h, %qt, %c0] -> %q, %q_full : !qkv, !q_tile
      scf.for %j = %c0 to %kv_tiles step %c1 {
        %s = arith.remui %j, %c2 : index
        %round = arith.divui %j, %c2 : index
        %round_i32 = arith.index_cast %round : index to i32
        %prev = arith.xori %round_i32, %c1_i32 : i32
        %empty_s = tile.slot %kv_empty[%s] : !tile.sem<2>
        tile.sem_wait %empty_s, %prev
        %full_s = tile.slot %kv_full[%s] : !tile.sem<2>
        %k_s = tile.slot %k[%s] : !kv_ring
        %v_s = tile.slot %v[%s] : !kv_ring
        tile.sem_expect %full_s, %k_s, %v_s : !kv_tile, !kv_tile
        tile.load_async %K[%b, %h, %j, %c0] -> %k_s, %full_s : !qkv, !kv_tile
        tile.load_async %V[%b, %h, %j, %c0] -> %v_s, %full_s : !qkv, !kv_tile
      }
    } consumer(warpgroups = 2, registers = 240) {
      %wg = tile.warpgroup_id
      %q_wg = tile.subtile %q[%wg, %c0] : !q_tile to !q_half
      // First query row of this warpgroup, and scale · log2(e) for exp2.
      %qt2 = arith.muli %qt, %c2 : index
      %q_tile = arith.addi %qt2, %wg : index
      %q0 = arith.muli %q_tile, %c64 : index
      %log2e = arith.constant 1.44269504 : f32
      %scale2 = arith.mulf %scale, %log2e : f32
      tile.sem_wait %q_full, %c0_i32

      %m0 = tile.fill 0xFFF0000000000000 : !row
      %l0 = tile.fill 0.0 : !row
      %o0 = tile.fill 0.0 : !s
      %m, %l, %o = scf.for %j = %c0 to %kv_tiles step %c1
          iter_args(%m_j = %m0, %l_j = %l0, %o_j = %o0)
          -> (!row, !row, !s) {
        %s = arith.remui %j, %c2 : index
        %round = arith.divui %j, %c2 : index
        %phase = arith.index_cast %round : index to i32
        %full_s = tile.slot %kv_full[%s] : !tile.sem<2>
        tile.sem_wait %full_s, %phase
        %k_s = tile.slot %k[%s] : !kv_ring
        %v_s = tile.slot %v[%s] : !kv_ring

        // S = Q Kᵀ, masked past the sequence end and (if causal) the diagonal.
        %k0 = arith.muli %j, %c128 : index
        %s_raw = tile.mma ABt %q_wg, %k_s : !q_half, !kv_tile -> !s
        // Keys past the end exist only in the last key tile.
        %k_end = arith.addi %k0, %c128 : index
        %tail = arith.cmpi ugt, %k_end, %seq : index
        %s_in = scf.if %tail -> (!s) {
          %bounded = tile.bound_mask %s_raw[%q0, %k0] within [%seq, %seq] fill neg_inf : !s
          scf.yield %bounded : !s
        } else {
          scf.yield %s_raw : !s
        }
        // Only the diagonal key tile crosses the causal boundary.
        %on_diag = arith.cmpi eq, %j, %qt : index
        %needs_mask = arith.andi %causal, %on_diag : i1
        %s_ij = scf.if %needs_mask -> (!s) {
          %masked = tile.causal_mask %s_in[%q0, %k0] fill neg_inf : !s
          scf.yield %masked : !s
        } else {
          scf.yield %s_in : !s
        }

        // Online softmax in the log2 domain.
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

        // O = O · alpha + P V, with P as the register A operand.
        %alpha_b = tile.broadcast row %alpha : !row to !s
        %o_scaled = tile.mul %o_j, %alpha_b : !s
        %p16 = tile.cast %p : !s to !p16
        %p_a = tile.convert_layout %p16 : !p16 to !p_a
        %o_new = tile.mma AB %p_a, %v_s, %o_scaled : !p_a, !kv_tile -> !s
        %empty_s = tile.slot %kv_empty[%s] : !tile.sem<2>
        tile.sem_arrive %empty_s
        scf.yield %m_new, %l_new, %o_new : !row, !row, !s
      }

      // O / l, and L = m · scale + log(l) (natural log).
      // One division per row, not per element.
      %ones = tile.fill 1.0 : !row
      %inv_l = tile.div %ones, %l : !row
      %inv_b = tile.broadcast row %inv_l : !row to !s
      %o_norm = tile.mul %o, %inv_b : !s
      %o16 = tile.cast %o_norm : !s to !p16
      tile.store %o16, %O[%b, %h, %q_tile, %c0] : !p16, !qkv
      %log_l = tile.log %l : !row
      %m_nat = tile.mul %m, %scale : !row, f32
      %lse = tile.add %m_nat, %log_l : !row
      tile.store %lse, %L[%b, %h, %q_tile] : !row, !tile.gl<?x?x?xf32>
    }
  }
}
