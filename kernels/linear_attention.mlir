// Causal linear attention, chunked, with the feature map φ(x) = elu(x) + 1:
//   o_t = Σ_{s<=t} (φ(q_t)·φ(k_s)) v_s / Σ_{s<=t} φ(q_t)·φ(k_s)
// computed over chunks of 64 positions: within a chunk as a causal-masked
// φQ φKᵀ; earlier chunks through the state S = Σ φ(k_s)ᵀ v_s (64 x 64) and
// z = Σ φ(k_s). Q, K, V, O: [batch, heads, seq, 64] bf16. Register layouts
// and shared swizzles are left to tile-assign-layouts. Past the end, keys
// load as zeros and only ever reach masked or discarded results.
tile.kernel @linear_attention(%Q: !tile.gl<?x?x?x64xbf16>, %K: !tile.gl<?x?x?x64xbf16>,
                              %V: !tile.gl<?x?x?x64xbf16>, %O: !tile.gl<?x?x?x64xbf16>)
    launch(warpgroups = 1, grid = tiles) {
  %q = tile.alloc : !tile.st<64x64xbf16>
  %k = tile.alloc : !tile.st<64x64xbf16>
  %v = tile.alloc : !tile.st<64x64xbf16>
  %phi_k = tile.alloc : !tile.st<64x64xbf16>
  %state = tile.alloc : !tile.st<64x64xbf16>
  %ready = tile.alloc : !tile.sem
  tile.sem_init %ready, 1 : !tile.sem
  tile.fence sem_init
  tile.barrier block

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %batch = tile.dim %Q[0] : !tile.gl<?x?x?x64xbf16>
  %heads = tile.dim %Q[1] : !tile.gl<?x?x?x64xbf16>
  %seq = tile.dim %Q[2] : !tile.gl<?x?x?x64xbf16>
  %chunks = arith.ceildivui %seq, %c64 : index

  tile.foreach_tile (%h, %n) in (%heads, %batch) {
    %s0 = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup>
    %s0_16 = tile.cast %s0 : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
    tile.store %s0_16, %state : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16>
    %z0 = tile.fill 0.0 : !tile.rv<64xf32, warpgroup>
    %s_last, %z_last = scf.for %ch = %c0 to %chunks step %c1 iter_args(%s = %s0, %z = %z0)
        -> (!tile.rt<64x64xf32, warpgroup>, !tile.rv<64xf32, warpgroup>) {
      tile.fence async_proxy
      tile.barrier warpgroup
      tile.sem_expect %ready, %q, %k, %v : !tile.st<64x64xbf16>, !tile.st<64x64xbf16>, !tile.st<64x64xbf16>
      tile.load_async %Q[%n, %h, %ch, %c0] -> %q, %ready : !tile.gl<?x?x?x64xbf16>, !tile.st<64x64xbf16>
      tile.load_async %K[%n, %h, %ch, %c0] -> %k, %ready : !tile.gl<?x?x?x64xbf16>, !tile.st<64x64xbf16>
      tile.load_async %V[%n, %h, %ch, %c0] -> %v, %ready : !tile.gl<?x?x?x64xbf16>, !tile.st<64x64xbf16>
      %phase = arith.index_cast %ch : index to i32
      tile.sem_wait %ready, %phase

      // φ(x) = max(x, 0) + exp(min(x, 0)), on Q and K.
      %q_r = tile.load %q : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
      %q_f = tile.cast %q_r : !tile.rt<64x64xbf16, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %q_pos = tile.max %q_f, %zero : !tile.rt<64x64xf32, warpgroup>, f32
      %q_neg = tile.min %q_f, %zero : !tile.rt<64x64xf32, warpgroup>, f32
      %q_exp = tile.exp %q_neg : !tile.rt<64x64xf32, warpgroup>
      %phi_q = tile.add %q_pos, %q_exp : !tile.rt<64x64xf32, warpgroup>
      %k_r = tile.load %k : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
      %k_f = tile.cast %k_r : !tile.rt<64x64xbf16, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %k_pos = tile.max %k_f, %zero : !tile.rt<64x64xf32, warpgroup>, f32
      %k_neg = tile.min %k_f, %zero : !tile.rt<64x64xf32, warpgroup>, f32
      %k_exp = tile.exp %k_neg : !tile.rt<64x64xf32, warpgroup>
      %phi_k_f = tile.add %k_pos, %k_exp : !tile.rt<64x64xf32, warpgroup>
      %phi_k16 = tile.cast %phi_k_f : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
      tile.store %phi_k16, %phi_k : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16>
      tile.fence async_proxy
      tile.barrier warpgroup

      // Within the chunk: causal φQ φKᵀ, applied to V and summed for the normaliser.
      %phi_q16 = tile.cast %phi_q : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
      %att = tile.mma ABt %phi_q16, %phi_k : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
      %att_c = tile.causal_mask %att[%c0, %c0] fill zero : !tile.rt<64x64xf32, warpgroup>
      %att16 = tile.cast %att_c : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
      %num_in = tile.mma AB %att16, %v : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
      %den_in = tile.row_sum %att_c : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>

      // Earlier chunks: φQ S and φQ · z.
      %num = tile.mma AB %phi_q16, %state, %num_in : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
      %z_b = tile.broadcast col %z : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %qz = tile.mul %phi_q, %z_b : !tile.rt<64x64xf32, warpgroup>
      %den = tile.row_sum %qz, %den_in : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
      %den_b = tile.broadcast row %den : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %o = tile.div %num, %den_b : !tile.rt<64x64xf32, warpgroup>
      %o16 = tile.cast %o : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
      tile.store %o16, %O[%n, %h, %ch, %c0] : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?x?x64xbf16>

      // S += φKᵀ V; z += column sums of φK.
      %s_new = tile.mma AtB %phi_k, %v, %s : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
      %z_new = tile.col_sum %phi_k_f, %z : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
      %s16 = tile.cast %s_new : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
      tile.store %s16, %state : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16>
      scf.yield %s_new, %z_new : !tile.rt<64x64xf32, warpgroup>, !tile.rv<64xf32, warpgroup>
    }
  }
}
