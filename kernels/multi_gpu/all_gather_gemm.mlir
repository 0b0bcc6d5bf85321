// All-gather + GEMM (the column-parallel linear layer), one process per GPU:
// C = A · B where A [M, K] is gathered from the devices' row shards (device
// r holds rows [r R, (r + 1) R), R = M / world) and B [K, N / world] is
// this device's column shard. bf16 in and out, f32 accumulation.
//
// A is a multi-device view of the shards, [R, K] each: copy q is shard q
// as this device holds it. The copy engines push the peers' shards into
// this device's gathered buffer while the kernel runs; when shard q is in
// place, the launcher's streams write `epoch` into `arrived[q]`
// (tk_mlir.ops.tensor_parallel passes 1 and clears the flags after each
// launch, so that every call is the same and a CUDA graph can replay it;
// counters that only grow, a new epoch per launch, work as well). This
// device's own shard is read where the
// caller keeps it, with no copy before the launch (docs/performance.md has
// the measurement). C is viewed as [world, R, N], so a 128-row tile never
// spans two shards (ragged R: TMA's bounds cut each shard's last tile) and
// each tile waits (acquire, in its producer) for one shard only; the tiles
// of shards already here run while the others are on the way. The tile
// loop takes the shards in the order they arrive: this device's own, then
// me + 1, me + 2, ... Shard and rows are folded into one tile dimension (a
// product bound), so the walk keeps the L2-friendly grouped order.
!a_view = !tile.gl<?x?xbf16, devices = 8>
!b_view = !tile.gl<?x?xbf16>
!c_view = !tile.gl<?x?x?xbf16>
!flags = !tile.gl<?xi32>
!acc = !tile.rt<128x256xf32, block>

tile.kernel @all_gather_gemm(%A: !a_view, %B: !b_view, %C: !c_view,
                             %arrived: !flags, %epoch: i32)
    launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %me = tile.device_id
  %world = tile.dim %C[0] : !c_view
  %R = tile.dim %A[0] : !a_view
  %K = tile.dim %A[1] : !a_view
  %N = tile.dim %B[1] : !b_view
  %tiles_m = arith.ceildivui %R, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index
  %rows = arith.muli %world, %tiles_m : index
  tile.foreach_tile (%t, %n) in (%rows, %tiles_n) {
    %j = arith.divui %t, %tiles_m : index
    %m = arith.remui %t, %tiles_m : index
    %next = arith.addi %me, %j : index
    %shard = arith.remui %next, %world : index
    tile.signal_wait %arrived[%shard], %epoch at_least : !flags
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %tiles_k step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] device %shard -> %a : !a_view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !b_view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%shard, %m, %n] : !tile.rt<128x256xbf16, block>, !c_view
  }
}
