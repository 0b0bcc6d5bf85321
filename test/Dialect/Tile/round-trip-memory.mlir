// RUN: tk-opt %s | tk-opt | FileCheck %s
// RUN: tk-opt %s -mlir-print-op-generic | tk-opt | FileCheck %s

!ring = !tile.st<4x128x64xbf16, #tile.swizzle<128>>
!tile = !tile.st<128x64xbf16, #tile.swizzle<128>>

// CHECK-LABEL: tile.kernel @buffers
// CHECK: %[[A:.*]] = tile.alloc : !tile.st<4x128x64xbf16, #tile.swizzle<128>>
// CHECK: %[[V:.*]] = tile.alloc : !tile.sv<2x64xf32>
// CHECK: %[[S:.*]] = tile.alloc : !tile.sem<4>
// CHECK: tile.slot %[[A]][%{{.*}}] : !tile.st<4x128x64xbf16, #tile.swizzle<128>>
// CHECK: tile.slot %[[V]][%{{.*}}] : !tile.sv<2x64xf32>
// CHECK: tile.slot %[[S]][%{{.*}}] : !tile.sem<4>
// CHECK: tile.subtile %{{.*}}[%{{.*}}, %{{.*}}] : !tile.st<128x64xbf16, #tile.swizzle<128>> to !tile.st<64x64xbf16, #tile.swizzle<128>>
tile.kernel @buffers(%i: index) {
  %a = tile.alloc : !ring
  %v = tile.alloc : !tile.sv<2x64xf32>
  %s = tile.alloc : !tile.sem<4>
  %a1 = tile.slot %a[%i] : !ring
  %v1 = tile.slot %v[%i] : !tile.sv<2x64xf32>
  %s1 = tile.slot %s[%i] : !tile.sem<4>
  %half = tile.subtile %a1[%i, %i] : !tile to !tile.st<64x64xbf16, #tile.swizzle<128>>
}

// CHECK-LABEL: tile.kernel @transfers
// CHECK: tile.load_async %[[G:.*]][%{{.*}}, %{{.*}}] -> %{{.*}}, %{{.*}} : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
// CHECK: tile.load_async %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] -> %{{.*}}, %{{.*}} : !tile.gl<?x?x?xf32>, !tile.sv<64xf32>
// CHECK: tile.load %{{.*}} : !tile.st<128x64xbf16> -> !tile.rt<128x64xbf16, block>
// CHECK: tile.load %{{.*}} : !tile.sv<64xf32> -> !tile.rv<64xf32, warpgroup>
// CHECK: tile.load %[[G]][%{{.*}}, %{{.*}}] : !tile.gl<?x?xbf16> -> !tile.rt<64x64xbf16, warpgroup>
// CHECK: tile.store %{{.*}}, %{{.*}} : !tile.rt<128x64xbf16, block>, !tile.st<128x64xbf16>
// CHECK: tile.store %{{.*}}, %{{.*}} : !tile.rv<64xf32, warpgroup>, !tile.sv<64xf32>
// CHECK: tile.store %{{.*}}, %[[G]][%{{.*}}, %{{.*}}] : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?xbf16>
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] reduce add : !tile.rt<64x64xf32, warpgroup>, !tile.gl<?x?xf32>
// CHECK: tile.store_async %{{.*}} -> %[[G]][%{{.*}}, %{{.*}}] : !tile.st<128x64xbf16>, !tile.gl<?x?xbf16>
// CHECK: tile.store_async %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] reduce add : !tile.st<64x64xf32>, !tile.gl<?x?xf32>
// CHECK: tile.store %{{.*}}, %[[FR:[a-z0-9]+]][%{{.*}}, %{{.*}}] reduce add : !tile.rt<64x64xf32, warpgroup>, !tile.gl<?x64xf32, fragments>
// CHECK: tile.load %[[FR]][%{{.*}}, %{{.*}}] : !tile.gl<?x64xf32, fragments> -> !tile.rt<64x64xf32, warpgroup>
// CHECK: tile.store %{{.*}}, %[[STAGE:[a-z0-9]+]] : !tile.rt<64x64xf32, warpgroup>, !tile.sv<4096xf32>
// CHECK: tile.store_async %[[STAGE]] -> %[[FR]][%{{.*}}, %{{.*}}] reduce add : !tile.sv<4096xf32>, !tile.gl<?x64xf32, fragments>
// CHECK: tile.store_async_wait{{$}}
// CHECK: tile.store_async_wait {pending = 1 : i32}
// CHECK: tile.store_async_wait written{{$}}
// CHECK: tile.prefetch %[[G]][%{{.*}}, %{{.*}}] box [128, 64] : !tile.gl<?x?xbf16>
tile.kernel @transfers(%g: !tile.gl<?x?xbf16>, %f: !tile.gl<?x?xf32>,
                       %l: !tile.gl<?x?x?xf32>, %i: index,
                       %fr: !tile.gl<?x64xf32, fragments>) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %acc = tile.alloc : !tile.st<64x64xf32>
  %v = tile.alloc : !tile.sv<64xf32>
  %s = tile.alloc : !tile.sem
  tile.load_async %g[%i, %i] -> %a, %s : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
  tile.load_async %l[%i, %i, %i] -> %v, %s : !tile.gl<?x?x?xf32>, !tile.sv<64xf32>
  %r = tile.load %a : !tile.st<128x64xbf16> -> !tile.rt<128x64xbf16, block>
  %rv = tile.load %v : !tile.sv<64xf32> -> !tile.rv<64xf32, warpgroup>
  %rg = tile.load %g[%i, %i] : !tile.gl<?x?xbf16> -> !tile.rt<64x64xbf16, warpgroup>
  tile.store %r, %a : !tile.rt<128x64xbf16, block>, !tile.st<128x64xbf16>
  tile.store %rv, %v : !tile.rv<64xf32, warpgroup>, !tile.sv<64xf32>
  tile.store %rg, %g[%i, %i] : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?xbf16>
  %rf = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
  tile.store %rf, %f[%i, %i] reduce add : !tile.rt<64x64xf32, warpgroup>, !tile.gl<?x?xf32>
  tile.store_async %a -> %g[%i, %i] : !tile.st<128x64xbf16>, !tile.gl<?x?xbf16>
  tile.store_async %acc -> %f[%i, %i] reduce add : !tile.st<64x64xf32>, !tile.gl<?x?xf32>
  tile.store %rf, %fr[%i, %i] reduce add : !tile.rt<64x64xf32, warpgroup>, !tile.gl<?x64xf32, fragments>
  %rfr = tile.load %fr[%i, %i] : !tile.gl<?x64xf32, fragments> -> !tile.rt<64x64xf32, warpgroup>
  %stage = tile.alloc : !tile.sv<4096xf32>
  tile.store %rf, %stage : !tile.rt<64x64xf32, warpgroup>, !tile.sv<4096xf32>
  tile.store_async %stage -> %fr[%i, %i] reduce add : !tile.sv<4096xf32>, !tile.gl<?x64xf32, fragments>
  tile.store_async_wait
  tile.store_async_wait {pending = 1 : i32}
  tile.store_async_wait written
  tile.prefetch %g[%i, %i] box [128, 64] : !tile.gl<?x?xbf16>
}

// CHECK-LABEL: tile.kernel @copies
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}} : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] -> %{{.*}} : !tile.gl<?x?x?xf32>, !tile.sv<64xf32>
tile.kernel @copies(%g: !tile.gl<?x?xbf16>, %h: !tile.gl<?x?x?xf32>, %i: index) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %v = tile.alloc : !tile.sv<64xf32>
  tile.copy %g[%i, %i] -> %a : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
  tile.copy %h[%i, %i, %i] -> %v : !tile.gl<?x?x?xf32>, !tile.sv<64xf32>
}
