// RUN: tk-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

tile.kernel @k() {
  scf.execute_region {
    // expected-error @+1 {{'tile.alloc' op must be directly in a 'tile.kernel' body: shared memory lives for the whole kernel}}
    %a = tile.alloc : !tile.st<64x64xbf16>
    scf.yield
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.alloc' op result #0 must be shared tile, vector or semaphore}}
  %a = tile.alloc : !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k(%i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  // expected-error @+1 {{'tile.slot' operand '!tile.st<128x64xbf16>' is not a ring: expected a rank-3 shared tile, a rank-2 shared vector or a semaphore array}}
  %s = tile.slot %a[%i] : !tile.st<128x64xbf16>
}

// -----

tile.kernel @k(%i: index) {
  %a = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.slot' operand '!tile.sem' is not a ring}}
  %s = tile.slot %a[%i] : !tile.sem
}

// -----

tile.kernel @k(%i: index) {
  %a = tile.alloc : !tile.st<2x128x64xbf16>
  // expected-error @+1 {{'tile.subtile' op source must be a single shared tile, not a ring; take a 'tile.slot' first}}
  %s = tile.subtile %a[%i, %i] : !tile.st<2x128x64xbf16> to !tile.st<64x64xbf16>
}

// -----

tile.kernel @k(%i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  // expected-error @+1 {{'tile.subtile' op result must be a single shared tile, not a ring}}
  %s = tile.subtile %a[%i, %i] : !tile.st<128x64xbf16> to !tile.st<2x64x64xbf16>
}

// -----

tile.kernel @k(%i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  // expected-error @+1 {{'tile.subtile' op element type mismatch: source has 'bf16', result 'f16'}}
  %s = tile.subtile %a[%i, %i] : !tile.st<128x64xbf16> to !tile.st<64x64xf16>
}

// -----

tile.kernel @k(%i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  // expected-error @+1 {{'tile.subtile' op a subtile keeps the source's swizzle}}
  %s = tile.subtile %a[%i, %i] : !tile.st<128x64xbf16, #tile.swizzle<128>> to !tile.st<64x64xbf16>
}

// -----

tile.kernel @k(%i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  // expected-error @+1 {{'tile.subtile' op result shape 48x64 does not divide source shape 128x64}}
  %s = tile.subtile %a[%i, %i] : !tile.st<128x64xbf16> to !tile.st<48x64xbf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<2x128x64xbf16>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.load_async' op operates on one buffer, not a ring; take a 'tile.slot' first}}
  tile.load_async %g[%i, %i] -> %a, %s : !tile.gl<?x?xbf16>, !tile.st<2x128x64xbf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xf16>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.load_async' op element type mismatch: destination has 'f16', memory has 'bf16'; use 'tile.cast' to convert}}
  tile.load_async %g[%i, %i] -> %a, %s : !tile.gl<?x?xbf16>, !tile.st<128x64xf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.load_async' op expected 2 coordinates for a rank-2 global view, got 3}}
  tile.load_async %g[%i, %i, %i] -> %a, %s : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.load_async' op a rank-2 destination needs a global view of at least that rank}}
  tile.load_async %g[%i] -> %a, %s : !tile.gl<?xbf16>, !tile.st<128x64xbf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<64x512xbf16>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.load_async' op async copies move boxes of at most 256 elements per dimension on sm_90a; the buffer is 64x512}}
  tile.load_async %g[%i, %i] -> %a, %s : !tile.gl<?x?xbf16>, !tile.st<64x512xbf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %s = tile.alloc : !tile.sem<2>
  // expected-error @+1 {{'tile.load_async' op operand #4 must be single semaphore (!tile.sem), but got '!tile.sem<2>'}}
  "tile.load_async"(%g, %i, %i, %a, %s) {operandSegmentSizes = array<i32: 1, 2, 1, 1, 0>} : (!tile.gl<?x?xbf16>, index, index, !tile.st<128x64xbf16>, !tile.sem<2>) -> ()
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.load' op shared tiles pair with register tiles, not '!tile.rv<64xbf16, warpgroup>'}}
  %r = tile.load %a : !tile.st<64x64xbf16> -> !tile.rv<64xbf16, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.sv<64xf32>
  // expected-error @+1 {{'tile.load' op shared vectors pair with register vectors, not '!tile.rt<64x64xf32, warpgroup>'}}
  %r = tile.load %a : !tile.sv<64xf32> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.load' op register value shape 64x32 does not match shared shape 64x64}}
  %r = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x32xbf16, warpgroup>
}

// -----

tile.kernel @k(%i: index) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.load' op takes no coordinates for shared memory}}
  %r = tile.load %a[%i] : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.load' op element type mismatch: register value has 'f32', memory has 'bf16'; use 'tile.cast' to convert}}
  %r = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k(%g: !tile.gl<?xf32>, %i: index) {
  // expected-error @+1 {{'tile.load' op a rank-2 register value needs a global view of at least that rank}}
  %r = tile.load %g[%i] : !tile.gl<?xf32> -> !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xf32>, %x: index) {
  %v = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup>
  // expected-error @+1 {{'tile.store' op expected 2 coordinates for a rank-2 global view, got 1}}
  tile.store %v, %g[%x] : !tile.rt<64x64xf32, warpgroup>, !tile.gl<?x?xf32>
}

// -----

tile.kernel @k() {
  %a = tile.alloc : !tile.st<2x64x64xf32>
  %v = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup>
  // expected-error @+1 {{'tile.store' op operates on one buffer, not a ring; take a 'tile.slot' first}}
  tile.store %v, %a : !tile.rt<64x64xf32, warpgroup>, !tile.st<2x64x64xf32>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xf32>, %i: index) {
  %a = tile.alloc : !tile.st<64x64xf32>
  // expected-error @+1 {{'tile.store_async' op expected 2 coordinates for a rank-2 global view, got 1}}
  tile.store_async %a -> %g[%i] : !tile.st<64x64xf32>, !tile.gl<?x?xf32>
}

// -----

tile.kernel @k(%g: !tile.gl<?xf32>, %i: index) {
  %a = tile.alloc : !tile.st<64x64xf32>
  // expected-error @+1 {{'tile.store_async' op a rank-2 source needs a global view of at least that rank}}
  tile.store_async %a -> %g[%i] : !tile.st<64x64xf32>, !tile.gl<?xf32>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<64x64xf16>
  // expected-error @+1 {{'tile.store_async' op element type mismatch: source has 'f16', memory has 'bf16'; use 'tile.cast' to convert}}
  tile.store_async %a -> %g[%i, %i] : !tile.st<64x64xf16>, !tile.gl<?x?xbf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xf8E4M3FN>, %i: index) {
  %a = tile.alloc : !tile.st<64x64xf8E4M3FN>
  // expected-error @+1 {{'tile.store_async' op add-reduce needs f32, f16 or bf16 elements, got 'f8E4M3FN'}}
  tile.store_async %a -> %g[%i, %i] reduce add : !tile.st<64x64xf8E4M3FN>, !tile.gl<?x?xf8E4M3FN>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xf32>, %i: index) {
  %a = tile.alloc : !tile.st<64x512xf32>
  // expected-error @+1 {{'tile.store_async' op async copies move boxes of at most 256 elements per dimension on sm_90a; the buffer is 64x512}}
  tile.store_async %a -> %g[%i, %i] : !tile.st<64x512xf32>, !tile.gl<?x?xf32>
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.store_async_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  tile.store_async_wait {pending = -1 : i32}
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) {
  // expected-error @+1 {{'tile.prefetch' op expected 2 coordinates for a rank-2 global view, got 1}}
  tile.prefetch %g[%i] box [128, 64] : !tile.gl<?x?xbf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) {
  // expected-error @+1 {{'tile.prefetch' op box must have 1 or 2 positive dimensions, at most the view's rank}}
  tile.prefetch %g[%i, %i] box [128, 0] : !tile.gl<?x?xbf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.load_async' op a multicast load needs a kernel launched in clusters of more than one block}}
  tile.load_async %g[%i, %i] -> %a, %s multicast : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16, #tile.swizzle<128>>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 1, cluster = [4, 1, 1]) {
  %a = tile.alloc : !tile.st<16x64xbf16, #tile.swizzle<128>>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.load_async' op a multicast load splits the tile's rows over the 4 blocks of the cluster in whole 8-row swizzle atoms: needs a swizzled shared tile with a multiple of 32 rows, got '!tile.st<16x64xbf16, #tile.swizzle<128>>'}}
  tile.load_async %g[%i, %i] -> %a, %s multicast : !tile.gl<?x?xbf16>, !tile.st<16x64xbf16, #tile.swizzle<128>>
}

// -----

tile.kernel @k(%g: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 1, cluster = [2, 1, 1]) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{needs a swizzled shared tile with a multiple of 16 rows, got '!tile.st<64x64xbf16>'}}
  tile.load_async %g[%i, %i] -> %a, %s multicast : !tile.gl<?x?xbf16>, !tile.st<64x64xbf16>
}

// -----

tile.kernel @k(%g: !tile.gl<?xbf16>, %i: index) launch(warpgroups = 1, cluster = [2, 1, 1]) {
  %a = tile.alloc : !tile.sv<64xbf16>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{needs a swizzled shared tile with a multiple of 16 rows, got '!tile.sv<64xbf16>'}}
  tile.load_async %g[%i] -> %a, %s multicast : !tile.gl<?xbf16>, !tile.sv<64xbf16>
}

// -----

tile.kernel @copy_ring(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<2x128x64xbf16>
  // expected-error @+1 {{'tile.copy' op operates on one buffer, not a ring; take a 'tile.slot' first}}
  tile.copy %g[%i, %i] -> %a : !tile.gl<?x?xbf16>, !tile.st<2x128x64xbf16>
}

// -----

tile.kernel @copy_element(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xf16>
  // expected-error @+1 {{'tile.copy' op element type mismatch: destination has 'f16', memory has 'bf16'; use 'tile.cast' to convert}}
  tile.copy %g[%i, %i] -> %a : !tile.gl<?x?xbf16>, !tile.st<128x64xf16>
}

// -----

tile.kernel @copy_coords(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  // expected-error @+1 {{'tile.copy' op expected 2 coordinates for a rank-2 global view, got 1}}
  tile.copy %g[%i] -> %a : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
}

// -----

tile.kernel @copy_box(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<64x512xbf16>
  // expected-error @+1 {{'tile.copy' op async copies move boxes of at most 256 elements per dimension on sm_90a; the buffer is 64x512}}
  tile.copy %g[%i, %i] -> %a : !tile.gl<?x?xbf16>, !tile.st<64x512xbf16>
}

// -----

tile.kernel @store_reduce_shared() {
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
  %a = tile.alloc : !tile.st<64x64xf32>
  // expected-error @+1 {{'tile.store' op 'reduce add' stores register tiles to global views only}}
  "tile.store"(%x, %a) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, reduce = 0 : i32} : (!tile.rt<64x64xf32, warpgroup>, !tile.st<64x64xf32>) -> ()
}

// -----

tile.kernel @store_reduce_f8(%g: !tile.gl<?x?xf8E4M3FN>, %i: index) {
  %x = tile.fill 1.0 : !tile.rt<64x64xf8E4M3FN, warpgroup>
  // expected-error @+1 {{'tile.store' op 'reduce add' needs f32, f16 or bf16 elements, got 'f8E4M3FN'}}
  tile.store %x, %g[%i, %i] reduce add : !tile.rt<64x64xf8E4M3FN, warpgroup>, !tile.gl<?x?xf8E4M3FN>
}

// -----

tile.kernel @load_fragments_vector(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  // expected-error @+1 {{'tile.load' op a global view in fragment order is read into register tiles, not '!tile.rv<64xf32, warpgroup>'}}
  %x = tile.load %g[%i] : !tile.gl<?x64xf32, fragments> -> !tile.rv<64xf32, warpgroup>
}

// -----

tile.kernel @load_fragments_rows(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  // expected-error @+1 {{'tile.load' op a global view in fragment order holds 64-row slabs: needs 64 rows (per warpgroup) and a multiple of 8 columns; got '!tile.rt<32x64xf32, warpgroup>'}}
  %x = tile.load %g[%i, %i] : !tile.gl<?x64xf32, fragments> -> !tile.rt<32x64xf32, warpgroup>
}

// -----

tile.kernel @load_fragments_bf16(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  // expected-error @+1 {{'tile.load' op a global view in fragment order needs f32 elements; got '!tile.rt<64x64xbf16, warpgroup>'}}
  %x = tile.load %g[%i, %i] : !tile.gl<?x64xf32, fragments> -> !tile.rt<64x64xbf16, warpgroup>
}

// -----

tile.kernel @copy_fragments(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  %a = tile.alloc : !tile.st<64x64xf32>
  // expected-error @+1 {{'tile.copy' op a global view in fragment order is written with 'tile.store' and read with 'tile.load' of a register tile, not copied}}
  tile.copy %g[%i, %i] -> %a : !tile.gl<?x64xf32, fragments>, !tile.st<64x64xf32>
}

// -----

tile.kernel @store_fragments_vector(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  %x = tile.fill 1.0 : !tile.rv<64xf32, warpgroup>
  // expected-error @+1 {{'tile.store' op a global view in fragment order is written from register tiles, not '!tile.rv<64xf32, warpgroup>'}}
  tile.store %x, %g[%i] : !tile.rv<64xf32, warpgroup>, !tile.gl<?x64xf32, fragments>
}

// -----

tile.kernel @store_fragments_rows(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  %x = tile.fill 1.0 : !tile.rt<96x64xf32, block>
  // expected-error @+1 {{'tile.store' op a global view in fragment order holds 64-row slabs: needs 64 rows (per warpgroup) and a multiple of 8 columns; got '!tile.rt<96x64xf32, block>'}}
  tile.store %x, %g[%i, %i] reduce add : !tile.rt<96x64xf32, block>, !tile.gl<?x64xf32, fragments>
}

// -----

tile.kernel @store_fragments_wg_rows(%g: !tile.gl<?x?xf32, fragments>, %i: index) {
  %x = tile.fill 1.0 : !tile.rt<128x64xf32, warpgroup>
  // expected-error @+1 {{'tile.store' op a global view in fragment order holds 64-row slabs: needs 64 rows (per warpgroup) and a multiple of 8 columns; got '!tile.rt<128x64xf32, warpgroup>'}}
  tile.store %x, %g[%i, %i] : !tile.rt<128x64xf32, warpgroup>, !tile.gl<?x?xf32, fragments>
}

// -----

tile.kernel @store_fragments_bf16(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  %x = tile.fill 1.0 : !tile.rt<64x64xbf16, warpgroup>
  // expected-error @+1 {{'tile.store' op a global view in fragment order needs f32 elements; got '!tile.rt<64x64xbf16, warpgroup>'}}
  tile.store %x, %g[%i, %i] : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x64xf32, fragments>
}

// -----

tile.kernel @stage_rows() {
  %x = tile.fill 1.0 : !tile.rt<32x64xf32, warpgroup>
  %v = tile.alloc : !tile.sv<2048xf32>
  // expected-error @+1 {{'tile.store' op a register tile stored to a shared vector is written in fragment order, which holds 64-row slabs: needs 64 rows (per warpgroup) and a multiple of 8 columns; got '!tile.rt<32x64xf32, warpgroup>'}}
  tile.store %x, %v : !tile.rt<32x64xf32, warpgroup>, !tile.sv<2048xf32>
}

// -----

tile.kernel @stage_bf16() {
  %x = tile.fill 1.0 : !tile.rt<64x64xbf16, warpgroup>
  %v = tile.alloc : !tile.sv<4096xbf16>
  // expected-error @+1 {{'tile.store' op a register tile stored to a shared vector is written in fragment order, which needs f32 elements; got '!tile.rt<64x64xbf16, warpgroup>'}}
  tile.store %x, %v : !tile.rt<64x64xbf16, warpgroup>, !tile.sv<4096xbf16>
}

// -----

tile.kernel @stage_ring() {
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
  %v = tile.alloc : !tile.sv<2x4096xf32>
  // expected-error @+1 {{'tile.store' op operates on one buffer, not a ring; take a 'tile.slot' first}}
  tile.store %x, %v : !tile.rt<64x64xf32, warpgroup>, !tile.sv<2x4096xf32>
}

// -----

tile.kernel @stage_length() {
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
  %v = tile.alloc : !tile.sv<2048xf32>
  // expected-error @+1 {{'tile.store' op a register tile stored to a shared vector needs a vector of its 4096 elements and element type, got '!tile.sv<2048xf32>'}}
  tile.store %x, %v : !tile.rt<64x64xf32, warpgroup>, !tile.sv<2048xf32>
}

// -----

tile.kernel @stage_coords(%i: index) {
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
  %v = tile.alloc : !tile.sv<4096xf32>
  // expected-error @+1 {{'tile.store' op takes no coordinates for shared memory}}
  tile.store %x, %v[%i] : !tile.rt<64x64xf32, warpgroup>, !tile.sv<4096xf32>
}

// -----

tile.kernel @bulk_from_tile(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  %a = tile.alloc : !tile.st<64x64xf32>
  // expected-error @+1 {{'tile.store_async' op copies to a global view in fragment order take a shared vector of 64 x k elements (k a multiple of 8 dividing the view's 64 columns), got '!tile.st<64x64xf32>'}}
  tile.store_async %a -> %g[%i, %i] reduce add : !tile.st<64x64xf32>, !tile.gl<?x64xf32, fragments>
}

// -----

tile.kernel @bulk_width(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  %v = tile.alloc : !tile.sv<3072xf32>
  // expected-error @+1 {{'tile.store_async' op copies to a global view in fragment order take a shared vector of 64 x k elements (k a multiple of 8 dividing the view's 64 columns), got '!tile.sv<3072xf32>'}}
  tile.store_async %v -> %g[%i, %i] : !tile.sv<3072xf32>, !tile.gl<?x64xf32, fragments>
}

// -----

tile.kernel @bulk_coords(%g: !tile.gl<?x64xf32, fragments>, %i: index) {
  %v = tile.alloc : !tile.sv<4096xf32>
  // expected-error @+1 {{'tile.store_async' op expected 2 coordinates for a rank-2 global view, got 1}}
  tile.store_async %v -> %g[%i] : !tile.sv<4096xf32>, !tile.gl<?x64xf32, fragments>
}

// -----

tile.kernel @stage_reduce() {
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
  %v = tile.alloc : !tile.sv<4096xf32>
  // expected-error @+1 {{'tile.store' op 'reduce add' stores register tiles to global views only}}
  tile.store %x, %v reduce add : !tile.rt<64x64xf32, warpgroup>, !tile.sv<4096xf32>
}

// -----

tile.kernel @store_async_device_plain(%g: !tile.gl<?x?xbf16>, %i: index) {
  %s = tile.alloc : !tile.st<128x64xbf16>
  // expected-error @+1 {{'tile.store_async' op 'device' picks a copy of a multi-device view (!tile.gl<..., devices = N>), got '!tile.gl<?x?xbf16>'}}
  tile.store_async %s -> %g[%i, %i] device %i : !tile.st<128x64xbf16>, !tile.gl<?x?xbf16>
}

// -----

tile.kernel @store_device_plain(%g: !tile.gl<?x?xbf16>, %i: index) {
  %x = tile.fill 1.0 : !tile.rt<64x64xbf16, warpgroup>
  // expected-error @+1 {{'tile.store' op 'device' picks a copy of a multi-device view (!tile.gl<..., devices = N>), got '!tile.gl<?x?xbf16>'}}
  tile.store %x, %g[%i, %i] device %i : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?xbf16>
}

// -----

tile.kernel @store_device_shared(%i: index) {
  %x = tile.fill 1.0 : !tile.rt<64x64xbf16, warpgroup>
  %s = tile.alloc : !tile.st<64x64xbf16>
  // expected-error @+1 {{'tile.store' op 'device' picks a copy of a multi-device view; it does not apply to shared memory}}
  tile.store %x, %s device %i : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16>
}

// -----

tile.kernel @load_async_device_plain(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.load_async' op 'device' picks a copy of a multi-device view (!tile.gl<..., devices = N>), got '!tile.gl<?x?xbf16>'}}
  tile.load_async %g[%i, %i] device %i -> %a, %s : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
}

// -----

tile.kernel @copy_device_plain(%g: !tile.gl<?x?xbf16>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  // expected-error @+1 {{'tile.copy' op 'device' picks a copy of a multi-device view (!tile.gl<..., devices = N>), got '!tile.gl<?x?xbf16>'}}
  tile.copy %g[%i, %i] device %i -> %a : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
}

// -----

tile.kernel @k(%A: !tile.gl<?x?xf16>, %i: index) {
  %a = tile.alloc : !tile.st<64x4xf16, #tile.swizzle<0>>
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.load_async' op async copies move boxes whose rows are a multiple of 16 bytes on sm_90a; the buffer's rows are 8 bytes (64x4 of 'f16')}}
  tile.load_async %A[%i, %i] -> %a, %s : !tile.gl<?x?xf16>, !tile.st<64x4xf16, #tile.swizzle<0>>
}
