// tile-pipeline: copies in a loop become a ring of async loads with full /
// empty semaphores, a prologue and a refill N - 1 steps ahead; loops it
// must not touch are left alone with a remark.
// RUN: tk-opt %s -split-input-file -tile-pipeline -verify-diagnostics | FileCheck %s
// RUN: tk-opt %s -split-input-file -tile-pipeline=stages=1 -verify-diagnostics | FileCheck %s --check-prefix=ONE

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<64x128xf32, warpgroup>

// In a tile loop, with the stage count from the loop's attribute: the ring
// position continues across tiles (iteration * trips), warpgroup 0 loads.
// CHECK-LABEL: tile.kernel @in_tile_loop
// CHECK-DAG:   %[[A:.*]] = tile.alloc : !tile.st<2x64x64xbf16>
// CHECK-DAG:   %[[B:.*]] = tile.alloc : !tile.st<2x64x128xbf16>
// CHECK:       %[[FULL:.*]] = tile.alloc : !tile.sem<2>
// CHECK:       %[[EMPTY:.*]] = tile.alloc : !tile.sem<2>
// CHECK:       tile.sem_init %[[FULL]], 1
// CHECK:       tile.sem_init %[[EMPTY]], 1
// CHECK:       tile.fence sem_init
// CHECK:       tile.barrier block
// CHECK:       tile.foreach_tile ({{.*}}) in ({{.*}}) iteration(%[[IT:.*]]) {
// CHECK:         %[[TRIPS:.*]] = arith.select
// CHECK:         %[[BASE:.*]] = arith.muli %[[IT]], %[[TRIPS]]
// CHECK:         %[[WG:.*]] = tile.warpgroup_id
// CHECK:         %[[IS_P:.*]] = arith.cmpi eq, %[[WG]]
// CHECK:         %[[PRO_END:.*]] = arith.minsi {{.*}}, %[[TRIPS]]
// CHECK:         scf.if %[[IS_P]] {
// CHECK-NEXT:      scf.for %[[J:.*]] = {{.*}} to %[[PRO_END]]
// CHECK:             tile.sem_wait
// CHECK:             tile.sem_expect
// CHECK:             tile.load_async
// CHECK:             tile.load_async
// CHECK:         } {tile.pipeline_prologue}
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             tile.sem_wait
// CHECK:             tile.sem_expect
// CHECK:             tile.load_async
// CHECK:             tile.load_async
// CHECK:           } {tile.pipeline_refill}
// CHECK:           tile.sem_wait
// CHECK:           %[[AS:.*]] = tile.slot %[[A]]
// CHECK:           %[[BS:.*]] = tile.slot %[[B]]
// CHECK-NOT:       tile.copy
// CHECK:           tile.mma AB %[[AS]], %[[BS]]
// CHECK:           tile.sem_arrive
// CHECK-NEXT:      scf.yield
// CHECK:         } {tile.pipelined = 2 : i64}
// ONE-LABEL: tile.kernel @in_tile_loop
// ONE: tile.alloc : !tile.st<2x64x64xbf16>
tile.kernel @in_tile_loop(%A: !view, %B: !view, %C: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %K = tile.dim %A[1] : !view
  tile.foreach_tile (%m, %n) in (%c1, %c1) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x128xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !acc
      scf.yield %y : !acc
    } {tile.stages = 2}
    tile.store %acc, %C[%m, %n] : !acc, !tile.gl<?x?xf32>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// In the kernel body: the ring starts at 0; empty counts every warpgroup;
// coordinates computed in the body are recomputed for the load ahead;
// without an attribute the stage count is automatic (at most 3).
// CHECK-LABEL: tile.kernel @in_kernel_body
// CHECK:       tile.alloc : !tile.st<3x64x64xbf16>
// CHECK:       tile.sem_init %{{.*}}, 1 : !tile.sem<3>
// CHECK:       tile.sem_init %{{.*}}, 2 : !tile.sem<3>
// CHECK-NOT:   arith.muli %{{.*}}, %{{.*}} : index
// CHECK:       scf.if
// CHECK:         scf.for %[[J:[^ ]*]] =
// CHECK:           %[[K:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:           %[[KK:.*]] = arith.addi %[[K]], %[[K]] : index
// CHECK:           tile.load_async %{{.*}}[%{{.*}}, %[[KK]]]
// CHECK:       } {tile.pipelined = 3 : i64}
// ONE-LABEL: tile.kernel @in_kernel_body
// ONE:       tile.alloc : !tile.st<1x64x64xbf16>
// ONE:       tile.sem_init %{{.*}}, 1 : !tile.sem{{$}}
// ONE:       tile.sem_init %{{.*}}, 2 : !tile.sem{{$}}
// ONE:       } {tile.pipelined = 1 : i64}
tile.kernel @in_kernel_body(%A: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %kk = arith.addi %k, %k : index
    tile.copy %A[%c0, %kk] -> %a : !view, !tile.st<64x64xbf16>
    %r = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// Automatic stages are bounded by shared memory: 96 KB per stage fits 2.
// CHECK-LABEL: tile.kernel @auto_bounded
// CHECK: tile.alloc : !tile.st<2x192x256xbf16>
// CHECK: {tile.pipelined = 2 : i64}
tile.kernel @auto_bounded(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<192x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %k = %c0 to %c4 step %c1 {
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<192x256xbf16>
    %q = tile.subtile %a[%c0, %c0] : !tile.st<192x256xbf16> to !tile.st<64x64xbf16>
    %r = tile.load %q : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @used_after_loop
// CHECK: tile.copy
tile.kernel @used_after_loop(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not pipelined: a copied buffer is used outside the loop}}
  scf.for %k = %c0 to %c1 step %c1 {
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<64x64xbf16>
  }
  %r = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @read_before_copy
// CHECK: tile.copy
tile.kernel @read_before_copy(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not pipelined: a copied buffer is used before its copy in the iteration}}
  scf.for %k = %c0 to %c1 step %c1 {
    %r = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<64x64xbf16>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// Ring positions are index arithmetic: a loop counting in i32 is left alone.
// CHECK-LABEL: tile.kernel @i32_induction_variable
// CHECK: tile.copy
tile.kernel @i32_induction_variable(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %lb = arith.constant 0 : i32
  %ub = arith.constant 8 : i32
  %one = arith.constant 1 : i32
  // expected-remark @+1 {{not pipelined: the loop's induction variable is not of type 'index'}}
  scf.for %k = %lb to %ub step %one : i32 {
    %ki = arith.index_cast %k : i32 to index
    tile.copy %A[%c0, %ki] -> %a : !view, !tile.st<64x64xbf16>
    %r = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// Iteration k + 1 reads what iteration k stores: loading it N - 1
// iterations ahead would read it before the store.
// CHECK-LABEL: tile.kernel @stores_to_its_source
// CHECK: tile.copy
// CHECK-NOT: tile.load_async
tile.kernel @stores_to_its_source(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %A[1] : !view
  // expected-remark @+1 {{not pipelined: the loop stores to a view it copies from, so loads issued ahead could read it before those stores}}
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<64x64xbf16>
    %x = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
    %k1 = arith.addi %k, %c1 : index
    tile.store %x, %A[%c0, %k1] : !tile.rt<64x64xbf16, warpgroup>, !view
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!peers = !tile.gl<?x?xbf16, devices = 2>

// Stores to another view, or to the same view on another device operand
// (a peer's copy is other memory), do not hold the loads back.
// CHECK-LABEL: tile.kernel @stores_elsewhere
// CHECK: tile.pipeline_prologue
// CHECK: tile.load_async %arg0[%{{.*}}] device %arg2
// CHECK: tile.store %{{.*}}, %arg1
// CHECK: tile.store %{{.*}}, %arg0
tile.kernel @stores_elsewhere(%A: !peers, %B: !view, %p: index) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %A[1] : !peers
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %A[%c0, %k] device %p -> %a : !peers, !tile.st<64x64xbf16>
    %x = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
    tile.store %x, %B[%c0, %k] : !tile.rt<64x64xbf16, warpgroup>, !view
    tile.store %x, %A[%c0, %k] : !tile.rt<64x64xbf16, warpgroup>, !peers
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<64x64xf32, warpgroup>

// CHECK-LABEL: tile.kernel @async_mma
// CHECK: tile.copy
tile.kernel @async_mma(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not pipelined: a copied buffer is read by 'tile.mma_async', which may still read it when the iteration ends}}
  scf.for %k = %c0 to %c1 step %c1 {
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<64x64xbf16>
    %d = tile.mma_async ABt %a, %a : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !acc
    tile.mma_wait 1
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<64x64xf32, warpgroup>

// An mma_async that a `tile.mma_wait 0` of its own block completes reads
// its buffers only within the iteration (or tile): those copies are made
// asynchronous like any other.
// CHECK-LABEL: tile.kernel @async_mma_waited
// CHECK-NOT: tile.copy
// CHECK: tile.load_async
// CHECK: scf.for
// CHECK: tile.mma_async
// CHECK: tile.mma_wait 0
// CHECK: tile.sem_arrive
tile.kernel @async_mma_waited(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %A[0] : !view
  tile.foreach_tile (%t) in (%n) {
    tile.copy %A[%t, %c0] -> %b : !view, !tile.st<64x64xbf16>
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %A[%c0, %k] -> %a : !view, !tile.st<64x64xbf16>
      %d = tile.mma_async ABt %a, %b : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !acc
      tile.mma_wait 0
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @carried_coordinate
// CHECK: tile.copy
tile.kernel @carried_coordinate(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not pipelined: copy coordinates depend on a loop-carried value}}
  %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%col = %c0) -> (index) {
    tile.copy %A[%c0, %col] -> %a : !view, !tile.st<64x64xbf16>
    %next = arith.addi %col, %c1 : index
    scf.yield %next : index
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @impure_coordinate
// CHECK: tile.copy
tile.kernel @impure_coordinate(%A: !view, %flag: i1) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not pipelined: copy coordinates are computed by 'scf.if', which has side effects or regions}}
  scf.for %k = %c0 to %c1 step %c1 {
    %col = scf.if %flag -> (index) {
      scf.yield %k : index
    } else {
      scf.yield %c0 : index
    }
    tile.copy %A[%c0, %col] -> %a : !view, !tile.st<64x64xbf16>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @copied_twice
// CHECK: tile.copy
// CHECK: tile.copy
tile.kernel @copied_twice(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not pipelined: a copied buffer is copied into twice}}
  scf.for %k = %c0 to %c1 step %c1 {
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<64x64xbf16>
    tile.copy %A[%c1, %k] -> %a : !view, !tile.st<64x64xbf16>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @not_an_alloc
// CHECK: tile.copy
tile.kernel @not_an_alloc(%A: !view) launch(warpgroups = 1) {
  %ring = tile.alloc : !tile.st<2x64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not pipelined: a copy's destination is not a 'tile.alloc'}}
  scf.for %k = %c0 to %c1 step %c1 {
    %s = tile.slot %ring[%c0] : !tile.st<2x64x64xbf16>
    tile.copy %A[%c0, %k] -> %s : !view, !tile.st<64x64xbf16>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @no_warpgroups
// CHECK: tile.copy
tile.kernel @no_warpgroups(%A: !view) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not pipelined: the kernel has no launch(warpgroups = N), so it is unknown how many warpgroups release each stage}}
  scf.for %k = %c0 to %c1 step %c1 {
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<64x64xbf16>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @nested_loop
// CHECK: tile.copy
tile.kernel @nested_loop(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    // expected-remark @+1 {{not pipelined: the ring position across executions of the loop is unknown: the loop must be in the kernel body or a 'tile.block_roles' region, or directly in a 'tile.foreach_tile'}}
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%i, %k] -> %a : !view, !tile.st<64x64xbf16>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @in_warp_role
// CHECK: tile.copy
tile.kernel @in_warp_role(%A: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 1) {
    // expected-remark @+1 {{not pipelined: the loop is in a warp role, whose loads are scheduled by hand}}
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%c0, %k] -> %a : !view, !tile.st<64x64xbf16>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// A loop without copies is not touched.
// CHECK-LABEL: tile.kernel @no_copies
// CHECK-NOT: tile.sem
// CHECK: scf.for
// CHECK-NOT: tile.pipelined
tile.kernel @no_copies(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %c1 step %c1 {
    %r = tile.load %a : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
  }
}

// -----

!qkv = !tile.gl<?x?x128xbf16>

// A copy in a tile loop's body (outside inner loops) becomes an async load
// by warpgroup 0 on its own semaphores, positioned by the tile iteration and
// released after its last use. With one tile per block (grid = tiles) a
// loop's trip count may depend on the tile.
// CHECK-LABEL: tile.kernel @per_tile_copy
// CHECK:       %[[FULL:.*]] = tile.alloc : !tile.sem{{$}}
// CHECK:       %[[EMPTY:.*]] = tile.alloc : !tile.sem{{$}}
// CHECK:       tile.sem_init %[[FULL]], 1 : !tile.sem
// CHECK:       tile.sem_init %[[EMPTY]], 2 : !tile.sem
// CHECK:       tile.foreach_tile ({{.*}}) in ({{.*}}) iteration(%[[IT:.*]]) {
// CHECK:         %[[ROUND:.*]] = arith.index_cast %[[IT]] : index to i32
// CHECK:         %[[PREV:.*]] = arith.xori %[[ROUND]]
// CHECK:         scf.if
// CHECK-NEXT:      tile.sem_wait %[[EMPTY]], %[[PREV]]
// CHECK-NEXT:      tile.sem_expect %[[FULL]]
// CHECK-NEXT:      tile.load_async
// CHECK:         } {tile.pipeline_copy}
// CHECK-NEXT:    tile.sem_wait %[[FULL]], %[[ROUND]]
// CHECK:         scf.for
// CHECK:         } {tile.pipelined = 3 : i64}
// CHECK-NEXT:    tile.sem_arrive %[[EMPTY]]
tile.kernel @per_tile_copy(%Q: !qkv, %K: !qkv) launch(warpgroups = 2) {
  %q = tile.alloc : !tile.st<128x128xbf16>
  %k = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %Q[1] : !qkv
  tile.foreach_tile (%t) in (%n) {
    %kv = arith.addi %t, %c1 : index
    tile.copy %Q[%c0, %t, %c0] -> %q : !qkv, !tile.st<128x128xbf16>
    scf.for %j = %c0 to %kv step %c1 {
      tile.copy %K[%c0, %j, %c0] -> %k : !qkv, !tile.st<128x128xbf16>
      %s = tile.mma ABt %q, %k : !tile.st<128x128xbf16>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
    }
  }
}

// -----

!qkv = !tile.gl<?x?x128xbf16>

// Consecutive per-tile copies are in flight together: each warpgroup waits
// for a buffer just before the first op that reads it (here after the other
// buffer's load and a scalar computation), not at the copy. A copy whose
// buffer is never read waits right after its load and releases at once.
// CHECK-LABEL: tile.kernel @per_tile_copies_wait_at_first_use
// CHECK:       tile.foreach_tile
// CHECK:         scf.if
// CHECK:           tile.load_async %{{.*}} -> %[[A:[^,]*]], %[[FA:[^ ]*]] :
// CHECK:         } {tile.pipeline_copy}
// CHECK-NOT:     tile.sem_wait
// CHECK:         scf.if
// CHECK:           tile.load_async %{{.*}} -> %[[B:[^,]*]], %[[FB:[^ ]*]] :
// CHECK:         } {tile.pipeline_copy}
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    tile.sem_wait %[[FA]]
// CHECK-NEXT:    tile.load %[[A]]
// CHECK-NEXT:    tile.sem_arrive
// CHECK-NEXT:    tile.sem_wait %[[FB]]
// CHECK-NEXT:    tile.load %[[B]]
// CHECK-NEXT:    tile.sem_arrive
// CHECK:         scf.if
// CHECK:           tile.load_async %{{.*}} -> %[[U:[^,]*]], %[[FU:[^ ]*]] :
// CHECK:         } {tile.pipeline_copy}
// CHECK-NEXT:    tile.sem_wait %[[FU]]
// CHECK-NEXT:    tile.sem_arrive
// CHECK-NEXT:    tile.store
tile.kernel @per_tile_copies_wait_at_first_use(%X: !qkv, %Y: !qkv, %Z: !tile.gl<?x?xf32>)
    launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x128xbf16>
  %b = tile.alloc : !tile.st<64x128xbf16>
  %u = tile.alloc : !tile.st<64x128xbf16>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tile.dim %X[1] : !qkv
  tile.foreach_tile (%t) in (%n) {
    tile.copy %X[%c0, %t, %c0] -> %a : !qkv, !tile.st<64x128xbf16>
    tile.copy %Y[%c0, %t, %c0] -> %b : !qkv, !tile.st<64x128xbf16>
    %t2 = arith.muli %t, %c2 : index
    %ra = tile.load %a : !tile.st<64x128xbf16> -> !tile.rt<64x128xbf16, warpgroup>
    %rb = tile.load %b : !tile.st<64x128xbf16> -> !tile.rt<64x128xbf16, warpgroup>
    %fa = tile.cast %ra : !tile.rt<64x128xbf16, warpgroup> to !tile.rt<64x128xf32, warpgroup>
    %fb = tile.cast %rb : !tile.rt<64x128xbf16, warpgroup> to !tile.rt<64x128xf32, warpgroup>
    %p = tile.mul %fa, %fb : !tile.rt<64x128xf32, warpgroup>
    %r = tile.row_sum %p : !tile.rt<64x128xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
    tile.copy %X[%c0, %t, %c0] -> %u : !qkv, !tile.st<64x128xbf16>
    tile.store %r, %Z[%c0, %t2] : !tile.rv<64xf32, warpgroup>, !tile.gl<?x?xf32>
  }
}

// -----

!qkv = !tile.gl<?x?x128xbf16>

// When the trip count differs per tile (here tile t runs t + 1 steps), a
// block's ring position continues from the running sum of its earlier
// tiles' trip counts (tile.prefix_sum), so a persistent kernel keeps its
// ring across tiles; with the same count everywhere it is iteration x trips.
// A per-tile copy with tile.stages = 2 takes two buffers in turn: tile i
// fills buffer i mod 2 in round i / 2.
// CHECK-LABEL: tile.kernel @persistent_varying_trips
// CHECK: %[[Q:.*]] = tile.alloc : !tile.st<2x128x128xbf16>
// CHECK: tile.foreach_tile (%{{.*}}) in (%{{.*}}) iteration(%[[IT:.*]]) {
// CHECK: %[[S:.*]] = arith.remui %[[IT]], %c2
// CHECK: %[[R:.*]] = arith.divui %[[IT]], %c2
// CHECK: %[[BUF:.*]] = tile.slot %[[Q]][%[[S]]] : !tile.st<2x128x128xbf16>
// CHECK: tile.load_async %{{.*}} -> %[[BUF]]
// CHECK: %[[TRIPS:.*]] = arith.select
// CHECK: %[[BASE:.*]] = tile.prefix_sum %[[TRIPS]]
// CHECK: scf.for
// CHECK: arith.addi %[[BASE]]
tile.kernel @persistent_varying_trips(%K: !qkv) launch(warpgroups = 1, grid = persistent) {
  %q = tile.alloc : !tile.st<128x128xbf16>
  %k = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %K[1] : !qkv
  tile.foreach_tile (%t) in (%n) {
    tile.copy %K[%c0, %t, %c0] -> %q {tile.stages = 2} : !qkv, !tile.st<128x128xbf16>
    %kv = arith.addi %t, %c1 : index
    scf.for %j = %c0 to %kv step %c1 {
      tile.copy %K[%c0, %j, %c0] -> %k : !qkv, !tile.st<128x128xbf16>
      %s = tile.mma ABt %q, %k : !tile.st<128x128xbf16>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
    }
  }
}

// -----

!qkv = !tile.gl<?x?x128xbf16>

// A buffer read through a view of it (tile.subtile) is released after that
// read, not after the view is made.
// CHECK-LABEL: tile.kernel @tile_copy_read_through_subtile
// CHECK: tile.sem_wait
// CHECK: %[[HALF:.*]] = tile.subtile
// CHECK: tile.load %[[HALF]]
// CHECK-NEXT: tile.sem_arrive
tile.kernel @tile_copy_read_through_subtile(%Q: !qkv, %O: !tile.gl<?x?xbf16>) launch(warpgroups = 2, grid = persistent) {
  %q = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %n = tile.dim %Q[1] : !qkv
  tile.foreach_tile (%t) in (%n) {
    tile.copy %Q[%c0, %t, %c0] -> %q : !qkv, !tile.st<128x128xbf16>
    %h = tile.subtile %q[%c0, %c0] : !tile.st<128x128xbf16> to !tile.st<64x128xbf16>
    %x = tile.load %h : !tile.st<64x128xbf16> -> !tile.rt<64x128xbf16, warpgroup>
    tile.store %x, %O[%t, %c0] : !tile.rt<64x128xbf16, warpgroup>, !tile.gl<?x?xbf16>
  }
}
// -----

!qkv = !tile.gl<?x?x128xbf16>

// CHECK-LABEL: tile.kernel @tile_copy_left_alone
// CHECK-COUNT-4: tile.copy
tile.kernel @tile_copy_left_alone(%Q: !qkv) launch(warpgroups = 1) {
  %q = tile.alloc : !tile.st<128x128xbf16>
  %r = tile.alloc : !tile.st<128x128xbf16>
  %u = tile.alloc : !tile.st<128x128xbf16>
  %w = tile.alloc : !tile.st<2x128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%t) in (%c1) {
    // expected-remark @+1 {{not made asynchronous: the copied buffer is used outside the tile loop}}
    tile.copy %Q[%c0, %t, %c0] -> %q : !qkv, !tile.st<128x128xbf16>
    %x = tile.load %r : !tile.st<128x128xbf16> -> !tile.rt<128x128xbf16, block>
    // expected-remark @+1 {{not made asynchronous: the copied buffer is used before its copy in the tile}}
    tile.copy %Q[%c0, %t, %c0] -> %r : !qkv, !tile.st<128x128xbf16>
    // expected-remark @+1 {{not made asynchronous: the copied buffer is also read by 'tile.mma_async' or copied into again}}
    tile.copy %Q[%c0, %t, %c0] -> %u : !qkv, !tile.st<128x128xbf16>
    %d = tile.mma_async ABt %u, %u : !tile.st<128x128xbf16>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, warpgroup>
    tile.mma_wait 1
    %w0 = tile.slot %w[%c0] : !tile.st<2x128x128xbf16>
    // expected-remark @+1 {{not made asynchronous: the copy's destination is not a 'tile.alloc'}}
    tile.copy %Q[%c0, %t, %c0] -> %w0 : !qkv, !tile.st<128x128xbf16>
  }
  %y = tile.load %q : !tile.st<128x128xbf16> -> !tile.rt<128x128xbf16, block>
}

// -----

!qkv = !tile.gl<?x?x128xbf16>

// CHECK-LABEL: tile.kernel @tile_copy_no_warpgroups
// CHECK: tile.copy
tile.kernel @tile_copy_no_warpgroups(%Q: !qkv) {
  %q = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%t) in (%c1) {
    // expected-remark @+1 {{not made asynchronous: the kernel has no launch(warpgroups = N), so it is unknown how many warpgroups release the buffer}}
    tile.copy %Q[%c0, %t, %c0] -> %q : !qkv, !tile.st<128x128xbf16>
  }
}

// -----

!qkv = !tile.gl<?x?x128xbf16>

// CHECK-LABEL: tile.kernel @tile_copy_in_role
// CHECK: tile.copy
tile.kernel @tile_copy_in_role(%Q: !qkv) launch(warpgroups = 2) {
  %q = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 1) {
    tile.foreach_tile (%t) in (%c1) {
      // expected-remark @+1 {{not made asynchronous: the copy is in a warp role, whose loads are scheduled by hand}}
      tile.copy %Q[%c0, %t, %c0] -> %q : !qkv, !tile.st<128x128xbf16>
    }
  }
}

// -----

!peers = !tile.gl<?x?xbf16, devices = 4>

// A copy from another device's copy of a multi-device view keeps its
// device on the asynchronous loads (prologue and refill).
// CHECK-LABEL: tile.kernel @peer_copies
// CHECK: tile.load_async %{{.*}}[%{{.*}}, %{{.*}}] device %[[D:[a-z0-9]+]] ->
// CHECK: tile.load_async %{{.*}}[%{{.*}}, %{{.*}}] device %[[D]] ->
// CHECK-NOT: tile.copy
tile.kernel @peer_copies(%A: !peers, %C: !tile.gl<?x?xf32>, %d: index, %n: index) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %zero) -> (!tile.rt<64x64xf32, warpgroup>) {
    tile.copy %A[%c0, %k] device %d -> %a : !peers, !tile.st<64x64xbf16>
    %y = tile.mma AB %a, %a, %x : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
    scf.yield %y : !tile.rt<64x64xf32, warpgroup>
  }
  tile.store %acc, %C[%c0, %c0] : !tile.rt<64x64xf32, warpgroup>, !tile.gl<?x?xf32>
}

// -----

!peers = !tile.gl<?x?xbf16, devices = 4>

// A device that each iteration computes is part of the copy's address: the
// prologue and the refill compute it (k mod 4) for the iterations they
// load.
// CHECK-LABEL: tile.kernel @peer_per_step
// CHECK: %[[D0:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: tile.load_async %{{.*}}[%{{.*}}, %{{.*}}] device %[[D0]] ->
// CHECK: scf.for %[[K:.*]] =
// CHECK: %[[AHEAD:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[DN:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: tile.load_async %{{.*}}[%{{.*}}, %{{.*}}] device %[[DN]] ->
// CHECK-NOT: tile.copy
tile.kernel @peer_per_step(%A: !peers, %C: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %zero) -> (!tile.rt<64x64xf32, warpgroup>) {
    %d = arith.remui %k, %c4 : index
    tile.copy %A[%c0, %k] device %d -> %a : !peers, !tile.st<64x64xbf16>
    %y = tile.mma AB %a, %a, %x : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
    scf.yield %y : !tile.rt<64x64xf32, warpgroup>
  }
  tile.store %acc, %C[%c0, %c0] : !tile.rt<64x64xf32, warpgroup>, !tile.gl<?x?xf32>
}
