// tile-pipeline creates scf and arith ops in programs that had none (here:
// one per-tile copy, no loop): it loads those dialects itself, so such input
// is scheduled instead of crashing the pass.
// RUN: tk-opt %s -tile-pipeline | FileCheck %s

// CHECK-LABEL: tile.kernel @only_a_tile_copy
// CHECK: scf.if
// CHECK:   tile.load_async
// CHECK: } {tile.pipeline_copy}
// CHECK: tile.sem_wait
// CHECK: tile.sem_arrive
tile.kernel @only_a_tile_copy(%Q: !tile.gl<?x?x128xbf16>, %i: index) launch(warpgroups = 1) {
  %q = tile.alloc : !tile.st<128x128xbf16>
  %n = tile.dim %Q[1] : !tile.gl<?x?x128xbf16>
  tile.foreach_tile (%t) in (%n) {
    tile.copy %Q[%i, %t, %i] -> %q : !tile.gl<?x?x128xbf16>, !tile.st<128x128xbf16>
  }
}
