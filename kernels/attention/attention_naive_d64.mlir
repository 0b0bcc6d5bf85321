// Attention forward, naive form: O = softmax(Q Kᵀ · scale) V and the
// log-sum-exp L. Q, K, V, O: [batch, heads, seq, 64] bf16; L: [batch,
// heads, seq] f32; `causal` masks keys after the query. K and V may have
// fewer heads than Q (GQA/MQA: q head h reads kv head h / (heads / kv_heads)).
// One block per 192 queries: copy Q, then for each 128-key tile copy K and
// V, and run the online softmax (exp2, scale folded in) on block-scope tiles.
// No semaphores, warp roles or layouts: the -tile-to-nvidia passes pipeline
// the K/V copies, make a producer warpgroup and split the rows over three
// consumer warpgroups.
// Head dim 64: kernels/attention/attention_naive.mlir with 64-column Q, K, V and O,
// and 192-query tiles (three consumers: with half the MMA work per score,
// more rows per block pay for the block's fixed costs; measured 1.04-1.15x
// the 128-row form non-causal on H100). Its running maximum may lag by up
// to 8 in exp2 units (`row_max ... slack`), so after the first key tiles
// a step rarely moves it and its threads skip rescaling O (`mul ...
// skip_ones`): +0.5-4.6% on H100 (docs/performance.md; the 128-key,
// 160-key and 128-query programs were not faster with it and keep the
// plain maximum).
// Each consumer warpgroup skips the key tiles its own 64 rows do not need
// (`tile.part_rows`): all its rows past the sequence (the last 192-query
// tile of 512 or 1024 queries has one or two such slices) or, causal, all
// above the key tile. Its running values stay as they are, which is what
// the skipped step would give its rows (all scores masked) or rows nothing
// stores; the others have the tensor cores to themselves. 1.03-1.07x
// cuDNN at 512 and 1024 non-causal (0.95-0.98 without it), and with it the
// 192-query tile beats the 128-query one causal too (docs/performance.md).
// Causal, it also masks only the key tiles that cross its own rows'
// diagonal, not every one that crosses the tile's (docs/performance.md).
// Causal, a warpgroup whose rows all end before a key tile's second 64 keys
// (one step per diagonal) takes a half step: Q Kᵀ and P V over the tile's
// first 64 keys only (`tile.subtile` of K and V; m64n64 MMAs). At 512
// causal that is 4 of the 20 warpgroup steps of a head at half the work:
// 1.04-1.06x cuDNN there against 0.98-1.01 for the full steps, 1.03-1.05
// against 1.00-1.02 at 1024 (H100, docs/performance.md). Non-causal calls
// run this program compiled for causal = false (`bind=6=false`, CHOICES
// in python/tk_mlir/ops/attention.py), where the half step and the masks
// fold away.
// `tile.stagger`: consumer warpgroup i starts 1200·i cycles late, so the
// three do not run their MMAs and softmaxes in step (1.00-1.06x at most
// points on H100; docs/performance.md).
!qkv = !tile.gl<?x?x?x64xbf16>
!q_rt = !tile.rt<192x64xbf16, block>
!q_st = !tile.st<192x64xbf16>
!st = !tile.st<128x64xbf16>
!s = !tile.rt<192x128xf32, block>
!p16 = !tile.rt<192x128xbf16, block>
!o = !tile.rt<192x64xf32, block>
!o16 = !tile.rt<192x64xbf16, block>
!row = !tile.rv<192xf32, block>
// The first 64 keys of a key tile, and the scores of a half step.
!sth = !tile.st<64x64xbf16>
!sh = !tile.rt<192x64xf32, block>
!ph = !tile.rt<192x64xbf16, block>

tile.kernel @attention_naive_d64(%Q: !qkv, %K: !qkv, %V: !qkv, %O: !qkv,
                             %L: !tile.gl<?x?x?xf32>, %scale: f32, %causal: i1)
    launch(warpgroups = 3, grid = persistent)
    attributes {tile.stagger = 1200} {
  %q = tile.alloc : !q_st
  %k = tile.alloc : !st
  %v = tile.alloc : !st
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %log2e = arith.constant 1.44269504 : f32
  %scale2 = arith.mulf %scale, %log2e : f32
  // The running maximum may lag the true one by up to 8 in exp2 units
  // (scores up to 2^8): most steps then keep it, and their rescaling of
  // O is skipped (FlashAttention-4's conditional rescaling).
  %lag = arith.constant 8.0 : f32
  %slack = arith.divf %lag, %scale2 : f32
  %batch = tile.dim %Q[0] : !qkv
  %heads = tile.dim %Q[1] : !qkv
  %seq = tile.dim %Q[2] : !qkv
  %kv_heads = tile.dim %K[1] : !qkv
  %group = arith.divui %heads, %kv_heads : index
  %q_tiles = arith.ceildivui %seq, %c192 : index
  %all_kv = arith.ceildivui %seq, %c128 : index
  %last_q = arith.subi %q_tiles, %c1 : index
  %true = arith.constant true
  %not_causal = arith.xori %causal, %true : i1
  // snake: a persistent block's causal tiles alternate long and short (the
  // query tile varies fastest, so a plain stride would give a block the
  // same length every round).
  tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) snake {
    // Causal: the longest rows first; key tiles up to the diagonal.
    %reversed = arith.subi %last_q, %t : index
    %qt = arith.select %causal, %reversed, %t : index
    %hk = arith.divui %h, %group : index
    %q0 = arith.muli %qt, %c192 : index
    // Causal: key tiles up to the tile's last query.
    %q_end = arith.addi %q0, %c192 : index
    %upto = arith.ceildivui %q_end, %c128 : index
    %diag = arith.minui %upto, %all_kv : index
    %kv_tiles = arith.select %causal, %diag, %all_kv : index
    // This part's rows: skip every step when they all lie past the end.
    %lo, %hi = tile.part_rows %q0 of !s
    %live = arith.cmpi ult, %lo, %seq : index
    tile.copy %Q[%b, %h, %qt, %c0] -> %q {tile.stages = 2} : !qkv, !q_st
    // Q comes into registers once per query tile: Q Kᵀ then takes its A
    // operand from registers, not from shared memory at every key tile
    // (shared-memory bandwidth, not the tensor cores, limits the step).
    %q_r = tile.load %q : !q_st -> !q_rt
    %m0 = tile.fill 0xFFF0000000000000 : !row
    %l0 = tile.fill 0.0 : !row
    %o0 = tile.fill 0.0 : !o
    %m, %l, %o = scf.for %j = %c0 to %kv_tiles step %c1
        iter_args(%m_j = %m0, %l_j = %l0, %o_j = %o0) -> (!row, !row, !o) {
      tile.copy %K[%b, %hk, %j, %c0] -> %k : !qkv, !st
      tile.copy %V[%b, %hk, %j, %c0] -> %v : !qkv, !st
      %k0 = arith.muli %j, %c128 : index
      // Causal: the key tile starts after this part's last row.
      %below = arith.cmpi ult, %k0, %hi : index
      %seen = arith.ori %below, %not_causal : i1
      %needed = arith.andi %live, %seen : i1
      %m_out, %l_out, %o_out = scf.if %needed -> (!row, !row, !o) {
      // Causal, this part's rows all end before the key tile's second 64
      // keys: the step takes only the first 64 (half the MMA and softmax
      // work on each diagonal).
      %k_mid = arith.addi %k0, %c64 : index
      %rows_end = arith.cmpi ule, %hi, %k_mid : index
      %half = arith.andi %causal, %rows_end : i1
      %m_h, %l_h, %o_h = scf.if %half -> (!row, !row, !o) {
      %k_h = tile.subtile %k[%c0, %c0] : !st to !sth
      %v_h = tile.subtile %v[%c0, %c0] : !st to !sth
      %s_raw = tile.mma ABt %q_r, %k_h : !q_rt, !sth -> !sh
      // These keys cross the part's diagonal; keys past the end lie above
      // every row that is stored, so the causal mask covers them too.
      %s_ij = tile.causal_mask %s_raw[%q0, %k0] fill neg_inf : !sh
      %m_new = tile.row_max %s_ij, %m_j slack %slack : !sh -> !row
      %m_diff = tile.sub %m_j, %m_new : !row
      %m_diff2 = tile.mul %m_diff, %scale2 : !row, f32
      %alpha = tile.exp2 %m_diff2 : !row
      %m_scaled = tile.mul %m_new, %scale2 : !row, f32
      %m_b = tile.broadcast row %m_scaled : !row to !sh
      %s_scaled = tile.mul %s_ij, %scale2 : !sh, f32
      %s_shift = tile.sub %s_scaled, %m_b : !sh
      %p = tile.exp2 %s_shift : !sh
      %l_scaled = tile.mul %l_j, %alpha : !row
      %l_new = tile.row_sum %p, %l_scaled : !sh -> !row
      %alpha_b = tile.broadcast row %alpha : !row to !o
      %o_scaled = tile.mul %o_j, %alpha_b skip_ones : !o
      %p16 = tile.cast %p : !sh to !ph
      %o_new = tile.mma AB %p16, %v_h, %o_scaled : !ph, !sth -> !o
      scf.yield %m_new, %l_new, %o_new : !row, !row, !o
      } else {
      %s_raw = tile.mma ABt %q_r, %k : !q_rt, !st -> !s
      // Keys past the end exist only in the last key tile.
      %k_end = arith.addi %k0, %c128 : index
      %tail = arith.cmpi ugt, %k_end, %seq : index
      %s_in = scf.if %tail -> (!s) {
        %bounded = tile.bound_mask %s_raw[%q0, %k0] within [%seq, %seq] fill neg_inf : !s
        scf.yield %bounded : !s
      } else {
        scf.yield %s_raw : !s
      }
      // Key tiles that end after this part's first row cross its diagonal
      // (the tile's first row would mask 1-2 more warpgroups' steps on
      // each diagonal: 1.04 / 1.04 / 1.02x at 512 / 1024 / 2048 causal).
      %on_diag = arith.cmpi ugt, %k_end, %lo : index
      %needs_mask = arith.andi %causal, %on_diag : i1
      %s_ij = scf.if %needs_mask -> (!s) {
        %masked = tile.causal_mask %s_in[%q0, %k0] fill neg_inf : !s
        scf.yield %masked : !s
      } else {
        scf.yield %s_in : !s
      }
      %m_new = tile.row_max %s_ij, %m_j slack %slack : !s -> !row
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
      %alpha_b = tile.broadcast row %alpha : !row to !o
      %o_scaled = tile.mul %o_j, %alpha_b skip_ones : !o
      %p16 = tile.cast %p : !s to !p16
      %o_new = tile.mma AB %p16, %v, %o_scaled : !p16, !st -> !o
      scf.yield %m_new, %l_new, %o_new : !row, !row, !o
      }
      scf.yield %m_h, %l_h, %o_h : !row, !row, !o
      } else {
        scf.yield %m_j, %l_j, %o_j : !row, !row, !o
      }
      scf.yield %m_out, %l_out, %o_out : !row, !row, !o
    } {tile.stages = 2}
    // The log-sum-exp first: it does not need the last P V, so
    // tile-early-epilogue runs it (and 1 / l) while that MMA multiplies.
    %m_nat = tile.mul %m, %scale : !row, f32
    %log_l = tile.log %l : !row
    %lse = tile.add %m_nat, %log_l : !row
    tile.store %lse, %L[%b, %h, %qt] : !row, !tile.gl<?x?x?xf32>
    // One division per row, not per element.
    %ones = tile.fill 1.0 : !row
    %inv_l = tile.div %ones, %l : !row
    %inv_b = tile.broadcast row %inv_l : !row to !o
    %o_norm = tile.mul %o, %inv_b : !o
    %o16 = tile.cast %o_norm : !o to !o16
    tile.store %o16, %O[%b, %h, %qt, %c0] : !o16, !qkv
  }
}
