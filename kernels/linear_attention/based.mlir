// Based: causal linear attention with the second-order Taylor feature map
// (feature dim 16, value dim 64), as FLA's parallel_based defines it:
//   s_ts = (q_t / 4)·k_s,  a_ts = 1 + s_ts + s_ts² / 2   (s <= t)
//   o_t  = Σ_s a_ts v_s   [ / (Σ_s a_ts + 1e-6)  with `normalize` ]
// a_ts = φ(q_t)·φ(k_s) for φ(x) = [1, x, (x ⊗ x) / √2] (273 features). Over
// chunks of 64 positions: within a chunk the masked a (a 64 x 64 tile from
// one k16 MMA) times V; earlier chunks through states kept on chip,
//   S1 = Σ kbᵀ v,  S2 = Σ (k ⊗ k)ᵀ v,  o += qb S1 + (q/4 ⊗ q/4)(½ S2),
// with qb = [q/4, 1/16 ...] and kb = [k, 1 ...], the first 32 columns of
// shared tiles whose columns 16..31 hold the constants: qb·kb = s + 1, so
// S1's rows 16..31 sum v and qb S1 adds Σ v. The normaliser comes from the
// same columns: a = ½ + ½ (qb·kb)², so the earlier chunks' Σ a is
// ½ qbᵀ M qb + ½ (positions) with M = Σ kbᵀ kb (32 x 32), one MMA for M
// and one for M qb per chunk instead of a 256-column Σ (k ⊗ k) and
// cross-warp column sums.
//
// One block per 32 value columns of a (batch, head): its one consumer
// warpgroup keeps those columns of S1 and S2 and all of M in f32 registers
// (96), with bf16 copies in shared memory for the MMAs (S2's halved: the ½
// of the second-order term, so q ⊗ q needs no scaling), and forms k ⊗ k,
// then q ⊗ q, in one 64 x 256 shared buffer. 95280 bytes of shared memory
// and 216 registers let two blocks share a multiprocessor, so one block's
// chain of MMAs, shuffles and barriers runs while the other's waits (H100,
// B = H = 16, T = 4096, normalised: 0.481 ms against 0.793 for two consumer
// warpgroups splitting the columns of one block; docs/performance.md has
// the other measured steps). The state MMAs are issued with the scores and
// qb S1 and run while a is formed.
//
// Precision: like S1's and S2's other rows, Σ v reaches o through S1's
// bf16 copy, and M reaches the normaliser through its own (the position
// count there, 64 · chunk, is exact below 16384 positions; past them it
// rounds to 8 significant bits). The GPU checks' largest error is 0.62% of the
// output's largest magnitude (float64 reference, T up to 16384).
//
// Views: Q, K [rows, seq, 16·c] and V, O [rows, seq, 64·c] bf16, with
// (rows, c) = (batch·heads, 1) in layout bhsd and (batch, heads) in bshd.
// The tile space is O's 32-column tiles by its rows, so one program serves
// both layouts: block (j, x) reads q and k column tile j / 2 and v, o
// column tile j of row x. tk_mlir compiles it once per value of
// `normalize` (tile-bind), which drops M's MMAs and the normaliser when not
// normalising (M's buffer and the store of its zeros stay).
!view = !tile.gl<?x?x?xbf16>
!qk = !tile.st<64x16xbf16>
!pad = !tile.st<64x64xbf16>
!w32 = !tile.st<64x32xbf16>
!h32 = !tile.st<32x32xbf16>
!x2 = !tile.st<64x256xbf16>
!x2q = !tile.st<64x64xbf16>
!s2 = !tile.st<256x32xbf16>
!f16x = !tile.rt<64x16xf32, warpgroup>
!b16x = !tile.rt<64x16xbf16, warpgroup>
!wide16 = !tile.rt<64x256xbf16, warpgroup>
!sq = !tile.rt<64x64xf32, warpgroup>
!sq16 = !tile.rt<64x64xbf16, warpgroup>
!o = !tile.rt<64x32xf32, warpgroup>
!o16 = !tile.rt<64x32xbf16, warpgroup>
!rows = !tile.rv<64xf32, warpgroup>

tile.kernel @based(%Q: !view, %K: !view, %V: !view, %O: !view,
                   %normalize: i1)
    launch(warpgroups = 1, grid = tiles, blocks_per_sm = 2) {
  %q = tile.alloc : !qk
  %k = tile.alloc : !qk
  %v = tile.alloc : !w32
  %qb = tile.alloc : !w32
  %kpad = tile.alloc : !pad
  %x2 = tile.alloc : !x2
  %s1 = tile.alloc : !w32
  %s2 = tile.alloc : !s2
  %mb = tile.alloc : !w32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %quarter = arith.constant 0.25 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %seq = tile.dim %Q[1] : !view
  %rows = tile.dim %O[0] : !view
  %width = tile.dim %O[2] : !view
  %halves = arith.ceildivui %width, %c32 : index
  %chunks = arith.ceildivui %seq, %c64 : index

  tile.foreach_tile (%j, %x) in (%halves, %rows) {
    %y = arith.divui %j, %c2 : index
    // qb = [q/4 | 1/16 ...], kb = [k | 1 ...] (kpad's columns 32..63 zero).
    %q16 = tile.subtile %qb[%c0, %c0] : !w32 to !qk
    %qone = tile.subtile %qb[%c0, %c1] : !w32 to !qk
    %k16 = tile.subtile %kpad[%c0, %c0] : !pad to !qk
    %kone = tile.subtile %kpad[%c0, %c1] : !pad to !qk
    %kb = tile.subtile %kpad[%c0, %c0] : !pad to !w32
    %kz = tile.subtile %kpad[%c0, %c1] : !pad to !w32
    %s1b = tile.subtile %s1[%c0, %c0] : !w32 to !h32
    %mbb = tile.subtile %mb[%c0, %c0] : !w32 to !h32
    %s2_0 = tile.subtile %s2[%c0, %c0] : !s2 to !w32
    %s2_1 = tile.subtile %s2[%c1, %c0] : !s2 to !w32
    %s2_2 = tile.subtile %s2[%c2, %c0] : !s2 to !w32
    %s2_3 = tile.subtile %s2[%c3, %c0] : !s2 to !w32
    %x2_0 = tile.subtile %x2[%c0, %c0] : !x2 to !x2q
    %x2_1 = tile.subtile %x2[%c0, %c1] : !x2 to !x2q
    %x2_2 = tile.subtile %x2[%c0, %c2] : !x2 to !x2q
    %x2_3 = tile.subtile %x2[%c0, %c3] : !x2 to !x2q
    // Zero states; the constant columns of qb and kb.
    %zero_o = tile.fill 0.0 : !o
    %zero_o16 = tile.fill 0.0 : !o16
    tile.store %zero_o16, %kz : !o16, !w32
    tile.store %zero_o16, %s1 : !o16, !w32
    tile.store %zero_o16, %mb : !o16, !w32
    tile.store %zero_o16, %s2_0 : !o16, !w32
    tile.store %zero_o16, %s2_1 : !o16, !w32
    tile.store %zero_o16, %s2_2 : !o16, !w32
    tile.store %zero_o16, %s2_3 : !o16, !w32
    %ones = tile.fill 1.0 : !b16x
    tile.store %ones, %kone : !b16x, !qk
    %sixteenth = tile.fill 0.0625 : !b16x
    tile.store %sixteenth, %qone : !b16x, !qk
    %r:6 = scf.for %ch = %c0 to %chunks step %c1
        iter_args(%a1 = %zero_o, %b0 = %zero_o, %b1 = %zero_o, %b2 = %zero_o,
                  %b3 = %zero_o, %m = %zero_o)
        -> (!o, !o, !o, !o, !o, !o) {
      tile.copy %Q[%x, %ch, %y] -> %q : !view, !qk
      tile.copy %K[%x, %ch, %y] -> %k : !view, !qk
      tile.copy %V[%x, %ch, %j] -> %v : !view, !w32
      %q_r = tile.load %q : !qk -> !b16x
      %q_f = tile.cast %q_r : !b16x to !f16x
      %qs = tile.mul %q_f, %quarter : !f16x, f32
      %qs16 = tile.cast %qs : !f16x to !b16x
      tile.store %qs16, %q16 : !b16x, !qk
      %k_r = tile.load %k : !qk -> !b16x
      tile.store %k_r, %k16 : !b16x, !qk
      // k ⊗ k for the state MMAs. In bf16: a product of two bf16 values is
      // exact in f32, so rounding it once gives what the f32 product cast
      // to bf16 would.
      %kk16 = tile.outer %k_r, %k_r : !b16x, !b16x -> !wide16
      tile.store %kk16, %x2 : !wide16, !x2
      tile.fence async_proxy
      tile.barrier warpgroup

      // States: S1 += kbᵀ v, S2 += (k ⊗ k)ᵀ v, M += kbᵀ kb, issued with
      // the scores and q S1 and left running while a is formed.
      %qk = tile.mma_async ABt %q, %k : !qk, !qk -> !sq
      %a1_new = tile.mma_async AtB %kpad, %v, %a1 : !pad, !w32 -> !o
      %b0_new = tile.mma_async AtB %x2_0, %v, %b0 : !x2q, !w32 -> !o
      %b1_new = tile.mma_async AtB %x2_1, %v, %b1 : !x2q, !w32 -> !o
      %b2_new = tile.mma_async AtB %x2_2, %v, %b2 : !x2q, !w32 -> !o
      %b3_new = tile.mma_async AtB %x2_3, %v, %b3 : !x2q, !w32 -> !o
      %o_1 = tile.mma_async AB %qb, %s1b : !w32, !h32 -> !o
      tile.mma_wait 6
      // Within the chunk: a = 1 + s + s² / 2, causal, times V.
      %s = tile.mul %qk, %quarter : !sq, f32
      %s_h = tile.mul %s, %half : !sq, f32
      %s_h1 = tile.add %s_h, %one : !sq, f32
      %s_sq = tile.mul %s, %s_h1 : !sq
      %a = tile.add %s_sq, %one : !sq, f32
      %a_c = tile.causal_mask %a[%c0, %c0] fill zero : !sq
      %a16 = tile.cast %a_c : !sq to !sq16
      %o_in = tile.mma_async AB %a16, %v, %o_1 : !sq16, !w32 -> !o
      tile.mma_wait 0
      // Earlier chunks' second order: q ⊗ q replaces k ⊗ k. The barrier is
      // conservative: a warp's wait already covers the warpgroup's wgmma
      // reads (the state copies below rely on that).
      tile.barrier warpgroup
      %qq16 = tile.outer %qs16, %qs16 : !b16x, !b16x -> !wide16
      tile.store %qq16, %x2 : !wide16, !x2
      tile.fence async_proxy
      tile.barrier warpgroup
      %o_2 = tile.mma_async AB %x2, %s2, %o_in : !x2, !s2 -> !o
      %o_out, %m_new = scf.if %normalize -> (!o, !o) {
        // Σ a: this chunk's row sums, earlier chunks' ½ qbᵀ M qb + ½ 64 ch.
        %zq = tile.mma_async AB %qb, %mbb : !w32, !h32 -> !o
        %mm = tile.mma_async AtB %kpad, %kb, %m : !pad, !w32 -> !o
        tile.mma_wait 0
        %den_in = tile.row_sum %a_c : !sq -> !rows
        %qb_r = tile.load %qb : !w32 -> !o16
        %qb_f = tile.cast %qb_r : !o16 to !o
        %quad = tile.mul %qb_f, %zq : !o
        %den_q = tile.row_sum %quad : !o -> !rows
        %den_h = tile.mul %den_q, %half : !rows, f32
        %ch32 = arith.muli %ch, %c32 : index
        %ch_i = arith.index_cast %ch32 : index to i64
        %before = arith.uitofp %ch_i : i64 to f32
        %before_eps = arith.addf %before, %eps : f32
        %den_a = tile.add %den_in, %den_h : !rows
        %den_b = tile.add %den_a, %before_eps : !rows, f32
        %ones_r = tile.fill 1.0 : !rows
        %inv = tile.div %ones_r, %den_b : !rows
        %inv_b = tile.broadcast row %inv : !rows to !o
        %o_n = tile.mul %o_2, %inv_b : !o
        scf.yield %o_n, %mm : !o, !o
      } else {
        tile.mma_wait 0
        scf.yield %o_2, %m : !o, !o
      }
      %o16 = tile.cast %o_out : !o to !o16
      tile.store %o16, %O[%x, %ch, %j] : !o16, !view

      // The states' bf16 copies for the next chunk's MMAs.
      %a1_16 = tile.cast %a1_new : !o to !o16
      tile.store %a1_16, %s1 : !o16, !w32
      %b0_h = tile.mul %b0_new, %half : !o, f32
      %b0_16 = tile.cast %b0_h : !o to !o16
      tile.store %b0_16, %s2_0 : !o16, !w32
      %b1_h = tile.mul %b1_new, %half : !o, f32
      %b1_16 = tile.cast %b1_h : !o to !o16
      tile.store %b1_16, %s2_1 : !o16, !w32
      %b2_h = tile.mul %b2_new, %half : !o, f32
      %b2_16 = tile.cast %b2_h : !o to !o16
      tile.store %b2_16, %s2_2 : !o16, !w32
      %b3_h = tile.mul %b3_new, %half : !o, f32
      %b3_16 = tile.cast %b3_h : !o to !o16
      tile.store %b3_16, %s2_3 : !o16, !w32
      %m16 = tile.cast %m_new : !o to !o16
      tile.store %m16, %mb : !o16, !w32
      tile.fence async_proxy
      tile.barrier warpgroup
      scf.yield %a1_new, %b0_new, %b1_new, %b2_new, %b3_new, %m_new
          : !o, !o, !o, !o, !o, !o
    }
  }
}
