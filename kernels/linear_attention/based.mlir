// Based: causal linear attention with the second-order Taylor feature map
// (feature dim 16, value dim 64), as FLA's parallel_based defines it:
//   s_ts = (q_t / 4)·k_s,  a_ts = 1 + s_ts + s_ts² / 2   (s <= t)
//   o_t  = Σ_s a_ts v_s   [ / (Σ_s a_ts + 1e-6)  with `normalize` ]
// a_ts = φ(q_t)·φ(k_s) for φ(x) = [1, x, (x ⊗ x) / √2] (273 features), so
// over chunks of 64 positions: within a chunk the masked a (a 64 x 64 tile
// from one k16 MMA), earlier chunks through the states
//   Σ v (order 0),  S1 = Σ kᵀ v (order 1),  S2 = Σ (k ⊗ k)ᵀ v (order 2)
// as o += Σv + q S1 + ½ (q ⊗ q) S2, and for the normaliser the position
// count, Σ k (column sums across the warpgroup's warps) and Z2 =
// Σ (k ⊗ k)ᵀ 1 (16 equal columns from an MMA against ones, so the
// normaliser's second-order term comes out of the tensor cores; 16, not 8:
// wgmma reads shared tiles with rows of at least 32 bytes, swizzled). `tile.outer` makes q ⊗ q and
// k ⊗ k (64 x 256).
//
// Two consumer warpgroups split the value columns: warpgroup w computes o's
// columns 32w .. 32w+31 and keeps those columns of S1 and S2 (S2: four
// 64 x 32 f32 accumulators), each with its own bf16 copies in shared
// memory for the MMAs; both compute a and the normaliser. Warpgroup 0
// forms q ⊗ q / 2 and warpgroup 1 k ⊗ k, each into one shared buffer that
// the MMAs of both read: the consumers meet at a block barrier after those
// stores and again at the end of the chunk, before the next chunk's. (As a
// register operand q ⊗ q took 64 registers per thread, with a k ⊗ k buffer
// per warpgroup: the step spilled 0.8 KiB per thread.) S1's MMAs
// take q and k zero-padded to 64 features (the k16 operands in the first
// 16 columns of 64 x 64 tiles whose other columns stay zero), as wgmma
// needs 64 rows. Views and layouts as kernels/linear_attention/linear_attention.mlir
// (`bshd`, tile-bind): Q and K are [.., seq, 16]-column views, V and O
// 64-column ones.
!view = !tile.gl<?x?x?xbf16>
!qk = !tile.st<64x16xbf16>
!pad = !tile.st<64x64xbf16>
!vt = !tile.st<64x64xbf16>
!vw = !tile.st<64x32xbf16>
!k2 = !tile.st<64x256xbf16>
!k2q = !tile.st<64x64xbf16>
!s2 = !tile.st<256x32xbf16>
!s2q = !tile.st<64x32xbf16>
!z2 = !tile.st<256x16xbf16>
!z2q = !tile.st<64x16xbf16>
!f16x = !tile.rt<64x16xf32, warpgroup>
!b16x = !tile.rt<64x16xbf16, warpgroup>
!wide16 = !tile.rt<64x256xbf16, warpgroup>
!sq = !tile.rt<64x64xf32, warpgroup>
!sq16 = !tile.rt<64x64xbf16, warpgroup>
!o = !tile.rt<64x32xf32, warpgroup>
!o16 = !tile.rt<64x32xbf16, warpgroup>
!z = !tile.rt<64x16xf32, warpgroup>
!z16 = !tile.rt<64x16xbf16, warpgroup>
!rows = !tile.rv<64xf32, warpgroup>
!cols16 = !tile.rv<16xf32, warpgroup>
!cols32 = !tile.rv<32xf32, warpgroup>

tile.kernel @based(%Q: !view, %K: !view, %V: !view, %O: !view,
                   %batch: index, %heads: index, %bshd: i1, %normalize: i1)
    launch(warpgroups = 2, grid = tiles) {
  %q = tile.alloc : !qk
  %k = tile.alloc : !qk
  %v = tile.alloc : !vt
  %qpads = tile.alloc : !tile.st<2x64x64xbf16>
  %kpads = tile.alloc : !tile.st<2x64x64xbf16>
  %k2 = tile.alloc : !k2
  %q2 = tile.alloc : !k2
  %s1s = tile.alloc : !tile.st<2x64x32xbf16>
  %s2s = tile.alloc : !tile.st<2x256x32xbf16>
  %z2s = tile.alloc : !tile.st<2x256x16xbf16>
  %ones = tile.alloc : !tile.st<64x16xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %quarter = arith.constant 0.25 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-6 : f32
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
    %qpad = tile.slot %qpads[%wg] : !tile.st<2x64x64xbf16>
    %kpad = tile.slot %kpads[%wg] : !tile.st<2x64x64xbf16>
    %s1 = tile.slot %s1s[%wg] : !tile.st<2x64x32xbf16>
    %s2 = tile.slot %s2s[%wg] : !tile.st<2x256x32xbf16>
    %z2 = tile.slot %z2s[%wg] : !tile.st<2x256x16xbf16>
    %q16 = tile.subtile %qpad[%c0, %c0] : !pad to !qk
    %k16 = tile.subtile %kpad[%c0, %c0] : !pad to !qk
    %s2_0 = tile.subtile %s2[%c0, %c0] : !s2 to !s2q
    %s2_1 = tile.subtile %s2[%c1, %c0] : !s2 to !s2q
    %s2_2 = tile.subtile %s2[%c2, %c0] : !s2 to !s2q
    %s2_3 = tile.subtile %s2[%c3, %c0] : !s2 to !s2q
    %z2_0 = tile.subtile %z2[%c0, %c0] : !z2 to !z2q
    %z2_1 = tile.subtile %z2[%c1, %c0] : !z2 to !z2q
    %z2_2 = tile.subtile %z2[%c2, %c0] : !z2 to !z2q
    %z2_3 = tile.subtile %z2[%c3, %c0] : !z2 to !z2q
    %k2_0 = tile.subtile %k2[%c0, %c0] : !k2 to !k2q
    %k2_1 = tile.subtile %k2[%c0, %c1] : !k2 to !k2q
    %k2_2 = tile.subtile %k2[%c0, %c2] : !k2 to !k2q
    %k2_3 = tile.subtile %k2[%c0, %c3] : !k2 to !k2q
    // Zero states and pads, ones for the normaliser's MMAs.
    %zero_sq = tile.fill 0.0 : !sq16
    tile.store %zero_sq, %qpad : !sq16, !pad
    tile.store %zero_sq, %kpad : !sq16, !pad
    %zero_o = tile.fill 0.0 : !o
    %zero_o16 = tile.fill 0.0 : !o16
    tile.store %zero_o16, %s1 : !o16, !vw
    tile.store %zero_o16, %s2_0 : !o16, !s2q
    tile.store %zero_o16, %s2_1 : !o16, !s2q
    tile.store %zero_o16, %s2_2 : !o16, !s2q
    tile.store %zero_o16, %s2_3 : !o16, !s2q
    %zero_z = tile.fill 0.0 : !z
    %zero_z16 = tile.cast %zero_z : !z to !z16
    tile.store %zero_z16, %z2_0 : !z16, !z2q
    tile.store %zero_z16, %z2_1 : !z16, !z2q
    tile.store %zero_z16, %z2_2 : !z16, !z2q
    tile.store %zero_z16, %z2_3 : !z16, !z2q
    %ones_r = tile.fill 1.0 : !z16
    tile.store %ones_r, %ones : !z16, !tile.st<64x16xbf16>
    tile.fence async_proxy
    tile.barrier warpgroup
    %sv0 = tile.fill 0.0 : !cols32
    %sk0 = tile.fill 0.0 : !cols16
    %r:11 = scf.for %ch = %c0 to %chunks step %c1
        iter_args(%a1 = %zero_o, %b0 = %zero_o, %b1 = %zero_o, %b2 = %zero_o,
                  %b3 = %zero_o, %y0 = %zero_z, %y1 = %zero_z, %y2a = %zero_z,
                  %y3 = %zero_z, %sv = %sv0, %sk = %sk0)
        -> (!o, !o, !o, !o, !o, !z, !z, !z, !z, !cols32, !cols16) {
      tile.copy %Q[%x, %ch, %y] -> %q : !view, !qk
      tile.copy %K[%x, %ch, %y] -> %k : !view, !qk
      tile.copy %V[%x, %ch, %y] -> %v : !view, !vt
      %v_w = tile.subtile %v[%c0, %wg] : !vt to !vw
      // q / 4 and k, padded; warpgroup 0 forms q ⊗ q / 2, warpgroup 1
      // k ⊗ k, into the shared buffers both read. In bf16: a product of two
      // bf16 values is exact in f32, so rounding it once gives what the f32
      // product cast to bf16 would.
      %q_r = tile.load %q : !qk -> !b16x
      %q_f = tile.cast %q_r : !b16x to !f16x
      %qs = tile.mul %q_f, %quarter : !f16x, f32
      %qs16 = tile.cast %qs : !f16x to !b16x
      tile.store %qs16, %q16 : !b16x, !qk
      %k_r = tile.load %k : !qk -> !b16x
      tile.store %k_r, %k16 : !b16x, !qk
      %k_f = tile.cast %k_r : !b16x to !f16x
      %first = arith.cmpi eq, %wg, %c0 : index
      scf.if %first {
        %qq = tile.outer %qs16, %qs16 : !b16x, !b16x -> !wide16
        %qq16 = tile.mul %qq, %half : !wide16, f32
        tile.store %qq16, %q2 : !wide16, !k2
      } else {
        %kk16 = tile.outer %k_r, %k_r : !b16x, !b16x -> !wide16
        tile.store %kk16, %k2 : !wide16, !k2
      }
      tile.fence async_proxy
      tile.barrier block

      // Within the chunk: a = 1 + s + s² / 2, causal, times V.
      %qk = tile.mma ABt %q, %k : !qk, !qk -> !sq
      %s = tile.mul %qk, %quarter : !sq, f32
      %s_h = tile.mul %s, %half : !sq, f32
      %s_h1 = tile.add %s_h, %one : !sq, f32
      %s_sq = tile.mul %s, %s_h1 : !sq
      %a = tile.add %s_sq, %one : !sq, f32
      %a_c = tile.causal_mask %a[%c0, %c0] fill zero : !sq
      %a16 = tile.cast %a_c : !sq to !sq16
      %o_in = tile.mma AB %a16, %v_w : !sq16, !vw -> !o
      // Earlier chunks: Σv + (q/4) S1 + ½ (q/4 ⊗ q/4) S2.
      %o_1 = tile.mma AB %qpad, %s1, %o_in : !pad, !vw -> !o
      %o_2 = tile.mma AB %q2, %s2, %o_1 : !k2, !s2 -> !o
      %sv_b = tile.broadcast col %sv : !cols32 to !o
      %o_3 = tile.add %o_2, %sv_b : !o
      %o_out = scf.if %normalize -> (!o) {
        // Σ a + positions before the chunk + (q/4)·Σk + ½ (q/4 ⊗ q/4)·Σ k⊗k.
        %den_in = tile.row_sum %a_c : !sq -> !rows
        %zq = tile.mma AB %q2, %z2 : !k2, !z2 -> !z
        %den2 = tile.row_max %zq : !z -> !rows
        %sk_b = tile.broadcast col %sk : !cols16 to !f16x
        %qsk = tile.mul %qs, %sk_b : !f16x
        %den1 = tile.row_sum %qsk, %den2 : !f16x -> !rows
        %ch64 = arith.muli %ch, %c64 : index
        %ch_i = arith.index_cast %ch64 : index to i64
        %before = arith.uitofp %ch_i : i64 to f32
        %before_eps = arith.addf %before, %eps : f32
        %den_a = tile.add %den_in, %den1 : !rows
        %den_b = tile.add %den_a, %before_eps : !rows, f32
        %den_bb = tile.broadcast row %den_b : !rows to !o
        %o_n = tile.div %o_3, %den_bb : !o
        scf.yield %o_n : !o
      } else {
        scf.yield %o_3 : !o
      }
      %o16 = tile.cast %o_out : !o to !o16
      tile.store %o16, %O[%x, %ch, %yw] : !o16, !view

      // States: Σv, S1 += kᵀ v, S2 += (k ⊗ k)ᵀ v, Z2 += (k ⊗ k)ᵀ 1.
      %v_r = tile.load %v_w : !vw -> !o16
      %v_f = tile.cast %v_r : !o16 to !o
      %sv_new = tile.col_sum %v_f, %sv : !o -> !cols32
      %sk_new = tile.col_sum %k_f, %sk : !f16x -> !cols16
      %a1_new = tile.mma AtB %kpad, %v_w, %a1 : !pad, !vw -> !o
      %b0_new = tile.mma AtB %k2_0, %v_w, %b0 : !k2q, !vw -> !o
      %b1_new = tile.mma AtB %k2_1, %v_w, %b1 : !k2q, !vw -> !o
      %b2_new = tile.mma AtB %k2_2, %v_w, %b2 : !k2q, !vw -> !o
      %b3_new = tile.mma AtB %k2_3, %v_w, %b3 : !k2q, !vw -> !o
      %y0_new = tile.mma AtB %k2_0, %ones, %y0 : !k2q, !tile.st<64x16xbf16> -> !z
      %y1_new = tile.mma AtB %k2_1, %ones, %y1 : !k2q, !tile.st<64x16xbf16> -> !z
      %y2_new = tile.mma AtB %k2_2, %ones, %y2a : !k2q, !tile.st<64x16xbf16> -> !z
      %y3_new = tile.mma AtB %k2_3, %ones, %y3 : !k2q, !tile.st<64x16xbf16> -> !z
      %a1_16 = tile.cast %a1_new : !o to !o16
      tile.store %a1_16, %s1 : !o16, !vw
      %b0_16 = tile.cast %b0_new : !o to !o16
      tile.store %b0_16, %s2_0 : !o16, !s2q
      %b1_16 = tile.cast %b1_new : !o to !o16
      tile.store %b1_16, %s2_1 : !o16, !s2q
      %b2_16 = tile.cast %b2_new : !o to !o16
      tile.store %b2_16, %s2_2 : !o16, !s2q
      %b3_16 = tile.cast %b3_new : !o to !o16
      tile.store %b3_16, %s2_3 : !o16, !s2q
      %y0_16 = tile.cast %y0_new : !z to !z16
      tile.store %y0_16, %z2_0 : !z16, !z2q
      %y1_16 = tile.cast %y1_new : !z to !z16
      tile.store %y1_16, %z2_1 : !z16, !z2q
      %y2_16 = tile.cast %y2_new : !z to !z16
      tile.store %y2_16, %z2_2 : !z16, !z2q
      %y3_16 = tile.cast %y3_new : !z to !z16
      tile.store %y3_16, %z2_3 : !z16, !z2q
      tile.fence async_proxy
      tile.barrier block
      scf.yield %a1_new, %b0_new, %b1_new, %b2_new, %b3_new, %y0_new,
          %y1_new, %y2_new, %y3_new, %sv_new, %sk_new
          : !o, !o, !o, !o, !o, !z, !z, !z, !z, !cols32, !cols16
    }
  }
}
