// Causal linear attention with the feature map φ(x) = elu(x) + 1 and its
// normaliser, head dim 64:
//   o_t = Σ_{s<=t} (φ(q_t)·φ(k_s)) v_s / Σ_{s<=t} φ(q_t)·φ(k_s)
// over chunks of 64 positions: within a chunk as a causal-masked φQ φKᵀ;
// earlier chunks through the state S = Σ φ(k_s)ᵀ v_s (64 x 64, f32 in
// registers, a bf16 copy in shared memory for the MMA) and, for the
// normaliser, Z = Σ φ(k_s)ᵀ 1 (16 equal columns from an MMA against ones)
// and φQ Z, whose columns all hold φ(q_t)·z_t.
//
// One block per (batch, head) walks the chunks in order; two blocks share a
// multiprocessor (`blocks_per_sm = 2`: 95280 bytes of shared memory each, 216
// registers for the consumer, no spills), so one block's chain of MMAs and
// barriers runs while the other's waits (H100, B = H = 16, T = 4096:
// 0.208 ms, 86% of the copy bandwidth, against 0.335 ms with one block per
// multiprocessor). Q, K, V and O are
// [batch·heads, seq, 64] views (`bshd` false: the [batch, heads, seq, 64]
// layout) or [batch, seq, heads·64] (`bshd` true: the [batch, seq, heads,
// 64] layout), so either layout is read in place; tk_mlir compiles the
// program once for each value of `bshd` (tile-bind). The chunk copies are
// plain `tile.copy`s: tile-pipeline turns them into a ring of TMA loads,
// tile-warp-specialize gives them a producer warpgroup, and
// tile-assign-layouts picks the layouts. Past the end of the sequence the
// copies read zeros (φ = 1 there), which only reach rows that are not
// stored: every key past the end lies after every query before it, and its
// zero value row adds nothing to S.
!view = !tile.gl<?x?x?xbf16>
!st = !tile.st<64x64xbf16>
!rt16 = !tile.rt<64x64xbf16, warpgroup>
!rt = !tile.rt<64x64xf32, warpgroup>
!vec = !tile.rv<64xf32, warpgroup>
!z = !tile.rt<64x16xf32, warpgroup>
!z16 = !tile.rt<64x16xbf16, warpgroup>
!zq = !tile.st<64x16xbf16>

tile.kernel @linear_attention(%Q: !view, %K: !view, %V: !view, %O: !view,
                              %batch: index, %heads: index, %bshd: i1)
    launch(warpgroups = 1, grid = tiles, blocks_per_sm = 2) {
  %q = tile.alloc : !st
  %k = tile.alloc : !st
  %v = tile.alloc : !st
  %phi_k = tile.alloc : !st
  %state = tile.alloc : !st
  %zst = tile.alloc : !zq
  %ones = tile.alloc : !zq
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %seq = tile.dim %Q[1] : !view
  %chunks = arith.ceildivui %seq, %c64 : index

  tile.foreach_tile (%h, %n) in (%heads, %batch) {
    // Row block x and column block y of this head in the views.
    %nh = arith.muli %n, %heads : index
    %bh = arith.addi %nh, %h : index
    %x = arith.select %bshd, %n, %bh : index
    %y = arith.select %bshd, %h, %c0 : index
    %s0 = tile.fill 0.0 : !rt
    %s0_16 = tile.cast %s0 : !rt to !rt16
    tile.store %s0_16, %state : !rt16, !st
    %z0 = tile.fill 0.0 : !z
    %z0_16 = tile.cast %z0 : !z to !z16
    tile.store %z0_16, %zst : !z16, !zq
    %ones_r = tile.fill 1.0 : !z16
    tile.store %ones_r, %ones : !z16, !zq
    %s_last, %z_last = scf.for %ch = %c0 to %chunks step %c1
        iter_args(%s = %s0, %z = %z0) -> (!rt, !z) {
      tile.copy %Q[%x, %ch, %y] -> %q : !view, !st
      tile.copy %K[%x, %ch, %y] -> %k : !view, !st
      tile.copy %V[%x, %ch, %y] -> %v : !view, !st
      // φ(x) = max(x, 0) + exp(min(x, 0)), on Q and K.
      %q_r = tile.load %q : !st -> !rt16
      %q_f = tile.cast %q_r : !rt16 to !rt
      %q_pos = tile.max %q_f, %zero : !rt, f32
      %q_neg = tile.min %q_f, %zero : !rt, f32
      %q_exp = tile.exp %q_neg : !rt
      %phi_q = tile.add %q_pos, %q_exp : !rt
      %k_r = tile.load %k : !st -> !rt16
      %k_f = tile.cast %k_r : !rt16 to !rt
      %k_pos = tile.max %k_f, %zero : !rt, f32
      %k_neg = tile.min %k_f, %zero : !rt, f32
      %k_exp = tile.exp %k_neg : !rt
      %phi_k_f = tile.add %k_pos, %k_exp : !rt
      %phi_k16 = tile.cast %phi_k_f : !rt to !rt16
      tile.store %phi_k16, %phi_k : !rt16, !st
      tile.fence async_proxy
      tile.barrier warpgroup

      // Within the chunk: causal φQ φKᵀ, applied to V and summed for the
      // normaliser; earlier chunks: φQ S and φQ · z.
      %phi_q16 = tile.cast %phi_q : !rt to !rt16
      %att = tile.mma ABt %phi_q16, %phi_k : !rt16, !st -> !rt
      %att_c = tile.causal_mask %att[%c0, %c0] fill zero : !rt
      %att16 = tile.cast %att_c : !rt to !rt16
      %num_in = tile.mma AB %att16, %v : !rt16, !st -> !rt
      %num = tile.mma AB %phi_q16, %state, %num_in : !rt16, !st -> !rt
      %qz = tile.mma AB %phi_q16, %zst : !rt16, !zq -> !z
      %den_off = tile.row_max %qz : !z -> !vec
      %den = tile.row_sum %att_c, %den_off : !rt -> !vec
      %den_b = tile.broadcast row %den : !vec to !rt
      %o = tile.div %num, %den_b : !rt
      %o16 = tile.cast %o : !rt to !rt16
      tile.store %o16, %O[%x, %ch, %y] : !rt16, !view

      // S += φKᵀ V; Z += φKᵀ 1.
      %s_new = tile.mma AtB %phi_k, %v, %s : !st, !st -> !rt
      %z_new = tile.mma AtB %phi_k, %ones, %z : !st, !zq -> !z
      %s16 = tile.cast %s_new : !rt to !rt16
      tile.store %s16, %state : !rt16, !st
      %z16 = tile.cast %z_new : !z to !z16
      tile.store %z16, %zst : !z16, !zq
      tile.fence async_proxy
      tile.barrier warpgroup
      scf.yield %s_new, %z_new : !rt, !z
    }
  }
}
