// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -convert-tile-to-nvvm -verify-diagnostics

// expected-error @+1 {{'tile.kernel' op needs launch(warpgroups = N) to be lowered; set it or run tile-warp-specialize}}
tile.kernel @k() {
}

// -----

// expected-error @+1 {{'tile.kernel' op cluster shapes other than [N, 1, 1] are not lowered yet: blocks are launched along x}}
tile.kernel @k() launch(warpgroups = 1, cluster = [1, 2, 1]) {
}

// -----

tile.kernel @k() launch(warpgroups = 1) {
  // expected-error @+1 {{'tile.fill' op result layout is left open; set it or run tile-assign-layouts before lowering}}
  %x = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() launch(warpgroups = 1) {
  // expected-error @+1 {{'tile.alloc' op result swizzle is left open; set it or run tile-assign-layouts before lowering}}
  %a = tile.alloc : !tile.st<64x64xbf16>
}

// -----

tile.kernel @k() launch(warpgroups = 2) {
  // expected-error @+1 {{'tile.fill' op cannot be lowered: block-scope register values are lowered only with an MFMA wave grid or #tile.chunks (AMD); on NVIDIA run tile-warp-specialize or use warpgroup or warp scope}}
  %x = tile.fill 0.0 : !tile.rt<128x64xf32, block, #tile.mma_acc>
}

// -----

module attributes {tile.target = "gfx942"} {
  // expected-error @+1 {{'tile.kernel' op targets gfx942; convert-tile-to-nvvm lowers NVIDIA targets only}}
  tile.kernel @k() launch(warpgroups = 1) {
  }
}

// -----

tile.kernel @k(%A: !tile.gl<?x?xbf16>) launch(warpgroups = 1) {
  %m = tile.dim %A[0] : !tile.gl<?x?xbf16>
  %c1 = arith.constant 1 : index
  %n = arith.addi %m, %c1 : index
  // expected-error @+1 {{'tile.foreach_tile' op tile-space bound must be a constant, an index parameter, 'tile.device_count', a 'tile.dim' of a kernel parameter, 'arith.ceildivui' of one by a constant, or 'arith.muli' of two such bounds, so the launcher can size the grid}}
  tile.foreach_tile (%i) in (%n) {
  }
}

// -----

// With one block per tile, every tile loop must walk the first one's tile
// space (tiles past the grid would not run).
tile.kernel @k(%A: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 1) {
  %m = tile.dim %A[0] : !tile.gl<?x?xbf16>
  tile.foreach_tile (%i) in (%m) {
  }
  // expected-error @+1 {{'tile.foreach_tile' op walks another tile space than the kernel's first tile loop; with grid = tiles the launch has one block per tile of the first, so give every tile loop the same bounds (or make the kernel persistent)}}
  tile.foreach_tile (%i) in (%n) {
  }
}

// -----

// The same bounds, and a persistent kernel's loops over other bounds, are
// accepted.
tile.kernel @same(%A: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 1) {
  %m = tile.dim %A[0] : !tile.gl<?x?xbf16>
  tile.foreach_tile (%i) in (%m) {
  }
  tile.foreach_tile (%i) in (%m) {
  }
}
tile.kernel @persistent(%A: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 1, grid = persistent) {
  %m = tile.dim %A[0] : !tile.gl<?x?xbf16>
  tile.foreach_tile (%i) in (%m) {
  }
  tile.foreach_tile (%i) in (%n) {
  }
}

// -----

tile.kernel @k() launch(warpgroups = 1) {
  %a = tile.fill 0.0 : !tile.rt<16x16xbf16, warp, #tile.row>
  %b = tile.fill 0.0 : !tile.rt<16x16xbf16, warp, #tile.col>
  // expected-error @+1 {{'tile.mma' op with a register B operand is not lowered yet; keep B in shared memory}}
  %d = tile.mma AB %a, %b : !tile.rt<16x16xbf16, warp, #tile.row>, !tile.rt<16x16xbf16, warp, #tile.col> -> !tile.rt<16x16xf32, warp, #tile.mma_acc>
}

// -----

tile.kernel @k() launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  %b = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  // expected-error @+1 {{'tile.mma' op is lowered for 64 x N (N <= 256) warpgroup results only, got 128x64}}
  %d = tile.mma AB %a, %b : !tile.st<128x64xbf16, #tile.swizzle<128>>, !tile.st<64x64xbf16, #tile.swizzle<128>> -> !tile.rt<128x64xf32, warpgroup, #tile.mma_acc>
}

// -----

tile.kernel @k() launch(warpgroups = 1) {
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  %s = tile.alloc : !tile.st<64x64xf32, #tile.swizzle<128>>
  %v = tile.fill 1.0 : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %sv = tile.alloc : !tile.sv<64xf32>
  // expected-error @+1 {{'tile.store' op is lowered for register tiles to global or shared memory and register vectors to global memory only}}
  tile.store %v, %sv : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, !tile.sv<64xf32>
}

// -----

tile.kernel @k(%A: !tile.gl<?x?xbf16>) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.copy' op is the synchronous naive form; run tile-pipeline (stages = 1 for a plain synchronous copy) before lowering}}
  tile.copy %A[%c0, %c0] -> %a : !tile.gl<?x?xbf16>, !tile.st<64x64xbf16, #tile.swizzle<128>>
}

// -----

tile.kernel @k() launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  // expected-error @+1 {{'tile.mma' op at block scope is split over warpgroups by tile-warp-specialize; run it (or write warpgroup tiles) before lowering}}
  %d = tile.mma ABt %a, %a : !tile.st<128x64xbf16, #tile.swizzle<128>>, !tile.st<128x64xbf16, #tile.swizzle<128>> -> !tile.rt<128x128xf32, block, #tile.mma_acc>
}

// -----

// A dynamic tile loop runs the producer role on its first warp only, so the
// role may not synchronise its warps ...
tile.kernel @k(%n: index) launch(warpgroups = 2, grid = persistent) {
  tile.warp_specialize producer(warpgroups = 1) {
    tile.foreach_tile (%i) in (%n) dynamic {
      // expected-error @+1 {{'tile.barrier' op cannot be lowered in the producer role of a kernel with a 'dynamic' tile loop: only the role's first warp runs it}}
      tile.barrier block
    }
  } consumer(warpgroups = 1) {
    tile.foreach_tile (%i) in (%n) dynamic {
    }
  }
}

// -----

// Nor work per thread (its other warps skip the role).
tile.kernel @k(%n: index) launch(warpgroups = 2, grid = persistent) {
  tile.warp_specialize producer(warpgroups = 1) {
    tile.foreach_tile (%i) in (%n) dynamic {
      // expected-error @+1 {{'tile.fill' op cannot be lowered in the producer role of a kernel with a 'dynamic' tile loop: only the role's first warp runs it}}
      %x = tile.fill 1.0 : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
    }
  } consumer(warpgroups = 1) {
    tile.foreach_tile (%i) in (%n) dynamic {
    }
  }
}

// -----

tile.kernel @k(%n: index) launch(warpgroups = 2, grid = persistent) {
  // expected-error @+1 {{'tile.warp_specialize' op with a 'dynamic' tile loop, the producer role must run one too: its first thread takes the block's tiles}}
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 1) {
    tile.foreach_tile (%i) in (%n) dynamic {
    }
  }
}

// -----

// The scratch of an exchange between warps counts against the budget.
// expected-error @+1 {{'tile.kernel' op needs 233472 bytes of shared memory with the 4096 bytes its exchanges between warps use; sm_90a has 231424}}
tile.kernel @k(%O: !tile.gl<?xf32>) launch(warpgroups = 1) {
  %big = tile.alloc : !tile.st<112x1024xbf16, #tile.swizzle<0>>
  %x = tile.fill 1.0 : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
  %s = tile.col_sum %x : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc> -> !tile.rv<256xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  %c0 = arith.constant 0 : index
  tile.store %s, %O[%c0] : !tile.rv<256xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>, !tile.gl<?xf32>
}

// -----

// A shared operand whose rows are too short for a swizzle (16 bytes).
tile.kernel @k() launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  %b = tile.alloc : !tile.st<64x8xbf16, #tile.swizzle<0>>
  // expected-error @+1 {{'tile.mma' op reads an unswizzled shared tile (64x8); wgmma's descriptors are built for 32-, 64- or 128-byte swizzles, so its rows must hold at least 32 bytes}}
  %d = tile.mma AB %a, %b : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x8xbf16, #tile.swizzle<0>> -> !tile.rt<64x8xf32, warpgroup, #tile.mma_acc>
}

// -----

tile.kernel @peer_vector_store(%g: !tile.gl<?xf32, devices = 2>, %i: index) launch(warpgroups = 1) {
  %v = tile.fill 1.0 : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  // expected-error @+1 {{'tile.store' op to another device's copy is lowered for register tiles only}}
  tile.store %v, %g[%i] device %i : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, !tile.gl<?xf32, devices = 2>
}

// -----

// An f8 A operand in registers: the lowering takes register A in bf16 or
// f16. (An fp8 register value that an op makes is refused at that op; a
// block argument that no op produces reaches the mma's own check.)
tile.kernel @k() launch(warpgroups = 1) {
  %b = tile.alloc : !tile.st<64x32xf8E4M3FN, #tile.swizzle<32>>
  "test.region"() ({
  ^bb0(%a: !tile.rt<64x32xf8E4M3FN, warpgroup, #tile.row>):
    // expected-error @+1 {{'tile.mma' op with a register A operand is lowered for bf16/f16 warpgroup tiles in #tile.row layout only}}
    %d = tile.mma ABt %a, %b : !tile.rt<64x32xf8E4M3FN, warpgroup, #tile.row>, !tile.st<64x32xf8E4M3FN, #tile.swizzle<32>> -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
    "test.end"() : () -> ()
  }) : () -> ()
}

// -----

// fp8 is a storage type: a register tile of it has no lowering.
tile.kernel @k() launch(warpgroups = 1) {
  // expected-error @+1 {{'tile.fill' op makes an fp8 register value, which is not lowered (fp8 is a storage type of global views and shared tiles, which MMAs read)}}
  %a = tile.fill 0.0 : !tile.rt<64x32xf8E4M3FN, warpgroup, #tile.row>
}

// -----

// wgmma's f16 accumulation is not lowered.
tile.kernel @k() launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xf16, #tile.swizzle<128>>
  // expected-error @+1 {{'tile.mma' op with an f16 result is not lowered yet; accumulate in f32 (and 'tile.cast' the result)}}
  %d = tile.mma AB %a, %a : !tile.st<64x64xf16, #tile.swizzle<128>>, !tile.st<64x64xf16, #tile.swizzle<128>> -> !tile.rt<64x64xf16, warpgroup, #tile.mma_acc>
}

// -----

// AMD's copy staging runs have no NVIDIA load from global memory.
tile.kernel @k(%X: !tile.gl<?x?xbf16>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op with a #tile.chunks register tile is lowered from global memory and to shared tiles for AMD targets only}}
  %x = tile.load %X[%c0, %c0] : !tile.gl<?x?xbf16> -> !tile.rt<64x64xbf16, warpgroup, #tile.chunks<lanes = 32, warps = 4, run = 8>>
}

// -----

// Only f32 exponentials and logarithms of the math dialect are lowered.
tile.kernel @k(%x: f32) launch(warpgroups = 1) {
  // expected-error @+1 {{'math.sqrt' op is not lowered: of the math dialect, f32 math.exp, math.exp2 and math.log are (the tile ops cover tiles)}}
  %y = math.sqrt %x : f32
}


// -----

// Twelve warps of #tile.chunks: a thread's rows run 48 apart, which the
// fragment order (64-row slabs) does not offset by a constant per register.
tile.kernel @k() launch(warpgroups = 3) {
  %x = tile.fill 1.0 : !tile.rt<192x64xf32, block, #tile.chunks<lanes = 32, warps = 12, run = 8>>
  %v = tile.alloc : !tile.sv<12288xf32>
  // expected-error @+1 {{'tile.store' op cannot write this register layout in fragment order: its offsets are not the thread's origin plus a constant}}
  tile.store %x, %v : !tile.rt<192x64xf32, block, #tile.chunks<lanes = 32, warps = 12, run = 8>>, !tile.sv<12288xf32>
}

// -----

// The lowering checks a reduction's operand itself: every op's results are
// checked before their users, so only a block argument that no op produces
// (here of an unregistered op's region) reaches the check.
tile.kernel @k() launch(warpgroups = 1) {
  "test.region"() ({
  ^bb0(%x: !tile.rt<64x64xf32, warpgroup>):
    // expected-error @+1 {{'tile.row_max' op has a tile without a fragment map}}
    %m = tile.row_max %x : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
    "test.end"() : () -> ()
  }) : () -> ()
}

// -----

// Likewise a scan's: a block-scope vector in #tile.row has no fragment map.
tile.kernel @k() launch(warpgroups = 2) {
  "test.region"() ({
  ^bb0(%x: !tile.rv<128xf32, block, #tile.vec<row, #tile.row>>):
    // expected-error @+1 {{'tile.cumsum' op has a value without a fragment map}}
    %s = tile.cumsum %x : !tile.rv<128xf32, block, #tile.vec<row, #tile.row>>
    "test.end"() : () -> ()
  }) : () -> ()
}

// -----

// A prefetch box TMA cannot describe: rows under 16 bytes.
tile.kernel @k(%A: !tile.gl<?x?xbf16>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.prefetch' op box rows of 4 elements (8 bytes) are not a multiple of 16 bytes, as TMA's boxes must be}}
  tile.prefetch %A[%c0, %c0] box [128, 4] : !tile.gl<?x?xbf16>
}

// -----

// An unswizzled tile is addressed at the accessed type's row width, so a
// subtile of some of its columns has no lowering.
tile.kernel @k(%i: index) launch(warpgroups = 1) {
  %s = tile.alloc : !tile.st<64x64xf32, #tile.swizzle<0>>
  // expected-error @+1 {{'tile.subtile' op takes 32 of the 64 columns of an unswizzled shared tile, which is not lowered (its rows would be addressed at the subtile's width); take whole rows or use a swizzled tile}}
  %h = tile.subtile %s[%i, %i] : !tile.st<64x64xf32, #tile.swizzle<0>> to !tile.st<64x32xf32, #tile.swizzle<0>>
}
