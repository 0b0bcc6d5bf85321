// RUN: tk-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

tile.kernel @k(%i: index) {
  %a = tile.alloc : !tile.st<2x64x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.mma' op operands must be single shared tiles, not rings; take a 'tile.slot' first}}
  %d = tile.mma AB %a, %b : !tile.st<2x64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<32x64xbf16>
  // expected-error @+1 {{'tile.mma' op A has K = 64 but B has K = 32 in form AB}}
  %d = tile.mma AB %a, %b : !tile.st<64x64xbf16>, !tile.st<32x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<128x64xbf16>
  // expected-error @+1 {{'tile.mma' op result shape must be 64x128 for form ABt, got 64x64}}
  %d = tile.mma ABt %a, %b : !tile.st<64x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xf32>
  %b = tile.alloc : !tile.st<64x64xf32>
  // expected-error @+1 {{'tile.mma' op A and B must be bf16, f16, f8E4M3FN or f8E5M2, got 'f32' and 'f32'}}
  %d = tile.mma AB %a, %b : !tile.st<64x64xf32>, !tile.st<64x64xf32> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x64xf16>
  // expected-error @+1 {{'tile.mma' op A and B element types differ: 'bf16' vs 'f16'}}
  %d = tile.mma AB %a, %b : !tile.st<64x64xbf16>, !tile.st<64x64xf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.mma' op result must be f32 (or f16 for f16 operands), got 'bf16'}}
  %d = tile.mma AB %a, %b : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x24xbf16>
  %b = tile.alloc : !tile.st<24x64xbf16>
  // expected-error @+1 {{'tile.mma' op K (24) must be a multiple of 16 for 'bf16' operands}}
  %d = tile.mma AB %a, %b : !tile.st<64x24xbf16>, !tile.st<24x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %c = tile.alloc : !tile.st<64x48xf8E4M3FN>
  // expected-error @+1 {{'tile.mma' op K (48) must be a multiple of 32 for 'f8E4M3FN' operands}}
  %d = tile.mma ABt %c, %c : !tile.st<64x48xf8E4M3FN>, !tile.st<64x48xf8E4M3FN> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = "test.source"() : () -> !tile.rt<64x64xbf16, warp>
  %b = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.mma' op A scope 'warp' does not match result scope 'warpgroup'}}
  %d = tile.mma AB %a, %b : !tile.rt<64x64xbf16, warp>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.mma' op result layout must be #tile.mma_acc on sm_90a, got #tile.row}}
  %d = tile.mma AB %a, %b : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup, #tile.row>
}

// -----

tile.kernel @k() {
  %a = "test.source"() : () -> !tile.rt<64x64xbf16, warpgroup, #tile.col>
  %b = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.mma' op register A operand needs layout #tile.row (K runs along its columns), got #tile.col}}
  %d = tile.mma AB %a, %b : !tile.rt<64x64xbf16, warpgroup, #tile.col>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = "test.source"() : () -> !tile.rt<16x16xbf16, warp, #tile.row>
  %b = "test.source"() : () -> !tile.rt<16x16xbf16, warp, #tile.row>
  // expected-error @+1 {{'tile.mma' op register B operand needs layout #tile.col (K runs along its rows), got #tile.row}}
  %d = tile.mma AB %a, %b : !tile.rt<16x16xbf16, warp, #tile.row>, !tile.rt<16x16xbf16, warp, #tile.row> -> !tile.rt<16x16xf32, warp>
}

// -----

tile.kernel @k() {
  %a = "test.source"() : () -> !tile.rt<64x64xbf16, warpgroup>
  %b = "test.source"() : () -> !tile.rt<64x64xbf16, warpgroup>
  // expected-error @+1 {{'tile.mma' op an mma of two register operands is a warp mma.sync on sm_90a: the result must have warp scope}}
  %d = tile.mma AB %a, %b : !tile.rt<64x64xbf16, warpgroup>, !tile.rt<64x64xbf16, warpgroup> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = "test.source"() : () -> !tile.rt<8x16xbf16, warp>
  %b = "test.source"() : () -> !tile.rt<16x16xbf16, warp>
  // expected-error @+1 {{'tile.mma' op warp mma needs M a multiple of 16 and N of 8, got 8x16}}
  %d = tile.mma AB %a, %b : !tile.rt<8x16xbf16, warp>, !tile.rt<16x16xbf16, warp> -> !tile.rt<8x16xf32, warp>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = "test.source"() : () -> !tile.rt<64x64xbf16, warpgroup>
  // expected-error @+1 {{'tile.mma' op a warpgroup mma reads B from shared memory; B is in registers}}
  %d = tile.mma AB %a, %b : !tile.st<64x64xbf16>, !tile.rt<64x64xbf16, warpgroup> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.mma' op an mma with a shared-memory operand is a warpgroup wgmma: the result must have warpgroup or block scope, got 'warp'}}
  %d = tile.mma AB %a, %b : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warp>
}

// -----

tile.kernel @k() {
  %a = "test.source"() : () -> !tile.rt<64x64xbf16, warpgroup>
  %b = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.mma' op a register A operand cannot be transposed; use form AB or ABt, or keep A in shared memory}}
  %d = tile.mma AtB %a, %b : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xf8E4M3FN>
  %b = tile.alloc : !tile.st<64x64xf8E5M2>
  // expected-error @+1 {{'tile.mma' op f8 operands must both be K-major: use form ABt}}
  %d = tile.mma AB %a, %b : !tile.st<64x64xf8E4M3FN>, !tile.st<64x64xf8E5M2> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<32x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.mma' op warpgroup mma needs M a multiple of 64 and N of 8, got 32x64}}
  %d = tile.mma AB %a, %b : !tile.st<32x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<32x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c = "test.source"() : () -> !tile.rt<64x64xf32, warp>
  // expected-error @+1 {{'tile.mma' op failed to verify that accumulator type matches result type}}
  %d = "tile.mma"(%a, %b, %c) {form = 0 : i32} : (!tile.st<64x64xbf16>, !tile.st<64x64xbf16>, !tile.rt<64x64xf32, warp>) -> !tile.rt<64x64xf32, warpgroup>
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() {
    %a = "test.source"() : () -> !tile.rt<32x32xbf16, warp, #tile.mfma<32x32x8, b>>
    %b = "test.source"() : () -> !tile.rt<32x32xbf16, warp>
    // expected-error @+1 {{'tile.mma' op A layout must be the MFMA 'a' fragment on gfx942, got #tile.mfma<32x32x8, b>}}
    %d = tile.mma AB %a, %b : !tile.rt<32x32xbf16, warp, #tile.mfma<32x32x8, b>>, !tile.rt<32x32xbf16, warp> -> !tile.rt<32x32xf32, warp>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() {
    %a = tile.alloc : !tile.st<32x32xbf16>
    %b = "test.source"() : () -> !tile.rt<32x32xbf16, warp, #tile.mfma<16x16x16, b>>
    // expected-error @+1 {{'tile.mma' op B fragment #tile.mfma<16x16x16, b> does not match the result's #tile.mfma<32x32x8, acc> (same instruction shape and wave grid)}}
    %d = tile.mma AB %a, %b : !tile.st<32x32xbf16>, !tile.rt<32x32xbf16, warp, #tile.mfma<16x16x16, b>> -> !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, acc>>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() {
    %a = "test.source"() : () -> !tile.rt<32x16xbf16, warp>
    %b = "test.source"() : () -> !tile.rt<16x32xbf16, warp>
    // expected-error @+1 {{'tile.mma' op result layout must be an MFMA accumulator layout on gfx942, got #tile.mfma<32x32x8, a>}}
    %d = tile.mma AB %a, %b : !tile.rt<32x16xbf16, warp>, !tile.rt<16x32xbf16, warp> -> !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, a>>
  }
}

// -----

// tile.mma_async follows tile.mma's rules.
tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<32x64xbf16>
  // expected-error @+1 {{'tile.mma_async' op A has K = 64 but B has K = 32 in form AB}}
  %d = tile.mma_async AB %a, %b : !tile.st<64x64xbf16>, !tile.st<32x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.mma_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  tile.mma_wait -1
}
