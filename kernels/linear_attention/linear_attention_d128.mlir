// Causal linear attention with the feature map φ(x) = elu(x) + 1 and its
// normaliser, head dim 128: kernels/linear_attention/linear_attention.mlir's math,
//   o_t = Σ_{s<=t} (φ(q_t)·φ(k_s)) v_s / Σ_{s<=t} φ(q_t)·φ(k_s),
// with the state S = Σ φ(k_s)ᵀ v_s (128 x 128) split over two consumer
// warpgroups by value columns, as kernels/linear_attention/linear_attention_decay.mlir
// does: warpgroup w computes o's columns 64w .. 64w+63 and keeps S's
// columns 64w .. 64w+63 (two 64 x 64 f32 accumulators for its row halves,
// a bf16 copy in shared memory for the MMAs). Both compute φQ φKᵀ and the
// normaliser, each into its own φK buffer, so neither waits for the other.
// The normaliser's earlier chunks come out of the tensor cores:
// Z = Σ φ(k_s)ᵀ 1 (16 equal columns, MMAs against ones) and φQ Z, whose
// columns all hold φ(q_t)·z_t; kept as a vector of column sums (128
// registers' worth of f32 per thread for φQ ∘ z and 32 for z) the step
// spilled 0.8 KiB per thread. Views and layouts as
// kernels/linear_attention/linear_attention.mlir (`bshd`, tile-bind).
!view = !tile.gl<?x?x?xbf16>
!st = !tile.st<64x128xbf16>
!half = !tile.st<64x64xbf16>
!state = !tile.st<128x64xbf16>
!wide16 = !tile.rt<64x128xbf16, warpgroup>
!wide = !tile.rt<64x128xf32, warpgroup>
!rt16 = !tile.rt<64x64xbf16, warpgroup>
!rt = !tile.rt<64x64xf32, warpgroup>
!rows = !tile.rv<64xf32, warpgroup>
!z = !tile.rt<64x16xf32, warpgroup>
!z16 = !tile.rt<64x16xbf16, warpgroup>
!zq = !tile.st<64x16xbf16>

tile.kernel @linear_attention_d128(%Q: !view, %K: !view, %V: !view,
                                   %O: !view, %batch: index, %heads: index,
                                   %bshd: i1)
    launch(warpgroups = 2, grid = tiles) {
  %q = tile.alloc : !st
  %k = tile.alloc : !st
  %v = tile.alloc : !st
  %phi_ks = tile.alloc : !tile.st<2x64x128xbf16>
  %states = tile.alloc : !tile.st<2x128x64xbf16>
  %zs = tile.alloc : !tile.st<2x128x16xbf16>
  %ones = tile.alloc : !zq
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %seq = tile.dim %Q[1] : !view
  %chunks = arith.ceildivui %seq, %c64 : index

  tile.foreach_tile (%h, %n) in (%heads, %batch) {
    %wg = tile.warpgroup_id
    %nh = arith.muli %n, %heads : index
    %bh = arith.addi %nh, %h : index
    %x = arith.select %bshd, %n, %bh : index
    %y = arith.select %bshd, %h, %c0 : index
    %y2 = arith.muli %y, %c2 : index
    %yw = arith.addi %y2, %wg : index
    %phi_k = tile.slot %phi_ks[%wg] : !tile.st<2x64x128xbf16>
    %state = tile.slot %states[%wg] : !tile.st<2x128x64xbf16>
    %s_top_st = tile.subtile %state[%c0, %c0] : !state to !half
    %s_bot_st = tile.subtile %state[%c1, %c0] : !state to !half
    %zst = tile.slot %zs[%wg] : !tile.st<2x128x16xbf16>
    %z_top_st = tile.subtile %zst[%c0, %c0] : !tile.st<128x16xbf16> to !zq
    %z_bot_st = tile.subtile %zst[%c1, %c0] : !tile.st<128x16xbf16> to !zq
    %z0 = tile.fill 0.0 : !z
    %z0_16 = tile.cast %z0 : !z to !z16
    tile.store %z0_16, %z_top_st : !z16, !zq
    tile.store %z0_16, %z_bot_st : !z16, !zq
    %ones_r = tile.fill 1.0 : !z16
    tile.store %ones_r, %ones : !z16, !zq
    %s0 = tile.fill 0.0 : !rt
    %s0_16 = tile.cast %s0 : !rt to !rt16
    tile.store %s0_16, %s_top_st : !rt16, !half
    tile.store %s0_16, %s_bot_st : !rt16, !half
    tile.fence async_proxy
    tile.barrier warpgroup
    %top, %bot, %zt_last, %zb_last = scf.for %ch = %c0 to %chunks step %c1
        iter_args(%s_top = %s0, %s_bot = %s0, %z_top = %z0, %z_bot = %z0)
        -> (!rt, !rt, !z, !z) {
      tile.copy %Q[%x, %ch, %y] -> %q : !view, !st
      tile.copy %K[%x, %ch, %y] -> %k : !view, !st
      tile.copy %V[%x, %ch, %y] -> %v : !view, !st
      // φ(x) = max(x, 0) + exp(min(x, 0)); φK into this warpgroup's
      // buffer.
      %k_r = tile.load %k : !st -> !wide16
      %k_f = tile.cast %k_r : !wide16 to !wide
      %k_pos = tile.max %k_f, %zero : !wide, f32
      %k_neg = tile.min %k_f, %zero : !wide, f32
      %k_exp = tile.exp %k_neg : !wide
      %phi_k_f = tile.add %k_pos, %k_exp : !wide
      %phi_k16 = tile.cast %phi_k_f : !wide to !wide16
      tile.store %phi_k16, %phi_k : !wide16, !st
      tile.fence async_proxy
      tile.barrier warpgroup
      %q_r = tile.load %q : !st -> !wide16
      %q_f = tile.cast %q_r : !wide16 to !wide
      %q_pos = tile.max %q_f, %zero : !wide, f32
      %q_neg = tile.min %q_f, %zero : !wide, f32
      %q_exp = tile.exp %q_neg : !wide
      %phi_q = tile.add %q_pos, %q_exp : !wide
      %phi_q16 = tile.cast %phi_q : !wide to !wide16
      %qz = tile.mma AB %phi_q16, %zst : !wide16, !tile.st<128x16xbf16> -> !z
      %den_off = tile.row_max %qz : !z -> !rows

      // Within the chunk: causal φQ φKᵀ, applied to V and summed for the
      // normaliser; earlier chunks: φQ S and φQ · z.
      %v_w = tile.subtile %v[%c0, %wg] : !st to !half
      %att = tile.mma ABt %phi_q16, %phi_k : !wide16, !st -> !rt
      %att_c = tile.causal_mask %att[%c0, %c0] fill zero : !rt
      %att16 = tile.cast %att_c : !rt to !rt16
      %num_in = tile.mma AB %att16, %v_w : !rt16, !half -> !rt
      %num = tile.mma AB %phi_q16, %state, %num_in : !wide16, !state -> !rt
      %den = tile.row_sum %att_c, %den_off : !rt -> !rows
      %den_b = tile.broadcast row %den : !rows to !rt
      %o = tile.div %num, %den_b : !rt
      %o16 = tile.cast %o : !rt to !rt16
      tile.store %o16, %O[%x, %ch, %yw] : !rt16, !view

      // S += φKᵀ V, this warpgroup's columns, by row halves; Z += φKᵀ 1.
      %k_top = tile.subtile %phi_k[%c0, %c0] : !st to !half
      %k_bot = tile.subtile %phi_k[%c0, %c1] : !st to !half
      %top_new = tile.mma AtB %k_top, %v_w, %s_top : !half, !half -> !rt
      %bot_new = tile.mma AtB %k_bot, %v_w, %s_bot : !half, !half -> !rt
      %zt_new = tile.mma AtB %k_top, %ones, %z_top : !half, !zq -> !z
      %zb_new = tile.mma AtB %k_bot, %ones, %z_bot : !half, !zq -> !z
      %zt16 = tile.cast %zt_new : !z to !z16
      %zb16 = tile.cast %zb_new : !z to !z16
      tile.store %zt16, %z_top_st : !z16, !zq
      tile.store %zb16, %z_bot_st : !z16, !zq
      %top16 = tile.cast %top_new : !rt to !rt16
      %bot16 = tile.cast %bot_new : !rt to !rt16
      tile.store %top16, %s_top_st : !rt16, !half
      tile.store %bot16, %s_bot_st : !rt16, !half
      tile.fence async_proxy
      tile.barrier warpgroup
      scf.yield %top_new, %bot_new, %zt_new, %zb_new : !rt, !rt, !z, !z
    }
  }
}
