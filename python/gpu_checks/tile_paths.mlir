// Every register path of the NVIDIA lowering on one [n, 64] bf16 matrix:
//   Y = 2X through ldmatrix and per-element global stores,
//   Z = 2X through stmatrix into a 64-byte-swizzled tile and a TMA store,
//   W = 2X through an f32 tile stored to and loaded from shared memory
//       element by element,
//   U, V = the first columns of 2X, for views narrower than the tile (the
//       16-byte global stores fall back to element stores where a group of
//       8 leaves the view or rows are not 16-byte aligned),
//   F, G, H = 2X in f32 to views in fragment order (rows padded to 64):
//       F element by element, G staged in a shared vector (16-byte stores)
//       and one bulk copy, H added (`reduce add`) into zeros element by
//       element with atomics,
//   T = 2X read from X in global memory into registers (16-byte loads
//       and a quad transpose),
//   E = 2Xn, Xn the first 61 columns of X as a matrix of its own (rows
//       not 16-byte aligned: element loads, zero past its edge), so E's
//       last 3 columns are zero,
//   Q = 2Xq, Xq the first 56 columns (rows aligned, the tile past the
//       edge: 16-byte loads inside, zero past it), last 8 columns zero.
// Tile i first prefetches rows [128 i, 128 i + 128) of X into L2
// (`tile.prefetch`, TMA; past the end for the later tiles): a hint, which
// must change nothing.
// Doubling is exact in bf16, so every output must equal 2X bit for bit.
!x_tile = !tile.st<64x64xbf16, #tile.swizzle<128>>
!z_tile = !tile.st<64x64xbf16, #tile.swizzle<64>>
!w_tile = !tile.st<64x64xf32, #tile.swizzle<128>>
!r16 = !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc>
!r32 = !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
!view = !tile.gl<?x64xbf16>
!frag = !tile.gl<?x64xf32, fragments>

tile.kernel @tile_paths(%X: !view, %Y: !view, %Z: !view, %W: !view,
                        %U: !tile.gl<?x?xbf16>, %V: !tile.gl<?x?xbf16>,
                        %F: !frag, %G: !frag, %H: !frag,
                        %Xn: !tile.gl<?x?xbf16>, %T: !view, %E: !view,
                        %Xq: !tile.gl<?x?xbf16>, %Q: !view)
    launch(warpgroups = 1) {
  %x = tile.alloc : !x_tile
  %z = tile.alloc : !z_tile
  %w = tile.alloc : !w_tile
  %g = tile.alloc : !tile.sv<4096xf32>
  %ready = tile.alloc : !tile.sem
  tile.sem_init %ready, 1 : !tile.sem
  tile.fence sem_init
  tile.barrier block
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %phase = arith.constant 0 : i32
  %two = arith.constant 2.0 : f32
  %n = tile.dim %X[0] : !view
  %tiles = arith.ceildivui %n, %c64 : index
  tile.foreach_tile (%i) in (%tiles) {
    tile.prefetch %X[%i, %c0] box [128, 64] : !view
    tile.sem_expect %ready, %x : !x_tile
    tile.load_async %X[%i, %c0] -> %x, %ready : !view, !x_tile
    tile.sem_wait %ready, %phase
    %r = tile.load %x : !x_tile -> !r16
    %rf = tile.cast %r : !r16 to !r32
    %doubled = tile.mul %rf, %two : !r32, f32
    %d16 = tile.cast %doubled : !r32 to !r16
    tile.store %d16, %Y[%i, %c0] : !r16, !view
    tile.store %d16, %U[%i, %c0] : !r16, !tile.gl<?x?xbf16>
    tile.store %d16, %V[%i, %c0] : !r16, !tile.gl<?x?xbf16>
    tile.store %d16, %z : !r16, !z_tile
    tile.store_async %z -> %Z[%i, %c0] : !z_tile, !view
    tile.store %doubled, %w : !r32, !w_tile
    tile.barrier warpgroup
    %back = tile.load %w : !w_tile -> !r32
    %b16 = tile.cast %back : !r32 to !r16
    tile.store %b16, %W[%i, %c0] : !r16, !view
    tile.store %doubled, %F[%i, %c0] : !r32, !frag
    tile.store %doubled, %H[%i, %c0] reduce add : !r32, !frag
    tile.store %doubled, %g : !r32, !tile.sv<4096xf32>
    tile.store_async %g -> %G[%i, %c0] : !tile.sv<4096xf32>, !frag
    %gx = tile.load %X[%i, %c0] : !view -> !r16
    %gxf = tile.cast %gx : !r16 to !r32
    %gx2 = tile.mul %gxf, %two : !r32, f32
    %t16 = tile.cast %gx2 : !r32 to !r16
    tile.store %t16, %T[%i, %c0] : !r16, !view
    %gn = tile.load %Xn[%i, %c0] : !tile.gl<?x?xbf16> -> !r16
    %gnf = tile.cast %gn : !r16 to !r32
    %gn2 = tile.mul %gnf, %two : !r32, f32
    %e16 = tile.cast %gn2 : !r32 to !r16
    tile.store %e16, %E[%i, %c0] : !r16, !view
    %gq = tile.load %Xq[%i, %c0] : !tile.gl<?x?xbf16> -> !r16
    %gqf = tile.cast %gq : !r16 to !r32
    %gq2 = tile.mul %gqf, %two : !r32, f32
    %q16 = tile.cast %gq2 : !r32 to !r16
    tile.store %q16, %Q[%i, %c0] : !r16, !view
    tile.store_async_wait
  }
}
