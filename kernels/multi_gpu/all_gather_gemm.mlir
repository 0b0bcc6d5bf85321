// All-gather + GEMM (the column-parallel linear layer), one process per GPU:
// C = A · B where A [M, K] is gathered from the devices' row shards (device
// r holds rows [r R, (r + 1) R), R = M / world) and B [K, N / world] is
// this device's column shard. bf16 in and out, f32 accumulation.
//
// The copy engines gather A into this device's `A` while the kernel runs:
// shard r's copy done, the launcher's stream writes `epoch` into
// `arrived[r]` (tk_mlir.ops.tensor_parallel). Each tile waits (acquire)
// until the shards its rows come from have arrived — its producer before
// it loads them — so the tiles of shards already here run while the others
// are still on the way. The tile loop starts at this device's own rows
// (`first_tile`, the tile of row `me R`), which need no copy from a peer,
// then follows the order the shards arrive in.
!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32>
!acc = !tile.rt<128x256xf32, block>

tile.kernel @all_gather_gemm(%A: !view, %B: !view, %C: !view, %arrived: !flags,
                             %epoch: i32, %first_tile: index)
    launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  %world = tile.dim %arrived[0] : !flags
  %R = arith.divui %M, %world : index
  %last_row = arith.subi %M, %c1 : index
  %tiles_m = arith.ceildivui %M, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index
  tile.foreach_tile (%i, %n) in (%tiles_m, %tiles_n) {
    %shifted = arith.addi %i, %first_tile : index
    %m = arith.remui %shifted, %tiles_m : index
    %top = arith.muli %m, %c128 : index
    %bottom_row = arith.addi %top, %c127 : index
    %bottom = arith.minui %bottom_row, %last_row : index
    %first = arith.divui %top, %R : index
    %last = arith.divui %bottom, %R : index
    tile.signal_wait %arrived[%first], %epoch at_least : !flags
    tile.signal_wait %arrived[%last], %epoch at_least : !flags
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %tiles_k step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !view
  }
}
