// RUN: tk-opt %s | tk-opt | FileCheck %s
// RUN: tk-opt %s -mlir-print-op-generic | tk-opt | FileCheck %s

// CHECK-LABEL: tile.kernel @semaphores
// CHECK: tile.sem_init %[[FULL:.*]], 1 : !tile.sem<2>
// CHECK: tile.sem_init %{{.*}}, 2 : !tile.sem{{$}}
// CHECK: tile.fence sem_init
// CHECK: tile.barrier block
// CHECK: %[[F:.*]] = tile.slot %[[FULL]]
// CHECK: tile.sem_expect %[[F]], %{{.*}}, %{{.*}} : !tile.st<128x64xbf16>, !tile.sv<64xf32>
// CHECK: tile.sem_arrive %[[F]]{{$}}
// CHECK: tile.sem_wait %[[F]], %{{.*}}{{$}}
// CHECK: tile.fence async_proxy
// CHECK: tile.fence block
// CHECK: tile.barrier warpgroup
// CHECK: tile.barrier warp
tile.kernel @semaphores(%i: index, %phase: i32) {
  %full = tile.alloc : !tile.sem<2>
  %done = tile.alloc : !tile.sem
  %a = tile.alloc : !tile.st<128x64xbf16>
  %v = tile.alloc : !tile.sv<64xf32>
  tile.sem_init %full, 1 : !tile.sem<2>
  tile.sem_init %done, 2 : !tile.sem
  tile.fence sem_init
  tile.barrier block
  %f = tile.slot %full[%i] : !tile.sem<2>
  tile.sem_expect %f, %a, %v : !tile.st<128x64xbf16>, !tile.sv<64xf32>
  tile.sem_arrive %f
  tile.sem_wait %f, %phase
  tile.fence async_proxy
  tile.fence block
  tile.barrier warpgroup
  tile.barrier warp
}

// CHECK-LABEL: tile.kernel @cluster_ops
// CHECK: tile.cluster_sync
// CHECK: %[[R:.*]] = tile.cluster_rank
// CHECK: tile.load_async %{{.*}}[%[[R]], %{{.*}}] -> %{{.*}}, %[[S:.*]] multicast : !tile.gl<?x?xbf16>, !tile.st<64x256xbf16, #tile.swizzle<128>>
// CHECK: tile.load_async %{{.*}} -> %{{.*}}, %[[S]] : !tile.gl
// CHECK: tile.sem_arrive %[[S]] cluster
// CHECK: tile.sem_arrive %[[S]]{{$}}
tile.kernel @cluster_ops(%g: !tile.gl<?x?xbf16>, %i: index)
    launch(warpgroups = 1, cluster = [2, 1, 1]) {
  %b = tile.alloc : !tile.st<64x256xbf16, #tile.swizzle<128>>
  %s = tile.alloc : !tile.sem
  tile.sem_init %s, 2 : !tile.sem
  tile.cluster_sync
  %r = tile.cluster_rank
  tile.load_async %g[%r, %i] -> %b, %s multicast : !tile.gl<?x?xbf16>, !tile.st<64x256xbf16, #tile.swizzle<128>>
  tile.load_async %g[%i, %i] -> %b, %s : !tile.gl<?x?xbf16>, !tile.st<64x256xbf16, #tile.swizzle<128>>
  tile.sem_arrive %s cluster
  tile.sem_arrive %s
}

// CHECK-LABEL: tile.kernel @counters
// CHECK: tile.signal_add %{{.*}}[%{{.*}}], %{{.*}} : !tile.gl<?xi32>
// CHECK: tile.signal_add %{{.*}}[%{{.*}}], %{{.*}} after_async_stores : !tile.gl<?xi32>
// CHECK: tile.signal_wait %{{.*}}[%{{.*}}], %{{.*}} : !tile.gl<8xi32>
tile.kernel @counters(%f: !tile.gl<?xi32>, %g: !tile.gl<8xi32>, %i: index, %v: i32) {
  tile.signal_add %f[%i], %v : !tile.gl<?xi32>
  tile.signal_add %f[%i], %v after_async_stores : !tile.gl<?xi32>
  tile.signal_wait %g[%i], %v : !tile.gl<8xi32>
}

// CHECK-LABEL: tile.kernel @mma_turns
// CHECK: } consumer(warpgroups = 2) {
// CHECK-NEXT: tile.mma_turn take
// CHECK-NEXT: tile.mma_turn pass
tile.kernel @mma_turns() launch(warpgroups = 3) attributes {tile.pingpong} {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    tile.mma_turn take
    tile.mma_turn pass
  }
}

// Multi-device views: the device each op addresses, the launch's own
// index and count, and a wait for a growing counter.
// CHECK-LABEL: tile.kernel @devices
// CHECK: %[[ME:.*]] = tile.device_id
// CHECK: %[[W:.*]] = tile.device_count
// CHECK: tile.signal_add %{{.*}}[%{{.*}}], %{{.*}} device %[[W]] : !tile.gl<?xi32, devices = 4>
// CHECK: tile.signal_wait %{{.*}}[%{{.*}}], %{{.*}} at_least : !tile.gl<?xi32, devices = 4>
// CHECK: tile.signal_wait %{{.*}}[%{{.*}}], %{{.*}} device %[[ME]] at_least : !tile.gl<?xi32, devices = 4>
// CHECK: tile.signal_wait %{{.*}}[%{{.*}}], %{{.*}} at_least : !tile.gl<?xi32>
// CHECK: tile.device_barrier %{{.*}}[%{{.*}}], %{{.*}} : !tile.gl<?xi32, devices = 4>
// CHECK: tile.store_async %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] device %[[ME]] reduce add : !tile.st<128x64xbf16>, !tile.gl<?x?xbf16, devices = 4>
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] device %[[W]] : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?xbf16, devices = 4>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] device %[[W]] -> %{{.*}} : !tile.gl<?x?xbf16, devices = 4>, !tile.st<128x64xbf16>
// CHECK: tile.load_async %{{.*}}[%{{.*}}, %{{.*}}] device %[[ME]] -> %{{.*}}, %{{.*}} : !tile.gl<?x?xbf16, devices = 4>, !tile.st<128x64xbf16>
tile.kernel @devices(%f: !tile.gl<?xi32, devices = 4>, %g: !tile.gl<?xi32>,
                     %c: !tile.gl<?x?xbf16, devices = 4>, %i: index,
                     %v: i32) {
  %me = tile.device_id
  %world = tile.device_count
  tile.signal_add %f[%i], %v device %world : !tile.gl<?xi32, devices = 4>
  tile.signal_wait %f[%i], %v at_least : !tile.gl<?xi32, devices = 4>
  tile.signal_wait %f[%i], %v device %me at_least : !tile.gl<?xi32, devices = 4>
  tile.signal_wait %g[%i], %v at_least : !tile.gl<?xi32>
  tile.device_barrier %f[%i], %v : !tile.gl<?xi32, devices = 4>
  %s = tile.alloc : !tile.st<128x64xbf16>
  tile.store_async %s -> %c[%i, %i] device %me reduce add : !tile.st<128x64xbf16>, !tile.gl<?x?xbf16, devices = 4>
  %x = tile.fill 1.0 : !tile.rt<64x64xbf16, warpgroup>
  tile.store %x, %c[%i, %i] device %world : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?xbf16, devices = 4>
  tile.copy %c[%i, %i] device %world -> %s : !tile.gl<?x?xbf16, devices = 4>, !tile.st<128x64xbf16>
  %sem = tile.alloc : !tile.sem
  tile.load_async %c[%i, %i] device %me -> %s, %sem : !tile.gl<?x?xbf16, devices = 4>, !tile.st<128x64xbf16>
}
