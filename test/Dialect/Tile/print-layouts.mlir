// RUN: tk-opt %s -split-input-file -tile-print-layouts -verify-diagnostics

// The fragment maps of the NVIDIA layouts. Modes are size:(row, col) strides,
// first mode fastest. Each map must cover its tile exactly once per copy.
tile.kernel @nvidia() launch(warpgroups = 2) {
  // mma.sync A fragment: lane l holds (l/4, 2(l%4)) and (l/4, 2(l%4)+1), then
  // +8 rows, then +8 columns. Element (15, 15) is register 7 of lane 31.
  // expected-remark @+1 {{regs [2:(0,1) 2:(8,0) 2:(0,8)] lanes [4:(0,2) 8:(1,0)] warps []; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (15,15) at reg 7 lane 31 warp 0}}
  %row = tile.fill 0.0 : !tile.rt<16x16xbf16, warp, #tile.row>
  // The column layout is the row atom transposed.
  // expected-remark @+1 {{regs [2:(1,0) 2:(0,8) 2:(8,0)] lanes [4:(2,0) 8:(0,1)] warps []; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (15,15) at reg 7 lane 31 warp 0}}
  %col = tile.fill 0.0 : !tile.rt<16x16xbf16, warp, #tile.col>
  // TK's warpgroup tiles: each warp owns a contiguous band of 32 rows.
  // expected-remark @+1 {{regs [2:(0,1) 2:(8,0) 2:(0,8) 4:(0,16) 2:(16,0)] lanes [4:(0,2) 8:(1,0)] warps [4:(32,0)]; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (127,63) at reg 63 lane 31 warp 3}}
  %band = tile.fill 0.0 : !tile.rt<128x64xf32, warpgroup, #tile.row>
  // The wgmma m64n256 accumulator: warp w owns rows 16w..16w+15.
  // expected-remark @+1 {{regs [2:(0,1) 2:(8,0) 32:(0,8)] lanes [4:(0,2) 8:(1,0)] warps [4:(16,0)]; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (63,255) at reg 127 lane 31 warp 3}}
  %acc = tile.fill 0.0 : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
  // Two m64 slabs: the accumulator interleaves warps every 16 rows.
  // expected-remark @+1 {{regs [2:(0,1) 2:(8,0) 8:(0,8) 2:(64,0)] lanes [4:(0,2) 8:(1,0)] warps [4:(16,0)]; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (127,63) at reg 63 lane 31 warp 3}}
  %acc2 = tile.fill 0.0 : !tile.rt<128x64xf32, warpgroup, #tile.mma_acc>
  // Row vectors of the accumulator: the 4 lanes of a quad hold copies.
  // expected-remark @+1 {{regs [2:(8)] lanes [4:(0) 8:(1)] warps [4:(16)]; complete, 4 copies; (0) at reg 0 lane 0 warp 0, (63) at reg 1 lane 28 warp 3}}
  %rows = tile.fill 0.0 : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  // Column vectors: the 8 lane groups and the 4 warps hold copies.
  // expected-remark @+1 {{regs [2:(1) 16:(8)] lanes [4:(2) 8:(0)] warps [4:(0)]; complete, 32 copies; (0) at reg 0 lane 0 warp 0, (127) at reg 31 lane 3 warp 0}}
  %cols = tile.fill 0.0 : !tile.rv<128xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  // Block scope uses the kernel's 8 warps.
  // expected-remark @+1 {{regs [2:(0,1) 2:(8,0) 2:(0,8)] lanes [4:(0,2) 8:(1,0)] warps [8:(16,0)]; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (127,15) at reg 7 lane 31 warp 7}}
  %block = tile.fill 0.0 : !tile.rt<128x16xf32, block, #tile.row>
  // Values with open layouts are not reported.
  %open = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup>
}

// -----

// AMD MFMA fragments (wave64).
module attributes {tile.target = "gfx950"} {
  tile.kernel @amd() {
    // v_mfma_f32_32x32x8: lane l holds column l%32; 4 rows per register group,
    // the two lane halves 4 rows apart, register groups 8 rows apart.
    // expected-remark @+1 {{regs [4:(1,0) 4:(8,0)] lanes [32:(0,1) 2:(4,0)] warps []; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (31,31) at reg 15 lane 63 warp 0}}
    %acc32 = tile.fill 0.0 : !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, acc>>
    // expected-remark @+1 {{regs [4:(1,0)] lanes [16:(0,1) 4:(4,0)] warps []; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (15,15) at reg 3 lane 63 warp 0}}
    %acc16 = tile.fill 0.0 : !tile.rt<16x16xf32, warp, #tile.mfma<16x16x16, acc>>
    // A operand of 32x32x16: lane l holds row l%32, 8 consecutive k.
    // expected-remark @+1 {{regs [8:(0,1)] lanes [32:(1,0) 2:(0,8)] warps []; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (31,15) at reg 7 lane 63 warp 0}}
    %a = tile.fill 0.0 : !tile.rt<32x16xbf16, warp, #tile.mfma<32x32x16, a>>
    // B operand of 16x16x32, repeated over two atoms of columns.
    // expected-remark @+1 {{regs [8:(1,0) 2:(0,16)] lanes [16:(0,1) 4:(8,0)] warps []; complete, 1 copy; (0,0) at reg 0 lane 0 warp 0, (31,31) at reg 15 lane 63 warp 0}}
    %b = tile.fill 0.0 : !tile.rt<32x32xbf16, warp, #tile.mfma<16x16x32, b>>
  }
}
