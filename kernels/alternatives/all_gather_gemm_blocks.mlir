// All-gather + GEMM with grid-level roles, the in-kernel form of
// kernels/multi_gpu/all_gather_gemm.mlir: the first 16 blocks of the grid
// pull the peers' row shards over NVLink (TMA loads from each peer's copy of
// the symmetric gathered A, `device %p`) into this device's copy and
// announce every 128-row chunk (a system-scope add once its stores are
// written); the other blocks run the GEMM tiles, each waiting for its
// chunk. G: every device's gathered A [world, R, K], device r's own rows
// (shard r) copied in before the launch; the start barrier across the
// communicating blocks of all devices says every device's own rows are in
// place, the end barrier that every peer has pulled them.
//
// Slower than the copy engines' pushes at every shape measured
// (2 x H100, K = 8192, tk_mlir.ops.tensor_parallel with
// communicate="blocks"): 1.002 against 0.991 ms at M = N = 8192,
// 1.833 / 1.682 at M = 16384, 3.310 / 2.891 at M = 8192, N = 28672; with 8
// or 4 communicating blocks slower still (1.150 and 1.751 ms at
// M = N = 8192). Kept as the tested example of tile.block_roles and of
// peer TMA loads.
!g_view = !tile.gl<?x?x?xbf16, devices = 8>
!b_view = !tile.gl<?x?xbf16>
!c_view = !tile.gl<?x?x?xbf16>
!flags = !tile.gl<?xi32, devices = 8>
!acc = !tile.rt<128x256xf32, block>

tile.kernel @all_gather_gemm_blocks(%G: !g_view, %B: !b_view, %C: !c_view,
                                  %arrived: !flags, %sync: !flags,
                                  %epoch: i32, %started: i32, %finished: i32)
    launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %s = tile.alloc : !tile.st<128x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %none = arith.constant 0 : i32
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %me = tile.device_id
  %world = tile.dim %G[0] : !g_view
  %R = tile.dim %G[1] : !g_view
  %K = tile.dim %G[2] : !g_view
  %N = tile.dim %B[1] : !b_view
  %tiles_m = arith.ceildivui %R, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index
  %rows = arith.muli %world, %tiles_m : index
  tile.block_roles communicate(blocks = 16) (%cb, %ncb) {
    // Every device's own rows are in place.
    tile.device_barrier %sync[%c0], %started : !flags
    %peers = arith.subi %world, %c1 : index
    %chunks = arith.muli %peers, %tiles_m : index
    // This block's chunks: cb, cb + ncb, ... in the order the tiles use them.
    %left = arith.subi %chunks, %cb : index
    %mine = arith.ceildivui %left, %ncb : index
    %has = arith.cmpi ugt, %chunks, %cb : index
    %count = arith.select %has, %mine, %c0 : index
    %steps = arith.muli %count, %tiles_k : index
    %last_k = arith.subi %tiles_k, %c1 : index
    scf.for %f = %c0 to %steps step %c1 {
      %i = arith.divui %f, %tiles_k : index
      %k = arith.remui %f, %tiles_k : index
      %ci = arith.muli %i, %ncb : index
      %chunk = arith.addi %cb, %ci : index
      %j = arith.divui %chunk, %tiles_m : index
      %m = arith.remui %chunk, %tiles_m : index
      %j1 = arith.addi %j, %c1 : index
      %pj = arith.addi %me, %j1 : index
      %p = arith.remui %pj, %world : index
      tile.copy %G[%p, %m, %k] device %p -> %s : !g_view, !tile.st<128x64xbf16>
      tile.store_async %s -> %G[%p, %m, %k] : !tile.st<128x64xbf16>, !g_view
      tile.store_async_wait
      %done = arith.cmpi eq, %k, %last_k : index
      scf.if %done {
        %pm = arith.muli %p, %tiles_m : index
        %slot = arith.addi %pm, %m : index
        tile.signal_add %arrived[%slot], %one : !flags
      }
    }
    // The peers have pulled this device's rows: the next call may replace them.
    tile.device_barrier %sync[%c1], %finished : !flags
  } compute {
    tile.foreach_tile (%t, %n) in (%rows, %tiles_n) {
      %j = arith.divui %t, %tiles_m : index
      %m = arith.remui %t, %tiles_m : index
      %next = arith.addi %me, %j : index
      %shard = arith.remui %next, %world : index
      %own = arith.cmpi eq, %shard, %me : index
      %need = arith.select %own, %none, %epoch : i32
      %pm = arith.muli %shard, %tiles_m : index
      %slot = arith.addi %pm, %m : index
      tile.signal_wait %arrived[%slot], %need at_least : !flags
      %zero = tile.fill 0.0 : !acc
      %acc = scf.for %k = %c0 to %tiles_k step %c1 iter_args(%x = %zero) -> (!acc) {
        tile.copy %G[%shard, %m, %k] -> %a : !g_view, !tile.st<128x64xbf16>
        tile.copy %B[%k, %n] -> %b : !b_view, !tile.st<64x256xbf16>
        %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
        scf.yield %y : !acc
      }
      %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
      tile.store %out, %C[%shard, %m, %n] : !tile.rt<128x256xbf16, block>, !c_view
    }
  }
}
