// An mma's `tile.split` attribute overrides tile-warp-specialize's mma-split
// option for that product: "contraction" under the default (columns) option
// splits along K, "columns" under mma-split=contraction splits by columns.
// Into a view in fragment order, each warpgroup's part is staged in its own
// shared vector (a ring with one slot per warpgroup) and goes out with one
// bulk copy.
// RUN: tk-opt %s -split-input-file -tile-pipeline -tile-warp-specialize | FileCheck %s
// RUN: tk-opt %s -split-input-file -tile-pipeline -tile-warp-specialize=mma-split=contraction | FileCheck %s

!view = !tile.gl<?x?xbf16>
!frag = !tile.gl<?x128xf32, fragments>

// CHECK-LABEL: tile.kernel @along_k
// CHECK: %[[BUF:.*]] = tile.alloc : !tile.sv<2x8192xf32>
// CHECK: consumer(warpgroups = 2
// CHECK: %[[WG:.*]] = tile.warpgroup_id
// CHECK: tile.barrier warpgroup
// CHECK-NOT: tile.barrier block
// CHECK: %[[P:.*]] = tile.mma AtB %{{.*}}, %{{.*}} {tile.split = "contraction"} : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, warpgroup>
// CHECK: %[[S:.*]] = tile.mul %[[P]], %{{.*}} : !tile.rt<64x128xf32, warpgroup>, f32
// CHECK: %[[SLOT:.*]] = tile.slot %[[BUF]][%[[WG]]] : !tile.sv<2x8192xf32>
// CHECK: tile.store_async_wait
// CHECK: tile.store %[[S]], %[[SLOT]] : !tile.rt<64x128xf32, warpgroup>, !tile.sv<8192xf32>
// CHECK: tile.store_async %[[SLOT]] -> %{{.*}}[%{{.*}}, %{{.*}}] reduce add : !tile.sv<8192xf32>, !tile.gl<?x128xf32, fragments>
tile.kernel @along_k(%A: !view, %B: !view, %C: !frag, %s: f32) launch(warpgroups = 2) {
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
      %p = tile.mma AtB %d, %b {tile.split = "contraction"} : !tile.st<128x64xbf16>, !tile.st<128x128xbf16> -> !tile.rt<64x128xf32, block>
      %e = tile.mul %p, %s : !tile.rt<64x128xf32, block>, f32
      tile.store %e, %C[%m, %c0] reduce add : !tile.rt<64x128xf32, block>, !frag
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!frag = !tile.gl<?x128xf32, fragments>

// CHECK-LABEL: tile.kernel @by_columns
// CHECK: %[[BUF:.*]] = tile.alloc : !tile.sv<2x4096xf32>
// CHECK: consumer(warpgroups = 2
// CHECK: tile.barrier block
// CHECK: tile.mma AtB %{{.*}}, %{{.*}} {tile.split = "columns"} : !tile.st<128x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
// CHECK: tile.store %{{.*}}, %{{.*}} : !tile.rt<64x64xf32, warpgroup>, !tile.sv<4096xf32>
// CHECK: tile.store_async %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] reduce add : !tile.sv<4096xf32>, !tile.gl<?x128xf32, fragments>
tile.kernel @by_columns(%A: !view, %B: !view, %C: !frag, %s: f32) launch(warpgroups = 2) {
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
      %p = tile.mma AtB %d, %b {tile.split = "columns"} : !tile.st<128x64xbf16>, !tile.st<128x128xbf16> -> !tile.rt<64x128xf32, block>
      %e = tile.mul %p, %s : !tile.rt<64x128xf32, block>, f32
      tile.store %e, %C[%m, %c0] reduce add : !tile.rt<64x128xf32, block>, !frag
    }
  }
}
