// GEMM + reduce-scatter (the row-parallel linear layer), one process per GPU:
// C = sum over devices d of A_d · B_d, rows scattered: device r keeps rows
// [r R, (r + 1) R) of the sum, R = M / world. bf16 in and out, f32
// accumulation per device, the partial sums added in bf16 by TMA reduce
// stores into the owner's copy of S (symmetric memory) through NVLink,
// overlapped with the next tiles' products.
//
// A is this device's [M, K / world] viewed as [world, R, K / world], so a
// 128-row tile never straddles two owners (ragged R: the last tile of each
// owner is cut by TMA's bounds). The tile loop starts with the next device
// and ends with its own, so at any moment the devices send to different
// peers.
//
// Each device counts the parts of a tile that have landed in its S
// (`ready[tile]`, one add per device and call): a block publishes a tile
// one tile late, at the next tile's epilogue, when that tile's products
// gave its store time to drain (waiting at once would stall the
// consumers for the transfer). Two tiles after one of its own, a block
// waits until all of that tile's parts are in (`expected`: the launcher's
// running count), copies it from S into C and zeroes it there for a later
// call; after its tile loop it does the same for its last two tiles. So C
// is complete when the launch is, with no separate copy or clear on the
// critical path, and S is zero whenever a call starts with it (the
// launcher alternates two S and `ready` sets, as a device may begin the
// next call while a peer still copies out this one).
!a_view = !tile.gl<?x?x?xbf16>
!b_view = !tile.gl<?x?xbf16>
!s_view = !tile.gl<?x?xbf16, devices = 8>
!c_view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32, devices = 8>
!acc = !tile.rt<128x256xf32, block>
!part = !tile.rt<128x256xbf16, block>

tile.kernel @gemm_reduce_scatter(%A: !a_view, %B: !b_view, %S: !s_view,
                                 %C: !c_view, %ready: !flags, %expected: i32)
    launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  %false = arith.constant false
  %true = arith.constant true
  %me = tile.device_id
  %world = tile.device_count
  %R = tile.dim %A[1] : !a_view
  %K = tile.dim %A[2] : !a_view
  %N = tile.dim %B[1] : !b_view
  %parts = tile.dim %A[0] : !a_view
  %tiles_m = arith.ceildivui %R, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index
  %rows = arith.muli %parts, %tiles_m : index
  // Carried: the tile sent last (its counter and owner), and the slots of
  // the last two tiles if they were this device's own.
  %last:7 = tile.foreach_tile (%t, %n) in (%rows, %tiles_n)
      iter_args(%sent = %c0, %to = %c0, %has_sent = %false,
                %own1 = %c0, %has1 = %false, %own2 = %c0, %has2 = %false)
      -> (index, index, i1, index, i1, index, i1) {
    %j = arith.remui %t, %parts : index
    %m = arith.divui %t, %parts : index
    %next = arith.addi %me, %j : index
    %shifted = arith.addi %next, %c1 : index
    %owner = arith.remui %shifted, %world : index
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %tiles_k step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%owner, %m, %k] -> %a : !a_view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !b_view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    scf.if %has_sent {
      tile.signal_add %ready[%sent], %one device %to : !flags
    }
    %out = tile.cast %acc : !acc to !part
    tile.store %out, %S[%m, %n] device %owner reduce add : !part, !s_view
    scf.if %has2 {
      %mm = arith.divui %own2, %tiles_n : index
      %nn = arith.remui %own2, %tiles_n : index
      tile.signal_wait %ready[%own2], %expected at_least : !flags
      %sum = tile.load %S[%mm, %nn] : !s_view -> !part
      tile.store %sum, %C[%mm, %nn] : !part, !c_view
      %clear = tile.fill 0.0 : !part
      tile.store %clear, %S[%mm, %nn] : !part, !s_view
    }
    %first = arith.muli %m, %tiles_n : index
    %slot = arith.addi %first, %n : index
    %own = arith.cmpi eq, %owner, %me : index
    tile.yield %slot, %owner, %true, %slot, %own, %own1, %has1
        : index, index, i1, index, i1, index, i1
  }
  scf.if %last#2 {
    tile.signal_add %ready[%last#0], %one device %last#1 : !flags
  }
  // The block's last two tiles, when they were this device's.
  scf.for %i = %c0 to %c2 step %c1 {
    %older = arith.cmpi eq, %i, %c0 : index
    %slot = arith.select %older, %last#5, %last#3 : index
    %has = arith.select %older, %last#6, %last#4 : i1
    scf.if %has {
      %mm = arith.divui %slot, %tiles_n : index
      %nn = arith.remui %slot, %tiles_n : index
      tile.signal_wait %ready[%slot], %expected at_least : !flags
      %sum = tile.load %S[%mm, %nn] : !s_view -> !part
      tile.store %sum, %C[%mm, %nn] : !part, !c_view
      %clear = tile.fill 0.0 : !part
      tile.store %clear, %S[%mm, %nn] : !part, !s_view
    }
  }
}
