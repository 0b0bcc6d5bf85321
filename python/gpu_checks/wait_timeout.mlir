// The wait time limit of -tile-to-nvidia="wait-timeout-ms=N" on a GPU:
// every block copies its 64-row tile of X (a TMA copy completing on a
// semaphore, so a timed wait that finishes), doubles it and stores it to Y;
// the block whose tile index equals `stuck` first waits on a semaphore that
// nothing arrives on, and the block whose index equals `polled` for a
// counter that nothing adds to (`counters[0]`, zero, to reach 1): either
// must end the launch with a message naming that block and the line of its
// wait instead of hanging.
!x_tile = !tile.st<64x64xbf16, #tile.swizzle<128>>
!r16 = !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc>
!r32 = !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
!view = !tile.gl<?x64xbf16>

tile.kernel @wait_timeout(%X: !view, %Y: !view, %stuck: index,
                          %counters: !tile.gl<?xi32>, %polled: index)
    launch(warpgroups = 1) {
  %x = tile.alloc : !x_tile
  %ready = tile.alloc : !tile.sem
  %never = tile.alloc : !tile.sem
  tile.sem_init %ready, 1 : !tile.sem
  tile.sem_init %never, 1 : !tile.sem
  tile.fence sem_init
  tile.barrier block
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %phase = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %two = arith.constant 2.0 : f32
  %n = tile.dim %X[0] : !view
  %tiles = arith.ceildivui %n, %c64 : index
  tile.foreach_tile (%i) in (%tiles) {
    %is_stuck = arith.cmpi eq, %i, %stuck : index
    scf.if %is_stuck {
      tile.sem_wait %never, %phase
    }
    %is_polled = arith.cmpi eq, %i, %polled : index
    scf.if %is_polled {
      tile.signal_wait %counters[%c0], %one at_least : !tile.gl<?xi32>
    }
    tile.sem_expect %ready, %x : !x_tile
    tile.load_async %X[%i, %c0] -> %x, %ready : !view, !x_tile
    tile.sem_wait %ready, %phase
    %r = tile.load %x : !x_tile -> !r16
    %rf = tile.cast %r : !r16 to !r32
    %doubled = tile.mul %rf, %two : !r32, f32
    %d16 = tile.cast %doubled : !r32 to !r16
    tile.store %d16, %Y[%i, %c0] : !r16, !view
  }
}
