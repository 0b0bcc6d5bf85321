// RUN: tk-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{element type must be bf16, f16, f32, f8E4M3FN or f8E5M2, got 'i32'}}
"test.source"() : () -> !tile.rt<16x16xi32, warp>

// -----

// expected-error @+1 {{register tile must have rank 2, got rank 1}}
"test.source"() : () -> !tile.rt<16xf32, warp>

// -----

// expected-error @+1 {{register vector must have rank 1, got rank 2}}
"test.source"() : () -> !tile.rv<16x16xf32, warp>

// -----

// expected-error @+1 {{register tile dimensions must be positive, got 0}}
"test.source"() : () -> !tile.rt<0x16xf32, warp>

// -----

// expected-error @+1 {{register vector dimensions must be positive, got 0}}
"test.source"() : () -> !tile.rv<0xf32, warp>

// -----

// expected-error @+1 {{shared tile dimensions must be positive, got 0}}
"test.source"() : () -> !tile.st<64x0xbf16>

// -----

// expected-error @+1 {{shared vector dimensions must be positive, got 0}}
"test.source"() : () -> !tile.sv<0xf32>

// -----

// expected-error @+1 {{register tile dimensions must be at most 1024, got 1048576}}
"test.source"() : () -> !tile.rt<1048576x16xf32, warp>

// -----

// expected-error @+1 {{register vector dimensions must be at most 1024, got 2048}}
"test.source"() : () -> !tile.rv<2048xf32, warp>

// -----

// expected-error @+1 {{shared tile dimensions must be at most 16384, got 99999999999}}
"test.source"() : () -> !tile.st<99999999999x16xf32>

// -----

// expected-error @+1 {{shared vector dimensions must be at most 16384, got 65536}}
"test.source"() : () -> !tile.sv<65536xf32>

// -----

// expected-error @+1 {{expected scope 'warp', 'warpgroup' or 'block', got 'cta'}}
"test.source"() : () -> !tile.rt<16x16xf32, cta>

// -----

// expected-error @+1 {{register tile layout must be a tile layout attribute (#tile.row, #tile.col, #tile.mma_acc, #tile.mfma, #tile.vec), got #tile.swizzle<128>}}
"test.source"() : () -> !tile.rt<16x16xf32, warp, #tile.swizzle<128>>

// -----

// expected-error @+1 {{register vector layout must be a tile layout attribute (#tile.row, #tile.col, #tile.mma_acc, #tile.mfma, #tile.vec), got #tile.swizzle<128>}}
"test.source"() : () -> !tile.rv<16xf32, warp, #tile.swizzle<128>>

// -----

// expected-error @+1 {{register tile cannot use vector layout #tile.vec<row, #tile.row>}}
"test.source"() : () -> !tile.rt<16x16xf32, warp, #tile.vec<row, #tile.row>>

// -----

// expected-error @+1 {{register vector cannot use tile layout #tile.row}}
"test.source"() : () -> !tile.rv<16xf32, warp, #tile.row>

// -----

// expected-error @+1 {{layout #tile.row does not fit this warpgroup-scope register tile: rows (16) must be a multiple of 64 for #tile.row (16 per warp, 4 warps)}}
"test.source"() : () -> !tile.rt<16x16xf32, warpgroup, #tile.row>

// -----

// expected-error @+1 {{layout #tile.mma_acc does not fit this warp-scope register tile: columns (12) must be a multiple of 8 for #tile.mma_acc}}
"test.source"() : () -> !tile.rt<16x12xf32, warp, #tile.mma_acc>

// -----

// A vector laid out like the rows of a warpgroup accumulator needs 64 rows.
// expected-error @+1 {{layout #tile.vec<row, #tile.mma_acc> does not fit this warpgroup-scope register vector: rows (32) must be a multiple of 64 for #tile.mma_acc}}
"test.source"() : () -> !tile.rv<32xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>

// -----

// expected-error @+1 {{layout #tile.mfma<32x32x8, acc> does not fit this warp-scope register tile: rows (16) must be a multiple of 32 for #tile.mfma<32x32x8, acc>}}
"test.source"() : () -> !tile.rt<16x32xf32, warp, #tile.mfma<32x32x8, acc>>

// -----

// expected-error @+1 {{#tile.vec parent must be a tile layout, got #tile.vec<row, #tile.row>}}
"test.source"() : () -> !tile.rv<16xf32, warp, #tile.vec<col, #tile.vec<row, #tile.row>>>

// -----

// expected-error @+1 {{unsupported MFMA shape 64x64x8; expected 32x32x8, 32x32x16, 16x16x16 or 16x16x32}}
"test.source"() : () -> !tile.rt<64x64xf32, warp, #tile.mfma<64x64x8, acc>>

// -----

// expected-error @+1 {{expected an MxNxK instruction shape}}
"test.source"() : () -> !tile.rt<32x32xf32, warp, #tile.mfma<32x32, acc>>

// -----

// expected-error @+1 {{expected MFMA operand 'a', 'b' or 'acc', got 'c'}}
"test.source"() : () -> !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, c>>

// -----

// expected-error @+1 {{expected a wave grid RxC}}
"test.source"() : () -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2>>

// -----

// expected-error @+1 {{MFMA wave grid 0x4 must have both sides positive}}
"test.source"() : () -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 0x4>>

// -----

// 0x0 is the stored form of "no grid"; written out it is refused rather
// than printed back without its waves.
// expected-error @+1 {{MFMA wave grid 0x0 has no waves; leave out 'waves' to stack the waves in row bands}}
"test.source"() : () -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 0x0>>

// -----

// expected-error @+1 {{MFMA wave grid 8x4 has more than 16 waves (1024 threads)}}
"test.source"() : () -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 8x4>>

// -----

// Sides whose 32-bit product would wrap to 0.
// expected-error @+1 {{MFMA wave grid 65536x65536 has more than 16 waves (1024 threads)}}
"test.source"() : () -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 65536x65536>>

// -----

// A side that would wrap to a valid 32 if read into 32 bits.
// expected-error @+1 {{MFMA shape or wave grid value 4294967328 does not fit in 32 bits}}
"test.source"() : () -> !tile.rt<32x32xf32, warp, #tile.mfma<4294967328x32x8, acc>>

// -----

// expected-error @+1 {{MFMA shape or wave grid value 4294967298 does not fit in 32 bits}}
"test.source"() : () -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 4294967298x1>>

// -----

// expected-error @+1 {{layout #tile.mfma<32x32x8, acc, waves = 2x2> does not fit this block-scope register tile: a 32x64 tile does not split into 2x2 wave parts of whole 32x32 atoms for #tile.mfma<32x32x8, acc, waves = 2x2>}}
"test.source"() : () -> !tile.rt<32x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>

// -----

// expected-error @+1 {{layout #tile.mfma<32x32x8, acc, waves = 2x2> does not fit this warp-scope register tile: layout #tile.mfma<32x32x8, acc, waves = 2x2> needs 4 waves, the value has 1}}
"test.source"() : () -> !tile.rt<64x64xf32, warp, #tile.mfma<32x32x8, acc, waves = 2x2>>

// -----

// expected-error @+1 {{shared tile must have rank 2 to 3, got rank 1}}
"test.source"() : () -> !tile.st<64xbf16>

// -----

// expected-error @+1 {{element type must be bf16, f16, f32, f8E4M3FN or f8E5M2, got 'f64'}}
"test.source"() : () -> !tile.st<64x64xf64>

// -----

// expected-error @+1 {{shared tile cannot use #tile.swizzle<128>: a row of 64 bytes is not a multiple of the 128-byte swizzle}}
"test.source"() : () -> !tile.st<64x32xbf16, #tile.swizzle<128>>

// -----

// expected-error @+1 {{shared tile cannot use #tile.swizzle<64>: rows (4) must be a multiple of 8 for a swizzled tile}}
"test.source"() : () -> !tile.st<4x64xbf16, #tile.swizzle<64>>

// -----

// expected-error @+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 16}}
"test.source"() : () -> !tile.st<64x64xbf16, #tile.swizzle<16>>

// -----

// A negative number is reported as written, not taken modulo 2^32.
// expected-error @+2 {{swizzle bytes must be a non-negative integer that fits in 32 bits, got -128}}
// expected-error @+1 {{failed to parse Tile_SwizzleAttr parameter 'bytes'}}
"test.source"() : () -> !tile.st<64x64xbf16, #tile.swizzle<-128>>

// -----

// expected-error @+1 {{shared vector must have rank 1 to 2, got rank 3}}
"test.source"() : () -> !tile.sv<2x2x64xf32>

// -----

// expected-error @+1 {{global view must have rank 1 to 4, got rank 5}}
"test.source"() : () -> !tile.gl<?x?x?x?x?xbf16>

// -----

// expected-error @+1 {{global view dimensions must be positive or '?', got 0}}
"test.source"() : () -> !tile.gl<0x?xbf16>

// -----

// expected-error @+1 {{semaphore array must hold at least one semaphore}}
"test.source"() : () -> !tile.sem<0>

// -----

// -1 must not read as 4294967295 semaphores.
// expected-error @+1 {{semaphore array size must be a non-negative integer that fits in 32 bits, got -1}}
"test.source"() : () -> !tile.sem<-1>

// -----

// expected-error @+1 {{semaphore array size must be a non-negative integer that fits in 32 bits, got 4294967297}}
"test.source"() : () -> !tile.sem<4294967297>

// -----

// expected-error @+1 {{unknown target 'sm_80'; known targets: sm_90a, gfx942, gfx950}}
module attributes {tile.target = "sm_80"} {}

// -----

// expected-error @+1 {{'tile.target' must be a string naming the target}}
module attributes {tile.target = 90} {}

// -----

// expected-error @+1 {{unknown tile dialect attribute 'tile.arch'}}
module attributes {tile.arch = "sm_90a"} {}

// -----

// expected-error @+1 {{'tile.abi' must be a dictionary of kernel ABIs}}
module attributes {tile.abi = "k"} {}

// -----

tile.kernel @stages_not_positive(%n: index) {
  // expected-error @+1 {{'tile.stages' must be a positive integer on an 'scf.for' or a 'tile.copy'}}
  scf.for %i = %n to %n step %n {
  } {tile.stages = 0}
}

// -----

tile.kernel @pipelined_on_if(%c: i1) {
  // expected-error @+1 {{'tile.pipelined' must be a positive integer on an 'scf.for'}}
  scf.if %c {
  } {tile.pipelined = 2}
}

// -----

// A ring holds at most 16384 stages (its type's leading dimension).
tile.kernel @stages_too_many(%n: index) {
  // expected-error @+1 {{'tile.stages' must be a signless integer of at most 16384 stages (the largest ring), got 16385 : i64}}
  scf.for %i = %n to %n step %n {
  } {tile.stages = 16385}
}

// -----

// An i128 is compared as written: 2^64 + 2 must not read as 2.
tile.kernel @stages_wide(%n: index) {
  // expected-error @+1 {{'tile.stages' must be a signless integer of at most 16384 stages (the largest ring), got 18446744073709551618 : i128}}
  scf.for %i = %n to %n step %n {
  } {tile.stages = 18446744073709551618 : i128}
}

// -----

// The passes read the count signless: 200 : ui8 would read as -56.
tile.kernel @stages_unsigned(%n: index) {
  // expected-error @+1 {{'tile.pipelined' must be a signless integer of at most 16384 stages (the largest ring), got 200 : ui8}}
  scf.for %i = %n to %n step %n {
  } {tile.pipelined = 200 : ui8}
}

// -----

// A per-tile copy's buffers are a ring too.
tile.kernel @copy_stages_too_many(%A: !tile.gl<?x?xbf16>) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<128x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%t) in (%c1) {
    // expected-error @+1 {{'tile.stages' must be a signless integer of at most 16384 stages (the largest ring), got 140737488355329 : i64}}
    tile.copy %A[%t, %c0] -> %a {tile.stages = 140737488355329} : !tile.gl<?x?xbf16>, !tile.st<128x256xbf16>
  }
}

// -----

tile.kernel @prologue_on_for(%n: index) {
  // expected-error @+1 {{'tile.pipeline_prologue' must be a unit attribute on an 'scf.if'}}
  scf.for %i = %n to %n step %n {
  } {tile.pipeline_prologue}
}

// -----

tile.kernel @refill_not_unit(%c: i1) {
  // expected-error @+1 {{'tile.pipeline_refill' must be a unit attribute on an 'scf.if'}}
  scf.if %c {
  } {tile.pipeline_refill = 1}
}

// -----

tile.kernel @copy_tag_on_for(%n: index) {
  // expected-error @+1 {{'tile.pipeline_copy' must be a unit attribute on an 'scf.if'}}
  scf.for %i = %n to %n step %n {
  } {tile.pipeline_copy}
}

// -----

// expected-error @+1 {{#tile.chunks lanes must be 32 or 64, got 48}}
"test.source"() : () -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 48, warps = 4, run = 8>>

// -----

// expected-error @+1 {{#tile.chunks warps must be 1 to 16, got 0}}
"test.source"() : () -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 0, run = 8>>

// -----

// 67108864 warps of 64 lanes: 2^32 threads, 0 in a 32-bit product.
// expected-error @+1 {{#tile.chunks warps must be 1 to 16, got 67108864}}
"test.source"() : () -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 67108864, run = 8>>

// -----

// expected-error @+2 {{#tile.chunks warps must be a non-negative integer that fits in 32 bits, got -1}}
// expected-error @+1 {{failed to parse Tile_ChunksLayoutAttr parameter 'warps'}}
"test.source"() : () -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = -1, run = 8>>

// -----

// expected-error @+2 {{#tile.chunks lanes must be a non-negative integer that fits in 32 bits, got 4294967360}}
// expected-error @+1 {{failed to parse Tile_ChunksLayoutAttr parameter 'warpSize'}}
"test.source"() : () -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 4294967360, warps = 4, run = 8>>

// -----

// expected-error @+2 {{#tile.chunks run must be a non-negative integer that fits in 32 bits, got -8}}
// expected-error @+1 {{failed to parse Tile_ChunksLayoutAttr parameter 'run'}}
"test.source"() : () -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 4, run = -8>>

// -----

// expected-error @+1 {{#tile.chunks run must be 1, 2, 4, 8 or 16, got 3}}
"test.source"() : () -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 4, run = 3>>

// -----

// expected-error @+1 {{layout #tile.chunks<lanes = 64, warps = 4, run = 8> does not fit this block-scope register tile: columns (12) must be a multiple of the run (8)}}
"test.source"() : () -> !tile.rt<64x12xbf16, block, #tile.chunks<lanes = 64, warps = 4, run = 8>>

// -----

// expected-error @+1 {{layout #tile.chunks<lanes = 64, warps = 8, run = 8> does not fit this block-scope register tile: a 16x64 tile in runs of 8 does not spread evenly over 512 threads}}
"test.source"() : () -> !tile.rt<16x64xbf16, block, #tile.chunks<lanes = 64, warps = 8, run = 8>>

// -----

tile.kernel @copy_stages_in_loop(%g: !tile.gl<?x?xbf16>, %n: index) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  scf.for %i = %n to %n step %n {
    // expected-error @+1 {{'tile.stages' on a 'tile.copy' sets the buffers of a per-tile copy (directly in a 'tile.foreach_tile'); a copy in a loop takes the loop's stages}}
    tile.copy %g[%i, %i] -> %a {tile.stages = 2} : !tile.gl<?x?xbf16>, !tile.st<64x64xbf16>
  }
}

// -----

// expected-error @+1 {{global view element type must be bf16, f16, f32, f8E4M3FN, f8E5M2 or i32 (counters), got 'i64'}}
"test.source"() : () -> !tile.gl<?xi64>

// -----

// expected-error @+1 {{a global view in fragment order needs f32 elements, got 'bf16'}}
"test.source"() : () -> !tile.gl<?x?x128xbf16, fragments>

// -----

// expected-error @+1 {{a global view in fragment order needs rows and columns (rank 2 or more)}}
"test.source"() : () -> !tile.gl<?xf32, fragments>

// -----

// expected-error @+1 {{a global view in fragment order needs columns in groups of 8, got 60}}
"test.source"() : () -> !tile.gl<?x60xf32, fragments>

// -----

// expected-error @+1 {{a global view in fragment order needs rows in slabs of 64, got 100}}
"test.source"() : () -> !tile.gl<100x64xf32, fragments>

// -----

// expected-error @+1 {{expected 'devices' or 'fragments'}}
"test.source"() : () -> !tile.gl<?x64xf32, rows>

// -----

tile.kernel @split_value(%i: index) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.split' must be "columns" or "contraction" on a 'tile.mma' or 'tile.mma_async'}}
  %p = tile.mma AB %a, %a {tile.split = "rows"} : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @split_op(%i: index) {
  // expected-error @+1 {{'tile.split' must be "columns" or "contraction" on a 'tile.mma' or 'tile.mma_async'}}
  %x = tile.fill 1.0 {tile.split = "columns"} : !tile.rt<64x64xf32, warpgroup>
}

// -----

// expected-error @+1 {{a multi-device view spans 2 to 8 devices, got devices = 1}}
"test.source"() : () -> !tile.gl<?x64xbf16, devices = 1>

// -----

// expected-error @+1 {{a multi-device view spans 2 to 8 devices, got devices = 9}}
"test.source"() : () -> !tile.gl<?x64xbf16, devices = 9>

// -----

// expected-error @+1 {{a multi-device view cannot be in fragment order}}
"test.source"() : () -> !tile.gl<?x64xf32, fragments, devices = 2>
