// A warp-specialized persistent GEMM whose tile loop carries values: each
// tile records which tile its block ran before it, and the block's last
// tile is recorded after the loop, as a kernel that publishes a tile's
// results one tile late does (each add waits until the block's TMA stores
// so far are written; tile-warp-specialize keeps the carried values with
// the consumers); before that the last tile is read back from C through
// registers into D (work after the tile loop, which tile-warp-specialize
// gives the consumers, split by rows, after waiting until the loop's TMA
// stores are written). The tile space is one-dimensional, tile t
// being C's tile (t / tiles_n, t mod tiles_n), so block b runs tiles
// b, b + W, b + 2W, ... with W blocks:
//   C = A · B (bf16 in, f32 accumulate, bf16 out, 128 x 128 tiles),
//   P[t] = t - W + 1 for t >= W, 0 for a block's first tile,
//   L[t] = 1 for each block's last tile, else 0,
//   D = C on each block's last tile, untouched elsewhere.
!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x128xf32, block>
!c = !tile.gl<?xi32>

tile.kernel @carried_walk(%A: !view, %B: !view, %C: !view, %P: !c, %L: !c,
                          %D: !view)
    launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1 : i32
  %false = arith.constant false
  %true = arith.constant true
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  %tiles_m = arith.ceildivui %M, %c128 : index
  %tiles_n = arith.ceildivui %N, %c128 : index
  %tiles_k = arith.ceildivui %K, %c64 : index
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %last:2 = tile.foreach_tile (%t) in (%tiles)
      iter_args(%prev = %c0, %has = %false) -> (index, i1) {
    %m = arith.divui %t, %tiles_n : index
    %n = arith.remui %t, %tiles_n : index
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %tiles_k step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x128xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x128xbf16> -> !acc
      scf.yield %y : !acc
    }
    scf.if %has {
      %p1 = arith.addi %prev, %c1 : index
      %v = arith.index_cast %p1 : index to i32
      tile.signal_add %P[%t], %v after_async_stores : !c
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x128xbf16, block>
    tile.store %out, %C[%m, %n] : !tile.rt<128x128xbf16, block>, !view
    tile.yield %t, %true : index, i1
  }
  scf.if %last#1 {
    %m = arith.divui %last#0, %tiles_n : index
    %n = arith.remui %last#0, %tiles_n : index
    %c = tile.load %C[%m, %n] : !view -> !tile.rt<128x128xbf16, block>
    tile.store %c, %D[%m, %n] : !tile.rt<128x128xbf16, block>, !view
    tile.signal_add %L[%last#0], %one after_async_stores : !c
  }
}
