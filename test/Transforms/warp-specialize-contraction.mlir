// tile-warp-specialize with mma-split=contraction: an mma whose 64 rows do
// not split over two consumer warpgroups, and whose result is only scaled
// and add-reduced to global memory, is split along K instead of by columns:
// each warpgroup multiplies its rows of A (transposed: K runs down its rows)
// by its rows of B and add-reduces its own part. When no shared tile the
// consumers write is then read across warpgroups, their block barriers
// become warpgroup barriers.
// RUN: tk-opt %s -split-input-file -tile-pipeline -tile-warp-specialize=mma-split=contraction -verify-diagnostics | FileCheck %s
// RUN: not tk-opt %s -split-input-file -tile-pipeline -tile-warp-specialize=mma-split=rows 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: 'mma-split' must be 'columns' or 'contraction', got 'rows'

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @contraction
// CHECK: %[[BUF:.*]] = tile.alloc : !tile.st<128x128xf32>
// CHECK: consumer(warpgroups = 2
// CHECK: %[[WG:.*]] = tile.warpgroup_id
// CHECK: scf.for
// CHECK: %[[OWN:.*]] = tile.subtile %[[D:.*]][%[[WG]], %{{.*}}] : !tile.st<128x64xbf16> to !tile.st<64x64xbf16>
// CHECK: tile.store %{{.*}}, %[[OWN]] : !tile.rt<64x64xbf16, warpgroup>, !tile.st<64x64xbf16>
// CHECK: tile.fence async_proxy
// CHECK: tile.barrier warpgroup
// CHECK-NOT: tile.barrier block
// CHECK: %[[A:.*]] = tile.subtile %[[D]][%[[WG]], %{{.*}}] : !tile.st<128x64xbf16> to !tile.st<64x64xbf16>
// CHECK: %[[B:.*]] = tile.subtile %{{.*}}[%[[WG]], %{{.*}}] : !tile.st<128x128xbf16> to !tile.st<64x128xbf16>
// CHECK: %[[P:.*]] = tile.mma AtB %[[A]], %[[B]] : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, warpgroup>
// CHECK: %[[S:.*]] = tile.mul %[[P]], %{{.*}} : !tile.rt<64x128xf32, warpgroup>, f32
// CHECK: %[[SLICE:.*]] = tile.subtile %[[BUF]][%[[WG]], %{{.*}}] : !tile.st<128x128xf32> to !tile.st<64x128xf32>
// CHECK: tile.store %[[S]], %[[SLICE]]
// CHECK: tile.store_async %[[SLICE]] -> %{{.*}}[%{{.*}}, %{{.*}}] reduce add : !tile.st<64x128xf32>
tile.kernel @contraction(%A: !view, %B: !view, %C: !tile.gl<?x?xf32>, %s: f32) launch(warpgroups = 2) {
  %d = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %A[0] : !view
  tile.foreach_tile (%m) in (%n) {
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %B[%k, %c0] -> %b : !view, !tile.st<128x128xbf16>
      %x = tile.fill 1.0 : !tile.rt<128x64xbf16, block>
      tile.store %x, %d : !tile.rt<128x64xbf16, block>, !tile.st<128x64xbf16>
      tile.fence async_proxy
      tile.barrier block
      %p = tile.mma AtB %d, %b : !tile.st<128x64xbf16>, !tile.st<128x128xbf16> -> !tile.rt<64x128xf32, block>
      %e = tile.mul %p, %s : !tile.rt<64x128xf32, block>, f32
      tile.store %e, %C[%m, %c0] reduce add : !tile.rt<64x128xf32, block>, !tile.gl<?x?xf32>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// A result that is not only reduced away (here exponentiated) is split by
// columns; each warpgroup reads all of the tile the consumers wrote, so the
// block barrier stays.
// CHECK-LABEL: tile.kernel @not_linear
// CHECK: consumer(warpgroups = 2
// CHECK: tile.barrier block
// CHECK: tile.mma AtB %{{.*}}, %{{.*}} : !tile.st<128x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
// CHECK: tile.exp2 %{{.*}} : !tile.rt<64x64xf32, warpgroup>
tile.kernel @not_linear(%A: !view, %B: !view, %C: !tile.gl<?x?xf32>) launch(warpgroups = 2) {
  %d = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %A[0] : !view
  tile.foreach_tile (%m) in (%n) {
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %B[%k, %c0] -> %b : !view, !tile.st<128x128xbf16>
      %x = tile.fill 1.0 : !tile.rt<128x64xbf16, block>
      tile.store %x, %d : !tile.rt<128x64xbf16, block>, !tile.st<128x64xbf16>
      tile.fence async_proxy
      tile.barrier block
      %p = tile.mma AtB %d, %b : !tile.st<128x64xbf16>, !tile.st<128x128xbf16> -> !tile.rt<64x128xf32, block>
      %e = tile.exp2 %p : !tile.rt<64x128xf32, block>
      tile.store %e, %C[%m, %c0] reduce add : !tile.rt<64x128xf32, block>, !tile.gl<?x?xf32>
    }
  }
}
