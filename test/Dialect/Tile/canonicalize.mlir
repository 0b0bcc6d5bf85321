// RUN: tk-opt %s -canonicalize -allow-unregistered-dialect | FileCheck %s

// A static dimension folds to a constant; a dynamic one stays.
// CHECK-LABEL: tile.kernel @dims
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[D0:.*]] = tile.dim %{{.*}}[0] : !tile.gl<?x128xbf16>
// CHECK: "test.use"(%[[D0]], %[[C128]])
tile.kernel @dims(%g: !tile.gl<?x128xbf16>) {
  %d0 = tile.dim %g[0] : !tile.gl<?x128xbf16>
  %d1 = tile.dim %g[1] : !tile.gl<?x128xbf16>
  "test.use"(%d0, %d1) : (index, index) -> ()
}

// A conversion to the same layout is removed; a real one is kept.
// CHECK-LABEL: tile.kernel @conversions
// CHECK: %[[X:.*]] = "test.source"
// CHECK: %[[Y:.*]] = tile.convert_layout %[[X]] : {{.*}}#tile.mma_acc> to {{.*}}#tile.row>
// CHECK: "test.use"(%[[X]], %[[Y]])
tile.kernel @conversions() {
  %x = "test.source"() : () -> !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc>
  %same = tile.convert_layout %x : !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc> to !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc>
  %other = tile.convert_layout %x : !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc> to !tile.rt<64x64xbf16, warpgroup, #tile.row>
  "test.use"(%same, %other) : (!tile.rt<64x64xbf16, warpgroup, #tile.mma_acc>, !tile.rt<64x64xbf16, warpgroup, #tile.row>) -> ()
}

// Pure ops without uses disappear; memory and sync ops stay.
// CHECK-LABEL: tile.kernel @side_effects
// CHECK-NOT: tile.fill
// CHECK: tile.alloc
// CHECK: tile.sem_init
// CHECK: tile.barrier block
tile.kernel @side_effects() {
  %dead = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
  %s = tile.alloc : !tile.sem
  tile.sem_init %s, 1 : !tile.sem
  tile.barrier block
}
