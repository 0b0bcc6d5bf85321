// GEMM + reduce-scatter (the row-parallel linear layer), one process per GPU:
// C = sum over devices d of A_d · B_d, rows scattered: device r keeps rows
// [r R, (r + 1) R) of the sum, R = M / world. bf16 in and out, f32
// accumulation per device, the partial sums added in bf16 by TMA reduce
// stores into the owner's memory through NVLink, overlapped with the next
// tiles' products.
//
// A is this device's [M, K / world] viewed as [world, R, K / world], so a
// 128-row tile never straddles two owners (ragged R: the last tile of each
// owner is cut by TMA's bounds). The tile loop starts with the next device
// and ends with its own, so at any moment the devices send to different
// peers. Every device's C must be zero before anyone adds to it: the
// launcher zeroes it before the launch, each block announces at its start
// to every device that this one's C is zero (`flags[1]`), and the
// consumers wait for all the announcements before a tile's store, not
// before its products: the first tile's products overlap the devices'
// skew in reaching the launch (a barrier before the tiles took 0.630 /
// 1.017 / 1.727 ms for the op against 0.571 / 0.971 / 1.650 at M = N = K =
// 8192, M = 16384, N = 28672; 4 x H200). At the end a barrier across the
// blocks of all devices (`flags[0]`, after each block's stores are
// written) makes C complete when the launch is.
//
// Every launch waits for the same totals (`total`: the blocks of every
// device's grid), so that a captured CUDA graph can replay it. The
// launcher zeroes `flags[0]` with C before the launch (a peer adds to it
// only after it has seen this launch's announcements). `flags[1]` may
// already hold the next launch's announcements of a peer that left the
// barrier first, so it is not zeroed: block 0 takes this launch's count
// off it after the barrier, when every block of this device has waited.
!a_view = !tile.gl<?x?x?xbf16>
!b_view = !tile.gl<?x?xbf16>
!c_view = !tile.gl<?x?xbf16, devices = 8>
!flags = !tile.gl<?xi32, devices = 8>
!acc = !tile.rt<128x256xf32, block>

tile.kernel @gemm_reduce_scatter(%A: !a_view, %B: !b_view, %C: !c_view,
                                 %flags: !flags, %total: i32)
    launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %me = tile.device_id
  %world = tile.device_count
  %R = tile.dim %A[1] : !a_view
  %K = tile.dim %A[2] : !a_view
  %N = tile.dim %B[1] : !b_view
  %parts = tile.dim %A[0] : !a_view
  %tiles_m = arith.ceildivui %R, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index
  %one = arith.constant 1 : i32
  scf.for %d = %c0 to %world step %c1 {
    tile.signal_add %flags[%c1], %one device %d : !flags
  }
  %rows = arith.muli %parts, %tiles_m : index
  tile.foreach_tile (%t, %n) in (%rows, %tiles_n) {
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
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.signal_wait %flags[%c1], %total at_least : !flags
    tile.store %out, %C[%m, %n] device %owner reduce add : !tile.rt<128x256xbf16, block>, !c_view
  }
  // (Satisfied already in a block that stored a tile; a block without
  // tiles must not add to a peer's barrier counter before that peer has
  // zeroed it for this launch.)
  tile.signal_wait %flags[%c1], %total at_least : !flags
  tile.device_barrier %flags[%c0], %total : !flags
  %block = tile.block_id
  %first = arith.cmpi eq, %block, %c0 : index
  scf.if %first {
    %zero_i32 = arith.constant 0 : i32
    %undo = arith.subi %zero_i32, %total : i32
    tile.signal_add %flags[%c1], %undo : !flags
  }
}
