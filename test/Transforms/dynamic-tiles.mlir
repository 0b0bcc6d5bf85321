// tile-dynamic-tiles: every tile loop of a persistent kernel takes tiles
// from a counter as blocks ask (`dynamic`; `snake` dropped, `group` kept);
// kernels the dynamic walk cannot lower are left alone with a remark,
// kernels without a tile loop silently.
// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -tile-dynamic-tiles -verify-diagnostics | FileCheck %s

// CHECK-LABEL: tile.kernel @snake
// CHECK: tile.foreach_tile (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) dynamic {
// CHECK-NOT: snake
tile.kernel @snake(%n: index) launch(warpgroups = 2, grid = persistent) {
  tile.foreach_tile (%t, %h) in (%n, %n) snake {
    "test.use"(%t, %h) : (index, index) -> ()
  }
}

// -----

// Both roles' loops, with their group order and iteration count.
// CHECK-LABEL: tile.kernel @roles
// CHECK: tile.warp_specialize producer(warpgroups = 1, registers = 40) {
// CHECK-NEXT: tile.foreach_tile (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) group 8 dynamic iteration(%{{.*}}) {
// CHECK: } consumer(warpgroups = 2, registers = 232) {
// CHECK-NEXT: tile.foreach_tile (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) group 8 dynamic iteration(%{{.*}}) {
tile.kernel @roles(%n: index) launch(warpgroups = 3, grid = persistent) {
  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    tile.foreach_tile (%m, %k) in (%n, %n) group 8 iteration(%t) {
      "test.use"(%m, %k, %t) : (index, index, index) -> ()
    }
  } consumer(warpgroups = 2, registers = 232) {
    tile.foreach_tile (%m, %k) in (%n, %n) group 8 iteration(%t) {
      "test.use"(%m, %k, %t) : (index, index, index) -> ()
    }
  }
}

// -----

// Already dynamic: unchanged.
// CHECK-LABEL: tile.kernel @dynamic
// CHECK: tile.foreach_tile (%{{.*}}) in (%{{.*}}) dynamic {
tile.kernel @dynamic(%n: index) launch(warpgroups = 1, grid = persistent) {
  tile.foreach_tile (%t) in (%n) dynamic {
    "test.use"(%t) : (index) -> ()
  }
}

// -----

// No tile loop: nothing to say.
// CHECK-LABEL: tile.kernel @no_loop
tile.kernel @no_loop() launch(warpgroups = 1, grid = persistent) {
}

// -----

// CHECK-LABEL: tile.kernel @one_tile_per_block
// CHECK: tile.foreach_tile (%{{.*}}) in (%{{.*}}) snake {
// expected-remark @+1 {{tile loops left in their static order: one tile per block (grid = tiles): there is no order to change}}
tile.kernel @one_tile_per_block(%n: index) launch(warpgroups = 1) {
  tile.foreach_tile (%t) in (%n) snake {
    "test.use"(%t) : (index) -> ()
  }
}

// -----

// CHECK-LABEL: tile.kernel @cluster
// CHECK: tile.foreach_tile (%{{.*}}) in (%{{.*}}) {
// expected-remark @+1 {{tile loops left in their static order: cluster kernels hand out tiles per cluster}}
tile.kernel @cluster(%n: index) launch(warpgroups = 1, grid = persistent, cluster = [2, 1, 1]) {
  tile.foreach_tile (%t) in (%n) {
    "test.use"(%t) : (index) -> ()
  }
}

// -----

// CHECK-LABEL: tile.kernel @stream_k
// CHECK: stream_k
// CHECK-NOT: dynamic
// expected-remark @+1 {{tile loops left in their static order: a stream_k loop deals out its own order}}
tile.kernel @stream_k(%n: index) launch(warpgroups = 1, grid = persistent) {
  tile.foreach_tile (%i, %j) in (%n, %n) stream_k(%kb, %ke, %slot) of %n iteration(%t) {
    "test.use"(%kb, %ke) : (index, index) -> ()
  }
}

// -----

// CHECK-LABEL: tile.kernel @nested
// CHECK: tile.foreach_tile (%{{.*}}) in (%{{.*}}) {
// expected-remark @+1 {{tile loops left in their static order: a tile loop is neither directly in the kernel nor in a warp role}}
tile.kernel @nested(%n: index, %c: i1) launch(warpgroups = 1, grid = persistent) {
  scf.if %c {
    tile.foreach_tile (%t) in (%n) {
      "test.use"(%t) : (index) -> ()
    }
  }
}

// -----

// CHECK-LABEL: tile.kernel @producer_without_loop
// CHECK: tile.foreach_tile (%{{.*}}) in (%{{.*}}) {
// expected-remark @+1 {{tile loops left in their static order: the producer role runs no tile loop (its first thread would take the tiles)}}
tile.kernel @producer_without_loop(%n: index) launch(warpgroups = 2, grid = persistent) {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 1) {
    tile.foreach_tile (%t) in (%n) {
      "test.use"(%t) : (index) -> ()
    }
  }
}

// -----

// CHECK-LABEL: tile.kernel @producer_arrives
// CHECK-NOT: dynamic
// expected-remark @+1 {{tile loops left in their static order: the producer role synchronises its warps (only its first warp walks a dynamic loop)}}
tile.kernel @producer_arrives(%n: index) launch(warpgroups = 2, grid = persistent) {
  %sem = tile.alloc : !tile.sem<1>
  tile.warp_specialize producer(warpgroups = 1) {
    tile.foreach_tile (%t) in (%n) {
      tile.sem_arrive %sem
    }
  } consumer(warpgroups = 1) {
    tile.foreach_tile (%t) in (%n) {
      "test.use"(%t) : (index) -> ()
    }
  }
}

// -----

// CHECK-LABEL: tile.kernel @producer_per_thread
// CHECK-NOT: dynamic
// expected-remark @+1 {{tile loops left in their static order: the producer role works per thread (only its first warp walks a dynamic loop)}}
tile.kernel @producer_per_thread(%n: index) launch(warpgroups = 2, grid = persistent) {
  tile.warp_specialize producer(warpgroups = 1) {
    tile.foreach_tile (%t) in (%n) {
      %x = tile.fill 1.0 : !tile.rv<64xf32, warpgroup>
      "test.use"(%x) : (!tile.rv<64xf32, warpgroup>) -> ()
    }
  } consumer(warpgroups = 1) {
    tile.foreach_tile (%t) in (%n) {
      "test.use"(%t) : (index) -> ()
    }
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  // CHECK-LABEL: tile.kernel @amd
  // CHECK: tile.foreach_tile (%{{.*}}) in (%{{.*}}) {
  // expected-remark @+1 {{tile loops left in their static order: the dynamic tile order is lowered for NVIDIA targets only}}
  tile.kernel @amd(%n: index) launch(warpgroups = 1, grid = persistent) {
    tile.foreach_tile (%t) in (%n) {
      "test.use"(%t) : (index) -> ()
    }
  }
}

// -----

!v = !tile.gl<?x?xf32>

// A block's one tile counter and queue serve one walk of the tiles: two
// tile loops one after another keep their static order.
// CHECK-LABEL: tile.kernel @two_walks
// CHECK-NOT: dynamic
// expected-remark @+1 {{tile loops left in their static order: several tile loops run one after another in a block}}
tile.kernel @two_walks(%X: !v, %Y: !v, %n: index) launch(warpgroups = 1, grid = persistent) {
  %c0 = arith.constant 0 : index
  tile.foreach_tile (%t) in (%n) {
    %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
    tile.store %x, %X[%t, %c0] : !tile.rt<64x64xf32, warpgroup>, !v
  }
  tile.foreach_tile (%t) in (%n) {
    %y = tile.fill 2.0 : !tile.rt<64x64xf32, warpgroup>
    tile.store %y, %Y[%t, %c0] : !tile.rt<64x64xf32, warpgroup>, !v
  }
}
