// Decayed causal linear attention (ThunderKittens' form), head dim 128:
//   o_t = Σ_{s<=t} exp(-(g_{s+1} + ... + g_t)) (q_t·k_s) v_s
// with g the per-step log decay of the head (a slope per head: g_t = slope),
// no feature map, no normaliser; the state after the last position,
//   S = Σ_s exp(-(g_{s+1} + ... + g_T)) k_sᵀ v_s   (128 x 128, f32),
// is stored when `store_state` is true.
//
// One block per (batch, head) walks chunks of 64 positions in order. With
// a = cumsum(g) over the chunk (inclusive), within the chunk the scores
// are q_i·k_j · exp(-(a_i - a_j)) for j <= i (the vector a taken along
// rows and along columns: a row vector converted to a column vector), and
// earlier chunks enter as exp(-a_i) · q_i S; then
//   S = exp(-a_63) S + Kᵀ (w ∘ V),  w_j = exp(-(a_63 - a_j)).
// Past the end of the sequence g reads 0, so a stops there and the state
// is exactly the one after the last position.
//
// The two consumer warpgroups split the value dimension: warpgroup w
// computes o's columns 64w .. 64w+63 and keeps S's columns 64w .. 64w+63
// (two 64 x 64 f32 accumulators for S's two row halves, and a bf16 copy
// in shared memory for the MMAs). Both compute the scores. Views and
// layouts as kernels/linear_attention/linear_attention.mlir (`bshd`, tile-bind); G is
// [heads, seq] f32; S_out is [batch·heads, 128, 128] f32.
!view = !tile.gl<?x?x?xbf16>
!st = !tile.st<64x128xbf16>
!half = !tile.st<64x64xbf16>
!state = !tile.st<128x64xbf16>
!rt16 = !tile.rt<64x64xbf16, warpgroup>
!rt = !tile.rt<64x64xf32, warpgroup>
!vec = !tile.rv<64xf32, warpgroup>

tile.kernel @linear_attention_decay(%Q: !view, %K: !view, %V: !view,
                                    %O: !view, %G: !tile.gl<?x?xf32>,
                                    %S_out: !tile.gl<?x?x?xf32>,
                                    %batch: index, %heads: index, %bshd: i1,
                                    %store_state: i1)
    launch(warpgroups = 2, grid = tiles) {
  %q = tile.alloc : !st
  %k = tile.alloc : !st
  %v = tile.alloc : !st
  %states = tile.alloc : !tile.st<2x128x64xbf16>
  %scaled = tile.alloc : !tile.st<2x64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %seq = tile.dim %Q[1] : !view
  %chunks = arith.ceildivui %seq, %c64 : index

  tile.foreach_tile (%h, %n) in (%heads, %batch) {
    %wg = tile.warpgroup_id
    %nh = arith.muli %n, %heads : index
    %bh = arith.addi %nh, %h : index
    %x = arith.select %bshd, %n, %bh : index
    %y = arith.select %bshd, %h, %c0 : index
    // This warpgroup's 64 value columns, in units of 64-column tiles.
    %y2 = arith.muli %y, %c2 : index
    %yw = arith.addi %y2, %wg : index
    %state = tile.slot %states[%wg] : !tile.st<2x128x64xbf16>
    %s_top_st = tile.subtile %state[%c0, %c0] : !state to !half
    %s_bot_st = tile.subtile %state[%c1, %c0] : !state to !half
    %vw = tile.slot %scaled[%wg] : !tile.st<2x64x64xbf16>
    %s0 = tile.fill 0.0 : !rt
    %s0_16 = tile.cast %s0 : !rt to !rt16
    tile.store %s0_16, %s_top_st : !rt16, !half
    tile.store %s0_16, %s_bot_st : !rt16, !half
    tile.fence async_proxy
    tile.barrier warpgroup
    %top, %bot = scf.for %ch = %c0 to %chunks step %c1
        iter_args(%s_top = %s0, %s_bot = %s0) -> (!rt, !rt) {
      tile.copy %Q[%x, %ch, %y] -> %q : !view, !st
      tile.copy %K[%x, %ch, %y] -> %k : !view, !st
      tile.copy %V[%x, %ch, %y] -> %v : !view, !st
      %g = tile.load %G[%h, %ch] : !tile.gl<?x?xf32> -> !vec
      %a = tile.cumsum %g : !vec
      %a_i = tile.broadcast row %a : !vec to !rt
      %a_j = tile.broadcast col %a : !vec to !rt
      %gap = tile.sub %a_j, %a_i : !rt
      %decay = tile.exp %gap : !rt

      // Within the chunk: (Q Kᵀ ∘ decay, causal) V; earlier chunks:
      // exp(-a_i) · Q S.
      %v_w = tile.subtile %v[%c0, %wg] : !st to !half
      %qk = tile.mma ABt %q, %k : !st, !st -> !rt
      %att = tile.mul %qk, %decay : !rt
      %att_c = tile.causal_mask %att[%c0, %c0] fill zero : !rt
      %att16 = tile.cast %att_c : !rt to !rt16
      %o_in = tile.mma AB %att16, %v_w : !rt16, !half -> !rt
      %qs = tile.mma AB %q, %state : !st, !state -> !rt
      %neg_a = tile.neg %a : !vec
      %grow = tile.exp %neg_a : !vec
      %grow_b = tile.broadcast row %grow : !vec to !rt
      %o_off = tile.mul %qs, %grow_b : !rt
      %o = tile.add %o_in, %o_off : !rt
      %o16 = tile.cast %o : !rt to !rt16
      tile.store %o16, %O[%x, %ch, %yw] : !rt16, !view

      // S = exp(-a_63) S + Kᵀ (w ∘ V), w_j = exp(a_j - a_63).
      %total = tile.vec_reduce sum %g : !vec
      %behind = tile.sub %a, %total : !vec, f32
      %w = tile.exp %behind : !vec
      %w_b = tile.broadcast row %w : !vec to !rt
      %v_r = tile.load %v_w : !half -> !rt16
      %v_f = tile.cast %v_r : !rt16 to !rt
      %v_s = tile.mul %v_f, %w_b : !rt
      %v_s16 = tile.cast %v_s : !rt to !rt16
      tile.store %v_s16, %vw : !rt16, !half
      tile.fence async_proxy
      tile.barrier warpgroup
      %neg_total = arith.negf %total : f32
      %keep = math.exp %neg_total : f32
      %top_d = tile.mul %s_top, %keep : !rt, f32
      %bot_d = tile.mul %s_bot, %keep : !rt, f32
      %k_top = tile.subtile %k[%c0, %c0] : !st to !half
      %k_bot = tile.subtile %k[%c0, %c1] : !st to !half
      %top_new = tile.mma AtB %k_top, %vw, %top_d : !half, !half -> !rt
      %bot_new = tile.mma AtB %k_bot, %vw, %bot_d : !half, !half -> !rt
      %top16 = tile.cast %top_new : !rt to !rt16
      %bot16 = tile.cast %bot_new : !rt to !rt16
      tile.store %top16, %s_top_st : !rt16, !half
      tile.store %bot16, %s_bot_st : !rt16, !half
      tile.fence async_proxy
      tile.barrier warpgroup
      scf.yield %top_new, %bot_new : !rt, !rt
    }
    scf.if %store_state {
      tile.store %top, %S_out[%bh, %c0, %wg] : !rt, !tile.gl<?x?x?xf32>
      tile.store %bot, %S_out[%bh, %c1, %wg] : !rt, !tile.gl<?x?x?xf32>
    }
  }
}
