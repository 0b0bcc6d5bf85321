// Mamba2's SSD forward, state dim N = 128: kernels/ssm/mamba2_ssd.mlir (the
// math, the schedule and the views, read there) with B, C and the state
// 128 columns wide. B, C are [batch, seq, groups·128]; S_in, S_out
// [batch·heads·P / 64, 64, 128], and so is S_mid, the state handed from
// one segment of a tile's chunks to the next.
!view = !tile.gl<?x?x?xbf16>
!steps = !tile.gl<?x?xf32>
!states = !tile.gl<?x?x?xf32>
!counters = !tile.gl<?xi32>
!st = !tile.st<64x64xbf16>
!stn = !tile.st<64x128xbf16>
!rt16 = !tile.rt<64x64xbf16, warpgroup>
!rt = !tile.rt<64x64xf32, warpgroup>
!rtn16 = !tile.rt<64x128xbf16, warpgroup>
!rtn = !tile.rt<64x128xf32, warpgroup>
!vec = !tile.rv<64xf32, warpgroup>
!sv = !tile.sv<64xf32>

tile.kernel @mamba2_ssd_n128(%X: !view, %B: !view, %C: !view, %Z: !view,
                             %Y: !view, %DT: !steps, %DA: !steps, %D: !steps,
                             %S_in: !states, %S_out: !states, %heads: index,
                             %groups: index, %gate: i1, %skip: i1,
                             %load_state: i1, %store_state: i1,
                             %S_mid: !states, %F: !counters, %segments: index)
    launch(warpgroups = 1, grid = tiles, blocks_per_sm = 2) {
  %x = tile.alloc : !st
  %b = tile.alloc : !stn
  %c = tile.alloc : !stn
  %xw = tile.alloc : !st
  %state = tile.alloc : !stn
  %dt_s = tile.alloc : !sv
  %da_s = tile.alloc : !sv
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %batch = tile.dim %X[0] : !view
  %seq = tile.dim %X[1] : !view
  %width = tile.dim %X[2] : !view
  %cols = arith.ceildivui %width, %c64 : index
  %parts = arith.divui %cols, %heads : index
  %per_group = arith.divui %heads, %groups : index
  %chunks = arith.ceildivui %seq, %c64 : index

  %per_segment = arith.ceildivui %chunks, %segments : index
  %last_segment = arith.subi %segments, %c1 : index

  tile.foreach_tile (%j, %n, %seg) in (%cols, %batch, %segments) {
    %first_chunk = arith.muli %seg, %per_segment : index
    %next_chunk = arith.addi %first_chunk, %per_segment : index
    %end_chunk = arith.minui %next_chunk, %chunks : index
    %is_first = arith.cmpi eq, %seg, %c0 : index
    %is_last = arith.cmpi eq, %seg, %last_segment : index
    %h = arith.divui %j, %parts : index
    %g = arith.divui %h, %per_group : index
    %nh = arith.muli %n, %heads : index
    %bh = arith.addi %nh, %h : index
    %ncols = arith.muli %n, %cols : index
    %rows = arith.addi %ncols, %j : index
    // The state before the segment's first chunk: the initial state (or
    // zero) for the first segment, else the one the previous segment of
    // this tile handed over through S_mid.
    %s0 = scf.if %is_first -> !rtn {
      %s_start = scf.if %load_state -> !rtn {
        %s = tile.load %S_in[%rows, %c0, %c0] : !states -> !rtn
        scf.yield %s : !rtn
      } else {
        %s = tile.fill 0.0 : !rtn
        scf.yield %s : !rtn
      }
      scf.yield %s_start : !rtn
    } else {
      %seg_i32 = arith.index_cast %seg : index to i32
      tile.signal_wait %F[%rows], %seg_i32 : !counters
      %s = tile.load %S_mid[%rows, %c0, %c0] : !states -> !rtn
      scf.yield %s : !rtn
    }
    %s0_16 = tile.cast %s0 : !rtn to !rtn16
    tile.store %s0_16, %state : !rtn16, !stn
    tile.fence async_proxy
    tile.barrier warpgroup
    %s_last = scf.for %ch = %first_chunk to %end_chunk step %c1
        iter_args(%s = %s0) -> (!rtn) {
      tile.copy %X[%n, %ch, %j] -> %x : !view, !st
      tile.copy %B[%n, %ch, %g] -> %b : !view, !stn
      tile.copy %C[%n, %ch, %g] -> %c : !view, !stn
      tile.copy %DT[%bh, %ch] -> %dt_s : !steps, !sv
      tile.copy %DA[%bh, %ch] -> %da_s : !steps, !sv
      %dt = tile.load %dt_s : !sv -> !vec
      %da = tile.load %da_s : !sv -> !vec
      %a = tile.cumsum %da : !vec
      %a_i = tile.broadcast row %a : !vec to !rt
      %da_c = tile.load %da_s : !sv -> !vec
      %a_c = tile.cumsum %da_c : !vec
      %a_j = tile.broadcast col %a_c : !vec to !rt
      %gap = tile.sub %a_i, %a_j : !rt
      %decay = tile.exp %gap : !rt

      // Within the chunk: (C Bᵀ ∘ decay ∘ dt_j, causal) X; earlier chunks:
      // exp(a_i) · C S.
      %cb = tile.mma ABt %c, %b : !stn, !stn -> !rt
      %cb_d = tile.mul %cb, %decay : !rt
      %dt_c = tile.load %dt_s : !sv -> !vec
      %dt_j = tile.broadcast col %dt_c : !vec to !rt
      %att = tile.mul %cb_d, %dt_j : !rt
      %att_c = tile.causal_mask %att[%c0, %c0] fill zero : !rt
      %att16 = tile.cast %att_c : !rt to !rt16
      %y_in = tile.mma AB %att16, %x : !rt16, !st -> !rt
      %cs = tile.mma ABt %c, %state : !stn, !stn -> !rt
      %grow = tile.exp %a : !vec
      %grow_i = tile.broadcast row %grow : !vec to !rt
      %y_off = tile.mul %cs, %grow_i : !rt
      %y_ssm = tile.add %y_in, %y_off : !rt
      %x_r = tile.load %x : !st -> !rt16
      %x_f = tile.cast %x_r : !rt16 to !rt
      %y_skip = scf.if %skip -> !rt {
        %d = tile.load %D[%c0, %j] : !steps -> !vec
        %d_j = tile.broadcast col %d : !vec to !rt
        %xd = tile.mul %x_f, %d_j : !rt
        %sum = tile.add %y_ssm, %xd : !rt
        scf.yield %sum : !rt
      } else {
        scf.yield %y_ssm : !rt
      }
      // y · silu(z) = y · z / (1 + exp(-z)).
      %y = scf.if %gate -> !rt {
        %z16 = tile.load %Z[%n, %ch, %j] : !view -> !rt16
        %z = tile.cast %z16 : !rt16 to !rt
        %neg_z = tile.neg %z : !rt
        %e = tile.exp %neg_z : !rt
        %den = tile.add %e, %one : !rt, f32
        %silu = tile.div %z, %den : !rt
        %yz = tile.mul %y_skip, %silu : !rt
        scf.yield %yz : !rt
      } else {
        scf.yield %y_skip : !rt
      }
      %y16 = tile.cast %y : !rt to !rt16
      tile.store %y16, %Y[%n, %ch, %j] : !rt16, !view

      // Sᵀ = exp(a_63) Sᵀ + (w ∘ X)ᵀ B, w_t = exp(a_63 - a_t) dt_t.
      %total = tile.vec_reduce sum %da : !vec
      %behind = tile.sub %a, %total : !vec, f32
      %ahead = tile.neg %behind : !vec
      %w_decay = tile.exp %ahead : !vec
      %w = tile.mul %w_decay, %dt : !vec
      %w_t = tile.broadcast row %w : !vec to !rt
      %xw_f = tile.mul %x_f, %w_t : !rt
      %xw16 = tile.cast %xw_f : !rt to !rt16
      tile.store %xw16, %xw : !rt16, !st
      tile.fence async_proxy
      tile.barrier warpgroup
      %keep = math.exp %total : f32
      %s_d = tile.mul %s, %keep : !rtn, f32
      %s_new = tile.mma AtB %xw, %b, %s_d : !st, !stn -> !rtn
      %s16 = tile.cast %s_new : !rtn to !rtn16
      tile.store %s16, %state : !rtn16, !stn
      tile.fence async_proxy
      tile.barrier warpgroup
      scf.yield %s_new : !rtn
    }
    // Hand the state to the next segment, or store the final state and set
    // the tile's counter back to zero for the next launch.
    scf.if %is_last {
      scf.if %store_state {
        tile.store %s_last, %S_out[%rows, %c0, %c0] : !rtn, !states
      }
      %split = arith.cmpi ne, %seg, %c0 : index
      scf.if %split {
        %c0_i32 = arith.constant 0 : i32
        %seg_i32 = arith.index_cast %seg : index to i32
        %reset = arith.subi %c0_i32, %seg_i32 : i32
        tile.signal_add %F[%rows], %reset : !counters
      }
    } else {
      tile.store %s_last, %S_mid[%rows, %c0, %c0] : !rtn, !states
      %c1_i32 = arith.constant 1 : i32
      tile.signal_add %F[%rows], %c1_i32 : !counters
    }
  }
}
