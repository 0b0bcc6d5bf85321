// RUN: tk-opt %s -allow-unregistered-dialect | tk-opt -allow-unregistered-dialect | FileCheck %s
// RUN: tk-opt %s -allow-unregistered-dialect -mlir-print-op-generic | tk-opt -allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: tile.kernel @empty()
// CHECK-NOT: launch
tile.kernel @empty() {
}

// CHECK-LABEL: tile.kernel @launch_shape(%{{.*}}: !tile.gl<?x?xbf16>, %{{.*}}: f32, %{{.*}}: i1, %{{.*}}: index)
// CHECK-SAME: launch(warpgroups = 3, grid = persistent, cluster = [2, 1, 1])
// CHECK-SAME: attributes {note = "kept"}
tile.kernel @launch_shape(%a: !tile.gl<?x?xbf16>, %s: f32, %c: i1, %n: index)
    launch(warpgroups = 3, grid = persistent, cluster = [2, 1, 1])
    attributes {note = "kept"} {
}

// CHECK-LABEL: tile.kernel @two_per_sm()
// CHECK-SAME: launch(warpgroups = 2, grid = persistent, blocks_per_sm = 2)
tile.kernel @two_per_sm() launch(warpgroups = 2, grid = persistent, blocks_per_sm = 2) {
}

// CHECK-LABEL: tile.kernel @tile_loops
// CHECK: %[[M:.*]] = tile.dim %{{.*}}[0] : !tile.gl<?x?xbf16>
// CHECK: tile.foreach_tile (%{{.*}}) in (%[[M]]) {
// CHECK: tile.foreach_tile (%[[I:.*]], %[[J:.*]]) in (%[[M]], %[[M]]) group 8 iteration(%[[T:.*]]) {
// CHECK-NEXT: "test.use"(%[[I]], %[[J]], %[[T]])
// CHECK: tile.foreach_tile (%{{.*}}, %{{.*}}, %{{.*}}) in (%[[M]], %[[M]], %[[M]]) attributes {note = 1 : i64} {
tile.kernel @tile_loops(%a: !tile.gl<?x?xbf16>) {
  %m = tile.dim %a[0] : !tile.gl<?x?xbf16>
  tile.foreach_tile (%i) in (%m) {
  }
  tile.foreach_tile (%i, %j) in (%m, %m) group 8 iteration(%t) {
    "test.use"(%i, %j, %t) : (index, index, index) -> ()
  }
  tile.foreach_tile (%i, %j, %k) in (%m, %m, %m) attributes {note = 1} {
  }
}

// CHECK-LABEL: tile.kernel @roles()
// CHECK-SAME: launch(warpgroups = 3)
// CHECK: tile.warp_specialize producer(warpgroups = 1, registers = 40) {
// CHECK: %[[WG:.*]] = tile.warpgroup_id
// CHECK: } consumer(warpgroups = 2, registers = 232) {
// CHECK: tile.warpgroup_id
// CHECK: tile.warp_specialize producer(warpgroups = 1) {
// CHECK: } consumer(warpgroups = 2) {
// CHECK: tile.warp_specialize producer(warpgroups = 1, registers = 24) {
// CHECK: } consumer(warpgroups = 2, registers = 240, stagger = 2400) {
// CHECK: tile.warp_specialize producer(warpgroups = 1) {
// CHECK: } consumer(warpgroups = 2, stagger = 0) {
tile.kernel @roles() launch(warpgroups = 3) {
  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    %wg = tile.warpgroup_id
    "test.use"(%wg) : (index) -> ()
  } consumer(warpgroups = 2, registers = 232) {
    %wg = tile.warpgroup_id
    "test.use"(%wg) : (index) -> ()
  }
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
  }
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 2, registers = 240, stagger = 2400) {
  }
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(stagger = 0, warpgroups = 2) {
  }
}

// Grid-level roles: the communicate region's index and count arguments,
// a warp-specialized compute region.
// CHECK-LABEL: tile.kernel @block_roles
// CHECK: tile.block_roles communicate(blocks = 8) (%[[B:.*]], %[[NB:.*]]) {
// CHECK-NEXT: "test.use"(%[[B]], %[[NB]]) : (index, index) -> ()
// CHECK-NEXT: } compute {
// CHECK-NEXT: tile.warp_specialize producer(warpgroups = 1) {
// CHECK: tile.foreach_tile
tile.kernel @block_roles(%n: index) launch(warpgroups = 3, grid = persistent) {
  tile.block_roles communicate(blocks = 8) (%b, %nb) {
    "test.use"(%b, %nb) : (index, index) -> ()
  } compute {
    tile.warp_specialize producer(warpgroups = 1) {
      tile.foreach_tile (%i) in (%n) {
      }
    } consumer(warpgroups = 2) {
      tile.foreach_tile (%i) in (%n) {
      }
    }
  }
}

// The cycles tile-warp-specialize staggers the consumers by.
// CHECK-LABEL: tile.kernel @staggered()
// CHECK-SAME: attributes {tile.stagger = 1200 : i64}
tile.kernel @staggered() launch(warpgroups = 3) attributes {tile.stagger = 1200} {
}

// Targets are module attributes.
// CHECK-LABEL: module attributes {tile.target = "gfx950"}
// CHECK: tile.kernel @amd() launch(warpgroups = 4)
module attributes {tile.target = "gfx950"} {
  tile.kernel @amd() launch(warpgroups = 4) {
  }
}

// CHECK-LABEL: tile.kernel @cluster_rank
// CHECK: %[[R:.*]] = tile.cluster_rank
// CHECK-NEXT: "test.use"(%[[R]])
tile.kernel @cluster_rank() launch(warpgroups = 1, cluster = [2, 1, 1]) {
  %r = tile.cluster_rank
  "test.use"(%r) : (index) -> ()
}

// CHECK-LABEL: tile.kernel @part_rows
// CHECK: %[[LO:.*]], %[[HI:.*]] = tile.part_rows %{{.*}} of !tile.rt<192x128xf32, block>
// CHECK-NEXT: "test.use"(%[[LO]], %[[HI]])
tile.kernel @part_rows(%row: index) launch(warpgroups = 3) {
  %lo, %hi = tile.part_rows %row of !tile.rt<192x128xf32, block>
  "test.use"(%lo, %hi) : (index, index) -> ()
}

// CHECK-LABEL: tile.kernel @prefix_sum
// CHECK: tile.foreach_tile
// CHECK: %[[S:.*]] = tile.prefix_sum %{{.*}}
// CHECK-NEXT: "test.use"(%[[S]])
tile.kernel @prefix_sum(%n: index) launch(warpgroups = 1, grid = persistent) {
  tile.foreach_tile (%t) in (%n) {
    %trips = arith.addi %t, %n : index
    %s = tile.prefix_sum %trips
    "test.use"(%s) : (index) -> ()
  }
}

// CHECK-LABEL: tile.kernel @snake
// CHECK: tile.foreach_tile (%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}, %{{.*}}) snake iteration(%{{.*}}) {
// CHECK: tile.foreach_tile (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) group 4 snake {
tile.kernel @snake(%n: index) launch(grid = persistent) {
  tile.foreach_tile (%t, %h, %b) in (%n, %n, %n) snake iteration(%i) {
    "test.use"(%t, %h, %b, %i) : (index, index, index, index) -> ()
  }
  tile.foreach_tile (%m, %j) in (%n, %n) group 4 snake {
  }
}

// CHECK-LABEL: tile.kernel @dynamic
// CHECK: tile.foreach_tile (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) group 8 dynamic iteration(%{{.*}}) {
tile.kernel @dynamic(%n: index) launch(grid = persistent) {
  tile.foreach_tile (%m, %j) in (%n, %n) group 8 dynamic iteration(%i) {
    "test.use"(%m, %j, %i) : (index, index, index) -> ()
  }
}

// CHECK-LABEL: tile.kernel @table
// CHECK: tile.foreach_tile (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) group 8 table iteration(%{{.*}}) {
tile.kernel @table(%n: index) launch(grid = persistent) {
  tile.foreach_tile (%m, %j) in (%n, %n) group 8 table iteration(%i) {
    "test.use"(%m, %j, %i) : (index, index, index) -> ()
  }
}

// CHECK-LABEL: tile.kernel @stream_k
// CHECK: tile.foreach_tile (%[[I:.*]], %[[J:.*]]) in (%{{.*}}, %{{.*}}) group 8 stream_k(%[[KB:.*]], %[[KE:.*]], %[[S:.*]]) of %[[K:.*]] iteration(%[[T:.*]]) {
// CHECK-NEXT: "test.use"(%[[I]], %[[J]], %[[KB]], %[[KE]], %[[S]], %[[T]])
// CHECK: tile.foreach_tile (%{{.*}}) in (%{{.*}}) stream_k(%{{.*}}, %{{.*}}, %{{.*}}) of %[[K]] {
tile.kernel @stream_k(%n: index, %k: index) launch(grid = persistent) {
  tile.foreach_tile (%i, %j) in (%n, %n) group 8 stream_k(%kb, %ke, %slot) of %k iteration(%t) {
    "test.use"(%i, %j, %kb, %ke, %slot, %t) : (index, index, index, index, index, index) -> ()
  }
  tile.foreach_tile (%i) in (%n) stream_k(%kb, %ke, %slot) of %k {
  }
}

// Carried values: after the iteration count in the body, printed with the
// yield that passes them on.
// CHECK-LABEL: tile.kernel @carried
// CHECK: %[[R:.*]]:2 = tile.foreach_tile (%[[I:.*]]) in (%{{.*}}) iteration(%[[T:.*]]) iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}) -> (index, !tile.rv<64xf32, warpgroup>) {
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[A]], %[[T]] : index
// CHECK-NEXT: tile.yield %[[S]], %[[B]] : index, !tile.rv<64xf32, warpgroup>
// CHECK: "test.use"(%[[R]]#0, %[[R]]#1)
// CHECK: tile.foreach_tile (%{{.*}}) in (%{{.*}}) stream_k(%{{.*}}, %{{.*}}, %{{.*}}) of %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index) {
tile.kernel @carried(%n: index) launch(grid = persistent) {
  %c0 = arith.constant 0 : index
  %v = tile.fill 0.0 : !tile.rv<64xf32, warpgroup>
  %r:2 = tile.foreach_tile (%i) in (%n) iteration(%t)
      iter_args(%a = %c0, %b = %v) -> (index, !tile.rv<64xf32, warpgroup>) {
    %s = arith.addi %a, %t : index
    tile.yield %s, %b : index, !tile.rv<64xf32, warpgroup>
  }
  "test.use"(%r#0, %r#1) : (index, !tile.rv<64xf32, warpgroup>) -> ()
  %k = tile.foreach_tile (%i) in (%n) stream_k(%kb, %ke, %slot) of %n
      iter_args(%a = %c0) -> (index) {
    tile.yield %kb : index
  }
}

// The block's index in the grid.
// CHECK-LABEL: tile.kernel @block_id
// CHECK: %[[B:.*]] = tile.block_id
// CHECK-NEXT: "test.use"(%[[B]]) : (index) -> ()
tile.kernel @block_id() launch(grid = persistent) {
  %b = tile.block_id
  "test.use"(%b) : (index) -> ()
}
