// Grid-level roles through the scheduling passes: tile-pipeline makes the
// copies of both regions asynchronous (the communicate region's loop runs
// once per block, its ring starts at stage 0); tile-warp-specialize splits
// the compute region's tile loop into producer and consumer warpgroups and
// leaves the communicate region to all of the block's warpgroups, whose
// ring now counts one more arrival (the producer's warpgroup runs it too).
// RUN: tk-opt %s -tile-pipeline | FileCheck %s --check-prefix=PIPE
// RUN: tk-opt %s -tile-pipeline -tile-warp-specialize | FileCheck %s --check-prefix=WS

// PIPE-LABEL: tile.kernel @block_roles
// PIPE-SAME: launch(warpgroups = 2, grid = persistent)
// PIPE: tile.sem_init %{{.*}}, 1 : !tile.sem<3>
// PIPE-NEXT: tile.sem_init %{{.*}}, 2 : !tile.sem<3>
// PIPE: tile.sem_init %{{.*}}, 1 : !tile.sem<3>
// PIPE-NEXT: tile.sem_init %{{.*}}, 2 : !tile.sem<3>
// PIPE: tile.block_roles communicate(blocks = 2)
// PIPE: tile.load_async %{{.*}} -> %{{.*}}, %{{.*}} : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
// PIPE-NOT: tile.copy
// PIPE: } {tile.pipelined = 3 : i64}
// PIPE-NEXT: } compute {
// PIPE: tile.foreach_tile
// PIPE-NOT: tile.copy
// PIPE: } {tile.pipelined = 3 : i64}

// WS-LABEL: tile.kernel @block_roles
// WS-SAME: launch(warpgroups = 3, grid = persistent)
// The compute ring's empty semaphore counts the two consumers, the
// communicate ring's all three warpgroups.
// WS: tile.sem_init %{{.*}}, 1 : !tile.sem<3>
// WS-NEXT: tile.sem_init %{{.*}}, 2 : !tile.sem<3>
// WS: tile.sem_init %{{.*}}, 1 : !tile.sem<3>
// WS-NEXT: tile.sem_init %[[CEMPTY:.*]], 3 : !tile.sem<3>
// WS: tile.block_roles communicate(blocks = 2) (%[[B:.*]], %[[NB:.*]]) {
// WS-NOT: tile.warp_specialize
// WS: scf.for %{{.*}} = %[[B]] to %{{.*}} step %[[NB]] {
// WS: tile.store_async
// WS: tile.slot %[[CEMPTY]]
// WS-NEXT: tile.sem_arrive
// WS: } {tile.pipelined = 3 : i64}
// WS-NEXT: } compute {
// WS-NEXT: tile.warp_specialize producer(warpgroups = 1, registers = 40) {
// WS: tile.load_async
// WS: } consumer(warpgroups = 2, registers = 232) {
// WS-NOT: tile.load_async
// WS: tile.mma
!view = !tile.gl<?x?xbf16>
tile.kernel @block_roles(%A: !view, %C: !view, %n: index) launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %s = tile.alloc : !tile.st<128x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.block_roles communicate(blocks = 2) (%blk, %nblk) {
    scf.for %k = %blk to %n step %nblk {
      tile.copy %A[%k, %c0] -> %s : !view, !tile.st<128x64xbf16>
      tile.store_async %s -> %C[%k, %c0] : !tile.st<128x64xbf16>, !view
      tile.store_async_wait
    }
  } compute {
    tile.foreach_tile (%m) in (%n) {
      %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
      %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %zero) -> (!tile.rt<128x64xf32, block>) {
        tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
        tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
        %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
        scf.yield %y : !tile.rt<128x64xf32, block>
      }
      %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
      tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    }
  }
}
