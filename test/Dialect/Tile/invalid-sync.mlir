// RUN: tk-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

tile.kernel @k() {
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.sem_init' op attribute 'count' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1}}
  tile.sem_init %s, 0 : !tile.sem
}

// -----

tile.kernel @k() {
  %s = tile.alloc : !tile.sem
  tile.warp_specialize producer(warpgroups = 1) {
    // expected-error @+1 {{'tile.sem_init' op must be directly in a 'tile.kernel' body: semaphores are initialised once, before any role or loop uses them}}
    tile.sem_init %s, 1 : !tile.sem
  } consumer(warpgroups = 1) {
  }
}

// -----

tile.kernel @k() {
  %s = tile.alloc : !tile.sem<2>
  // expected-error @+1 {{'tile.sem_arrive' op operand #0 must be single semaphore (!tile.sem), but got '!tile.sem<2>'}}
  "tile.sem_arrive"(%s) : (!tile.sem<2>) -> ()
}

// -----

tile.kernel @k() {
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.sem_expect' op needs at least one shared buffer to expect}}
  "tile.sem_expect"(%s) : (!tile.sem) -> ()
}

// -----

tile.kernel @k() {
  %s = tile.alloc : !tile.sem
  %a = tile.alloc : !tile.st<2x64x64xbf16>
  // expected-error @+1 {{'tile.sem_expect' op expects single buffers, not rings; take a 'tile.slot' first}}
  tile.sem_expect %s, %a : !tile.st<2x64x64xbf16>
}

// -----

tile.kernel @k() {
  %s = tile.alloc : !tile.sem
  %a = "test.source"() : () -> !tile.st<256x256xf32>
  // expected-error @+1 {{'tile.sem_expect' op expects 1310720 bytes; a semaphore's transaction count holds at most 1048575}}
  tile.sem_expect %s, %a, %a, %a, %a, %a : !tile.st<256x256xf32>, !tile.st<256x256xf32>, !tile.st<256x256xf32>, !tile.st<256x256xf32>, !tile.st<256x256xf32>
}

// -----

tile.kernel @k(%p: i64) {
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.sem_wait' op operand #1 must be 32-bit signless integer, but got 'i64'}}
  "tile.sem_wait"(%s, %p) : (!tile.sem, i64) -> ()
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [async_proxy, sem_init, block]}}
  tile.fence cluster
}

// -----

tile.kernel @k() {
  %s = tile.alloc : !tile.sem
  tile.sem_init %s, 1 : !tile.sem
  // expected-error @+1 {{'tile.sem_arrive' op a cluster-wide arrival needs a kernel launched in clusters of more than one block (launch(... cluster = [C, 1, 1]) with C > 1)}}
  tile.sem_arrive %s cluster
}

// -----

tile.kernel @k() launch(warpgroups = 1, cluster = [1, 1, 1]) {
  // expected-error @+1 {{'tile.cluster_sync' op a cluster barrier needs a kernel launched in clusters of more than one block}}
  tile.cluster_sync
}

// -----

// expected-error @+1 {{'tile.cluster_sync' op must be inside a 'tile.kernel'}}
tile.cluster_sync

// -----

tile.kernel @k() launch(warpgroups = 2, cluster = [2, 1, 1]) {
  tile.warp_specialize producer(warpgroups = 1) {
    // expected-error @+1 {{'tile.cluster_sync' op a cluster barrier inside a warp-specialized region waits for warps that never arrive; place it outside 'tile.warp_specialize'}}
    tile.cluster_sync
  } consumer(warpgroups = 1) {
  }
}

// -----

tile.kernel @k(%F: !tile.gl<?x?xi32>, %i: index, %v: i32) {
  // expected-error @+1 {{'tile.signal_add' op counters must be a 1-d global view of i32, got '!tile.gl<?x?xi32>'}}
  tile.signal_add %F[%i], %v : !tile.gl<?x?xi32>
}

// -----

tile.kernel @k(%F: !tile.gl<?xf32>, %i: index, %v: i32) {
  // expected-error @+1 {{'tile.signal_wait' op counters must be a 1-d global view of i32, got '!tile.gl<?xf32>'}}
  tile.signal_wait %F[%i], %v : !tile.gl<?xf32>
}

// -----

%F = "test.source"() : () -> !tile.gl<?xi32>
%i = "test.source"() : () -> index
%v = "test.source"() : () -> i32
// expected-error @+1 {{'tile.signal_add' op must be inside a 'tile.kernel'}}
tile.signal_add %F[%i], %v : !tile.gl<?xi32>

// -----

%F = "test.source"() : () -> !tile.gl<?xi32>
%i = "test.source"() : () -> index
%v = "test.source"() : () -> i32
// expected-error @+1 {{'tile.signal_wait' op must be inside a 'tile.kernel'}}
tile.signal_wait %F[%i], %v : !tile.gl<?xi32>

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.mma_turn' op must be inside the consumer role of a 'tile.warp_specialize'}}
  tile.mma_turn take
}

// -----

tile.kernel @k() {
  tile.warp_specialize producer(warpgroups = 1) {
    // expected-error @+1 {{'tile.mma_turn' op must be inside the consumer role of a 'tile.warp_specialize'}}
    tile.mma_turn pass
  } consumer(warpgroups = 2) {
  }
}

// -----

tile.kernel @k() {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 1) {
    // expected-error @+1 {{'tile.mma_turn' op takes turns among 2 to 4 consumer warpgroups, got 1}}
    tile.mma_turn take
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() {
    tile.warp_specialize producer(warpgroups = 1) {
    } consumer(warpgroups = 2) {
      // expected-error @+1 {{'tile.mma_turn' op MMA turns are lowered for NVIDIA targets only; gfx942 is not one}}
      tile.mma_turn take
    }
  }
}

// -----

tile.kernel @k() {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    // expected-error @+1 {{'tile.mma_turn' op attribute 'action' failed to satisfy constraint}}
    "tile.mma_turn"() {action = 7 : i32} : () -> ()
  }
}

// -----

// expected-error @+1 {{'tile.pingpong' must be a unit attribute on a 'tile.kernel'}}
tile.kernel @k() attributes {tile.pingpong = 1} {
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.pingpong' must be a unit attribute on a 'tile.kernel'}}
  tile.barrier block {tile.pingpong}
}

// -----

tile.kernel @device_on_plain_counters(%f: !tile.gl<?xi32>, %i: index, %v: i32) {
  // expected-error @+1 {{'tile.signal_add' op 'device' picks a copy of a multi-device view (!tile.gl<..., devices = N>), got '!tile.gl<?xi32>'}}
  tile.signal_add %f[%i], %v device %i : !tile.gl<?xi32>
}

// -----

tile.kernel @device_wait_on_plain_counters(%f: !tile.gl<?xi32>, %i: index, %v: i32) {
  // expected-error @+1 {{'tile.signal_wait' op 'device' picks a copy of a multi-device view (!tile.gl<..., devices = N>), got '!tile.gl<?xi32>'}}
  tile.signal_wait %f[%i], %v device %i : !tile.gl<?xi32>
}

// -----

tile.kernel @barrier_on_plain_counters(%f: !tile.gl<?xi32>, %i: index, %v: i32) {
  // expected-error @+1 {{'tile.device_barrier' op counts the blocks of every device in a multi-device view (!tile.gl<..., devices = N>), got '!tile.gl<?xi32>'}}
  tile.device_barrier %f[%i], %v : !tile.gl<?xi32>
}

// -----

tile.kernel @barrier_on_f32_counters(%f: !tile.gl<?xf32, devices = 2>, %i: index, %v: i32) {
  // expected-error @+1 {{'tile.device_barrier' op counters must be a 1-d global view of i32, got '!tile.gl<?xf32, devices = 2>'}}
  tile.device_barrier %f[%i], %v : !tile.gl<?xf32, devices = 2>
}

// -----

// One tile per block: more blocks than are resident would wait forever.
tile.kernel @barrier_with_one_tile_per_block(%f: !tile.gl<?xi32, devices = 2>, %i: index, %v: i32, %n: index) {
  tile.foreach_tile (%t) in (%n) {
  }
  // expected-error @+1 {{'tile.device_barrier' op needs a kernel with 'grid = persistent' when it has a tile loop: every block of every device waits for all the others, so all must be resident at once}}
  tile.device_barrier %f[%i], %v : !tile.gl<?xi32, devices = 2>
}

// -----

%F = "test.source"() : () -> !tile.gl<?xi32, devices = 2>
%i = "test.source"() : () -> index
%v = "test.source"() : () -> i32
// expected-error @+1 {{'tile.device_barrier' op must be inside a 'tile.kernel'}}
tile.device_barrier %F[%i], %v : !tile.gl<?xi32, devices = 2>

// -----

tile.kernel @k() {
  %s = tile.alloc : !tile.sem
  // expected-error @+1 {{'tile.sem_init' op arrival count must be at most 1048575 (the mbarrier's limit), got 2000000}}
  tile.sem_init %s, 2000000 : !tile.sem
}
