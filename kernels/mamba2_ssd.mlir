// Mamba2 SSD, chunked scan. Per (batch, head), over chunks of 64 positions:
//   acum = cumsum(dA)                       (dA = dt · A, log decay)
//   Y    = ((C Bᵀ) ∘ exp(acum_i - acum_j) ∘ dt_j, causal) X   within the chunk
//        + exp(acum_i) · (C S)                                from earlier chunks
//   S'   = exp(Σ dA) S + Bᵀ (exp(Σ dA - acum_t) dt_t X_t)      carried state (N x P)
// X, Y: [batch, heads, seq, 64] bf16 (P = 64); B, C: [batch, heads, seq, 64]
// bf16 (N = 64); dA, dt: [batch, heads, seq] f32; S_out: final states.
// Register layouts and shared swizzles are left to tile-assign-layouts.
// Positions past the end load as zeros (dt = 0), so they change nothing.
tile.kernel @mamba2_ssd(%X: !tile.gl<?x?x?x64xbf16>, %B: !tile.gl<?x?x?x64xbf16>,
                        %C: !tile.gl<?x?x?x64xbf16>, %dA: !tile.gl<?x?x?xf32>,
                        %dt: !tile.gl<?x?x?xf32>, %Y: !tile.gl<?x?x?x64xbf16>,
                        %S_out: !tile.gl<?x?x64x64xf32>)
    launch(warpgroups = 1, grid = tiles) {
  %x = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c = tile.alloc : !tile.st<64x64xbf16>
  %xw = tile.alloc : !tile.st<64x64xbf16>
  %state = tile.alloc : !tile.st<64x64xbf16>
  %ready = tile.alloc : !tile.sem
  tile.sem_init %ready, 1 : !tile.sem
  tile.fence sem_init
  tile.barrier block

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %batch = tile.dim %X[0] : !tile.gl<?x?x?x64xbf16>
  %heads = tile.dim %X[1] : !tile.gl<?x?x?x64xbf16>
  %seq = tile.dim %X[2] : !tile.gl<?x?x?x64xbf16>
  %chunks = arith.ceildivui %seq, %c64 : index

  tile.foreach_tile (%h, %n) in (%heads, %batch) {
    %s0 = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup>
    %s0_16 = tile.cast %s0 : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
    tile.store %s0_16, %state : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16>
    %s_final = scf.for %ch = %c0 to %chunks step %c1 iter_args(%s = %s0)
        -> (!tile.rt<64x64xf32, warpgroup>) {
      // Everyone is done with the last chunk's buffers before TMA refills them.
      tile.fence async_proxy
      tile.barrier warpgroup
      tile.sem_expect %ready, %x, %b, %c : !tile.st<64x64xbf16>, !tile.st<64x64xbf16>, !tile.st<64x64xbf16>
      tile.load_async %X[%n, %h, %ch, %c0] -> %x, %ready : !tile.gl<?x?x?x64xbf16>, !tile.st<64x64xbf16>
      tile.load_async %B[%n, %h, %ch, %c0] -> %b, %ready : !tile.gl<?x?x?x64xbf16>, !tile.st<64x64xbf16>
      tile.load_async %C[%n, %h, %ch, %c0] -> %c, %ready : !tile.gl<?x?x?x64xbf16>, !tile.st<64x64xbf16>
      %a = tile.load %dA[%n, %h, %ch] : !tile.gl<?x?x?xf32> -> !tile.rv<64xf32, warpgroup>
      %dtv = tile.load %dt[%n, %h, %ch] : !tile.gl<?x?x?xf32> -> !tile.rv<64xf32, warpgroup>
      %phase = arith.index_cast %ch : index to i32
      tile.sem_wait %ready, %phase

      // Decay between positions i >= j of the chunk: exp(acum_i - acum_j).
      %acum = tile.cumsum %a : !tile.rv<64xf32, warpgroup>
      %acum_i = tile.broadcast row %acum : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %acum_j = tile.broadcast col %acum : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %gap = tile.sub %acum_i, %acum_j : !tile.rt<64x64xf32, warpgroup>
      %decay = tile.exp %gap : !tile.rt<64x64xf32, warpgroup>

      // Within the chunk: Y_diag = (C Bᵀ ∘ decay ∘ dt_j, causal) X.
      %cb = tile.mma ABt %c, %b : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
      %g = tile.mul %cb, %decay : !tile.rt<64x64xf32, warpgroup>
      %dt_j = tile.broadcast col %dtv : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %g_dt = tile.mul %g, %dt_j : !tile.rt<64x64xf32, warpgroup>
      %g_causal = tile.causal_mask %g_dt[%c0, %c0] fill zero : !tile.rt<64x64xf32, warpgroup>
      %g16 = tile.cast %g_causal : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
      %y_diag = tile.mma AB %g16, %x : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>

      // From earlier chunks: Y_off = exp(acum_i) · (C S).
      %cs = tile.mma AB %c, %state : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
      %grow = tile.exp %acum : !tile.rv<64xf32, warpgroup>
      %grow_i = tile.broadcast row %grow : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %y_off = tile.mul %cs, %grow_i : !tile.rt<64x64xf32, warpgroup>
      %y = tile.add %y_diag, %y_off : !tile.rt<64x64xf32, warpgroup>
      %y16 = tile.cast %y : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
      tile.store %y16, %Y[%n, %h, %ch, %c0] : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?x?x64xbf16>

      // State: S' = exp(total) S + Bᵀ (w ∘ X) with w_t = exp(total - acum_t) dt_t.
      %total = tile.vec_reduce sum %a : !tile.rv<64xf32, warpgroup>
      %behind = tile.sub %acum, %total : !tile.rv<64xf32, warpgroup>, f32
      %ahead = tile.neg %behind : !tile.rv<64xf32, warpgroup>
      %w_decay = tile.exp %ahead : !tile.rv<64xf32, warpgroup>
      %w = tile.mul %w_decay, %dtv : !tile.rv<64xf32, warpgroup>
      %x_r = tile.load %x : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
      %x_f = tile.cast %x_r : !tile.rt<64x64xbf16, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %w_t = tile.broadcast row %w : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
      %xw_f = tile.mul %x_f, %w_t : !tile.rt<64x64xf32, warpgroup>
      %xw16 = tile.cast %xw_f : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
      tile.store %xw16, %xw : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16>
      tile.fence async_proxy
      tile.barrier warpgroup
      %chunk_decay = math.exp %total : f32
      %s_decayed = tile.mul %s, %chunk_decay : !tile.rt<64x64xf32, warpgroup>, f32
      %s_new = tile.mma AtB %b, %xw, %s_decayed : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
      %s16 = tile.cast %s_new : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
      tile.store %s16, %state : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16>
      scf.yield %s_new : !tile.rt<64x64xf32, warpgroup>
    }
    tile.store %s_final, %S_out[%n, %h, %c0, %c0] : !tile.rt<64x64xf32, warpgroup>, !tile.gl<?x?x64x64xf32>
  }
}
