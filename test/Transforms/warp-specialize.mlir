// tile-warp-specialize on tile-pipeline's output: a producer warpgroup
// runs the loads, the kernel's warpgroups become consumers that split the
// block's tiles by rows; kernels it cannot split are left alone with a
// remark, hand-scheduled ones silently.
// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -tile-pipeline -tile-warp-specialize -verify-diagnostics | FileCheck %s
// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -tile-pipeline -tile-warp-specialize="producer-registers=24 group=0" -verify-diagnostics | FileCheck %s --check-prefix=OPT
// RUN: not tk-opt %s -split-input-file -allow-unregistered-dialect -tile-pipeline -tile-warp-specialize="producer-registers=20" 2>&1 | FileCheck %s --check-prefix=BADREG
// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -tile-pipeline -tile-warp-specialize="producer-registers=176" 2>&1 | FileCheck %s --check-prefix=BIGREG

// RUN: not tk-opt %s -split-input-file -allow-unregistered-dialect -tile-pipeline -tile-warp-specialize="group=-1" 2>&1 | FileCheck %s --check-prefix=BADGROUP
// BADREG: error: 'producer-registers' must be a multiple of 8 in [24, 256], got 20
// BADGROUP: error: 'group' must be 0 (row-major) or positive, got -1
// BIGREG: remark: not warp-specialized: the register file leaves the consumers fewer registers than each thread starts with

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x256xf32, block>

// CHECK-LABEL: tile.kernel @gemm
// CHECK-SAME:  launch(warpgroups = 3, grid = persistent)
// CHECK-DAG:   %[[A:.*]] = tile.alloc : !tile.st<3x128x64xbf16>
// CHECK-DAG:   %[[B:.*]] = tile.alloc : !tile.st<3x64x256xbf16>
// CHECK-DAG:   %[[CBUF:.*]] = tile.alloc : !tile.st<128x256xbf16>
// CHECK:       tile.warp_specialize producer(warpgroups = 1, registers = 40) {
// CHECK-NEXT:    tile.foreach_tile (%[[M:.*]], %[[N:.*]]) in ({{.*}}) group 8 iteration(%{{.*}}) {
// CHECK-NOT:       tile.mma
// CHECK-NOT:       tile.store
// CHECK:           scf.for
// CHECK:             tile.sem_wait
// CHECK:             tile.sem_expect
// CHECK:             tile.load_async
// CHECK:             tile.load_async
// CHECK-NOT:       tile.mma
// CHECK:         }
// CHECK:       } consumer(warpgroups = 2, registers = 232) {
// CHECK-NEXT:    %[[WG:.*]] = tile.warpgroup_id
// CHECK-NEXT:    tile.foreach_tile (%[[CM:.*]], %[[CN:.*]]) in ({{.*}}) group 8 iteration(%{{.*}}) {
// CHECK:           tile.fill 0.000000e+00 : !tile.rt<64x256xf32, warpgroup>
// CHECK-NOT:       tile.load_async
// CHECK:           scf.for {{.*}} -> (!tile.rt<64x256xf32, warpgroup>)
// CHECK-NOT:         tile.load_async
// CHECK:             tile.sem_wait
// CHECK:             %[[AS:.*]] = tile.slot %[[A]]
// CHECK:             %[[AWG:.*]] = tile.subtile %[[AS]][%[[WG]], %{{.*}}] : !tile.st<128x64xbf16> to !tile.st<64x64xbf16>
// CHECK:             tile.mma AB %[[AWG]], {{.*}} -> !tile.rt<64x256xf32, warpgroup>
// CHECK:             tile.sem_arrive
// CHECK:           } {tile.pipelined = 3 : i64}
// CHECK:           %[[OUT:.*]] = tile.cast {{.*}} to !tile.rt<64x256xbf16, warpgroup>
// CHECK:           %[[M2:.*]] = arith.muli %[[CM]], %{{.*}} : index
// CHECK:           %[[ROW:.*]] = arith.addi %[[M2]], %[[WG]] : index
// CHECK:           %[[CWG:.*]] = tile.subtile %[[CBUF]][%[[WG]], %{{.*}}]
// CHECK-NEXT:      tile.store_async_wait
// CHECK-NEXT:      tile.store %[[OUT]], %[[CWG]]
// CHECK-NEXT:      tile.store_async %[[CWG]] -> %{{.*}}[%[[ROW]], %[[CN]]]
// CHECK:         }
// CHECK-NEXT:    tile.store_async_wait
// OPT-LABEL: tile.kernel @gemm
// OPT: tile.warp_specialize producer(warpgroups = 1, registers = 24) {
// OPT-NEXT: tile.foreach_tile ({{.*}}) in ({{.*}}) iteration
// OPT: } consumer(warpgroups = 2, registers = 240) {
tile.kernel @gemm(%A: !view, %B: !view, %C: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  tile.foreach_tile (%m, %n) in (%M, %N) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !view
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x256xf32, block>

// A register value made before the tile loop is made again at the top of
// each consumer tile, split by rows like the tile's own work; the hoisted
// original goes.
// CHECK-LABEL: tile.kernel @gemm_hoisted_zero
// CHECK-NOT:   tile.fill
// CHECK:       } consumer(warpgroups = 2, registers = 232) {
// CHECK:         tile.foreach_tile
// CHECK-NEXT:      %[[ZERO:.*]] = tile.fill 0.000000e+00 : !tile.rt<64x256xf32, warpgroup>
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (!tile.rt<64x256xf32, warpgroup>)
tile.kernel @gemm_hoisted_zero(%A: !view, %B: !view, %C: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  %zero = tile.fill 0.0 : !acc
  tile.foreach_tile (%m, %n) in (%M, %N) {
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !view
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x256xf32, block>
!out = !tile.rt<128x256xbf16, block>

// The tile reads C back after storing it: that store stays synchronous (an
// async copy out is not ordered with the read); the store to D, which
// nothing reads, goes through shared memory.
// CHECK-LABEL: tile.kernel @gemm_store_read_back
// CHECK:       } consumer(warpgroups = 2, registers = 232) {
// CHECK:         } {tile.pipelined = 3 : i64}
// CHECK:         tile.store %{{.*}}, %arg2[
// CHECK:         %[[BACK:.*]] = tile.load %arg2[
// CHECK:         tile.store_async_wait
// CHECK-NEXT:    tile.store %[[BACK]], %[[SLICE:.*]] :
// CHECK-NEXT:    tile.store_async %[[SLICE]] -> %arg3[
tile.kernel @gemm_store_read_back(%A: !view, %B: !view, %C: !view, %D: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  tile.foreach_tile (%m, %n) in (%M, %N) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %o = tile.cast %acc : !acc to !out
    tile.store %o, %C[%m, %n] : !out, !view
    %back = tile.load %C[%m, %n] : !view -> !out
    tile.store %back, %D[%m, %n] : !out, !view
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x256xf32, block>

// Four stages leave no room for the epilogue buffer: the consumers store
// their rows of C directly. Block-scope loads from shared memory read the
// warpgroup's rows.
// CHECK-LABEL: tile.kernel @direct_store
// CHECK:       consumer(warpgroups = 2, registers = 232) {
// CHECK:         %[[WG:.*]] = tile.warpgroup_id
// CHECK:         tile.mma AB
// CHECK:         %[[AWG:.*]] = tile.subtile %{{.*}}[%[[WG]], %{{.*}}] : !tile.st<128x64xbf16> to !tile.st<64x64xbf16>
// CHECK:         tile.load %[[AWG]] : !tile.st<64x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
// CHECK:         } {tile.pipelined = 4 : i64}
// CHECK-NOT:     tile.store_async
// CHECK:         %[[ROW:.*]] = arith.addi %{{.*}}, %[[WG]] : index
// CHECK:         tile.store %{{.*}}, %{{.*}}[%[[ROW]], %{{.*}}] : !tile.rt<64x256xbf16, warpgroup>
tile.kernel @direct_store(%A: !view, %B: !view, %C: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  tile.foreach_tile (%m, %n) in (%M, %M) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      %r = tile.load %a : !tile.st<128x64xbf16> -> !tile.rt<128x64xbf16, block>
      scf.yield %y : !acc
    } {tile.stages = 4}
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    // expected-remark @+1 {{store not staged through shared memory: its buffer would bring the kernel to 262208 bytes, over the target's 231424; it and the stores after it write to global memory directly}}
    tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !view
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @not_pipelined
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: no loop pipelined by tile-pipeline}}
tile.kernel @not_pipelined(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    // expected-remark @+1 {{not pipelined}}
    %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%col = %c0) -> (index) {
      tile.copy %A[%m, %col] -> %a : !view, !tile.st<64x64xbf16>
      scf.yield %k : index
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32, devices = 2>

// A tile loop that carries values (here: which tile the block ran last, so
// that the next tile, or the signal after the loop, publishes it): the
// consumers' loop carries them and its results feed the signal after it;
// the producer's loop yields its carried values back unchanged.
// CHECK-LABEL: tile.kernel @carries_values
// CHECK:       tile.warp_specialize producer
// CHECK:         tile.foreach_tile (%{{.*}}) in (%{{.*}}) iteration(%{{.*}}) iter_args(%[[PX:.*]] = %{{.*}}, %[[PH:.*]] = %{{.*}}) -> (index, i1)
// CHECK-NOT:       tile.signal_add
// CHECK:           tile.load_async
// CHECK:           tile.yield %[[PX]], %[[PH]] : index, i1
// CHECK:       consumer
// CHECK:         %[[R:.*]]:2 = tile.foreach_tile (%[[M:.*]]) in (%{{.*}}) iteration(%{{.*}}) iter_args(%[[X:.*]] = %{{.*}}, %[[H:.*]] = %{{.*}}) -> (index, i1)
// CHECK:           scf.if %[[H]] {
// CHECK-NEXT:        tile.signal_add %{{.*}}[%[[X]]], %{{.*}} device
// CHECK:           tile.yield %[[M]], %true : index, i1
// CHECK:         scf.if %[[R]]#1 {
// CHECK-NEXT:      tile.signal_add %{{.*}}[%[[R]]#0], %{{.*}} device
tile.kernel @carries_values(%A: !view, %C: !view, %F: !flags) launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  %false = arith.constant false
  %true = arith.constant true
  %last:2 = tile.foreach_tile (%m) in (%c4) iter_args(%prev = %c0, %has = %false) -> (index, i1) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%x = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    scf.if %has {
      tile.signal_add %F[%prev], %one device %c1 : !flags
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.yield %m, %true : index, i1
  }
  scf.if %last#1 {
    tile.signal_add %F[%last#0], %one device %c1 : !flags
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// The producer loads where a carried value points: the roles would each
// need the carried work. Left as it is, with no buffer added for the
// consumers' stores.
// CHECK-LABEL: tile.kernel @loads_use_carried
// CHECK-NOT: tile.alloc : !tile.st<128x64xbf16>
// CHECK-NOT: tile.warp_specialize
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !tile.rt<128x64xbf16, block>
// expected-remark @+1 {{not warp-specialized: the producer's loads or waits depend on values the tile loop carries (iter_args)}}
tile.kernel @loads_use_carried(%A: !view, %C: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tile.foreach_tile (%m) in (%c1) iter_args(%x = %c0) -> (index) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%y0 = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%x, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %y0 : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.yield %m : index
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32, devices = 2>

// Index arithmetic on the tile loop's results and a constant made after
// the loop, feeding the signal after it: they come into the consumers'
// role with the signal.
// CHECK-LABEL: tile.kernel @results_through_arith
// CHECK:       consumer
// CHECK:         %[[R:.*]] = tile.foreach_tile
// CHECK:         %[[NEXT:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    tile.signal_add %{{.*}}[%[[NEXT]]], %[[TWO]] device
// CHECK:       }
// CHECK-NEXT: }
tile.kernel @results_through_arith(%A: !view, %C: !view, %F: !flags) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %r = tile.foreach_tile (%m) in (%c1) iter_args(%x = %c0) -> (index) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%y0 = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %y0 : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.yield %m : index
  }
  %next = arith.addi %r, %c1 : index
  %two = arith.constant 2 : i32
  tile.signal_add %F[%next], %two device %c1 : !flags
}

// -----

!view = !tile.gl<?x?xbf16>

// Register work after the tile loop (a block-scope tile read from global
// memory and stored, at the last tile the loop carried): it runs in the
// consumers' role after their loop, each warpgroup on its 64 rows (row
// tile index 2 i + wg), once the loop's staged stores are written (it may
// read them); the producer's role has none of it.
// CHECK-LABEL: tile.kernel @register_work_after
// CHECK:       tile.warp_specialize producer
// CHECK-NOT:     tile.load %
// CHECK:       consumer
// CHECK:         %[[WG:.*]] = tile.warpgroup_id
// CHECK:         %[[R:.*]] = tile.foreach_tile
// CHECK:           tile.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.store_async_wait written
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[SCALED:.*]] = arith.muli %[[R]], %[[TWO]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %[[SCALED]], %[[WG]] : index
// CHECK-NEXT:    %[[T:.*]] = tile.load %{{.*}}[%[[ROW]], %{{.*}}] : !tile.gl<?x?xbf16> -> !tile.rt<64x64xbf16, warpgroup>
// CHECK:         %[[SCALED2:.*]] = arith.muli %[[R]], %{{.*}} : index
// CHECK-NEXT:    %[[ROW2:.*]] = arith.addi %[[SCALED2]], %[[WG]] : index
// CHECK-NEXT:    tile.store %[[T]], %{{.*}}[%[[ROW2]], %{{.*}}] : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?xbf16>
// CHECK:       }
// CHECK-NEXT: }
tile.kernel @register_work_after(%A: !view, %C: !view, %D: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tile.foreach_tile (%m) in (%c1) iter_args(%x = %c0) -> (index) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%y0 = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %y0 : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.yield %m : index
  }
  %t = tile.load %C[%r, %c0] : !view -> !tile.rt<128x64xbf16, block>
  tile.store %t, %D[%r, %c0] : !tile.rt<128x64xbf16, block>, !view
}

// -----

!view = !tile.gl<?x?xbf16>

// Only stores after the tile loop (a tile made there): they may overwrite
// what the loop's staged stores wrote, so the consumers wait until those
// are written.
// CHECK-LABEL: tile.kernel @stores_after
// CHECK:       consumer
// CHECK:         tile.store_async_wait written
// CHECK:         tile.fill 1.000000e+00 : !tile.rt<64x64xbf16, warpgroup>
// CHECK:         tile.store
tile.kernel @stores_after(%A: !view, %C: !view, %D: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tile.foreach_tile (%m) in (%c1) iter_args(%x = %c0) -> (index) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%y0 = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %y0 : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.yield %m : index
  }
  %f = tile.fill 1.0 : !tile.rt<128x64xbf16, block>
  tile.store %f, %C[%r, %c0] : !tile.rt<128x64xbf16, block>, !view
}

// -----

!view = !tile.gl<?x?xbf16>

// Register work after the tile loop that reads a block-scope value made
// before the loop: the consumers' split by rows covers only what comes
// after their loop. Left as it is.
// CHECK-LABEL: tile.kernel @value_from_before
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: 'tile.store' after the tile loop reads a block-scope value made before it}}
tile.kernel @value_from_before(%A: !view, %C: !view, %D: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = tile.fill 1.0 : !tile.rt<128x64xbf16, block>
  %r = tile.foreach_tile (%m) in (%c1) iter_args(%x = %c0) -> (index) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%y0 = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %y0 : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.yield %m : index
  }
  tile.store %f, %D[%r, %c0] : !tile.rt<128x64xbf16, block>, !view
}

// -----

!view = !tile.gl<?x?xbf16>

// A barrier after the tile loop with register work there: it would stay
// in the kernel body behind the work that moves into the consumers. Left
// as it is.
// CHECK-LABEL: tile.kernel @barrier_after
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: 'tile.barrier' after the tile loop would stay behind the register work that moves into the consumers}}
tile.kernel @barrier_after(%A: !view, %C: !view, %D: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tile.foreach_tile (%m) in (%c1) iter_args(%x = %c0) -> (index) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%y0 = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %y0 : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.yield %m : index
  }
  %t = tile.load %C[%r, %c0] : !view -> !tile.rt<128x64xbf16, block>
  tile.barrier block
  tile.store %t, %D[%r, %c0] : !tile.rt<128x64xbf16, block>, !view
}

// -----

!view = !tile.gl<?x?xbf16>

// Register work after the tile loop that does not split by rows (a column
// sum): the split fails after the consumers' copy was made, and the kernel
// is left exactly as it was.
// CHECK-LABEL: tile.kernel @after_not_split
// CHECK-NOT: tile.warp_specialize
// CHECK: tile.col_sum %{{.*}} : !tile.rt<128x64xbf16, block>
// expected-remark @+1 {{not warp-specialized: column reductions of block-scope tiles are not split by rows yet (they would sum over the warpgroups)}}
tile.kernel @after_not_split(%A: !view, %C: !view, %V: !tile.gl<?xbf16>) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tile.foreach_tile (%m) in (%c1) iter_args(%x = %c0) -> (index) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%y0 = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %y0 : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.yield %m : index
  }
  %t = tile.load %C[%r, %c0] : !view -> !tile.rt<128x64xbf16, block>
  %s = tile.col_sum %t : !tile.rt<128x64xbf16, block> -> !tile.rv<64xbf16, block>
  tile.store %s, %V[%r] : !tile.rv<64xbf16, block>, !tile.gl<?xbf16>
}

// -----

!view = !tile.gl<?x?xbf16>

// Work after the tile loop that uses shared memory: neither role could run
// it alone (the consumers' buffers, the producer's ring). Left as it is.
// CHECK-LABEL: tile.kernel @shared_work_after
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: 'tile.store' does work outside the tile loop (after it only counter signals and register loads and stores of global memory run, in the consumers)}}
tile.kernel @shared_work_after(%A: !view, %C: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %s = tile.alloc : !tile.st<128x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%y0 = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %y0 : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
  }
  %t = tile.fill 0.0 : !tile.rt<128x64xbf16, block>
  tile.store %t, %s : !tile.rt<128x64xbf16, block>, !tile.st<128x64xbf16>
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32>

// A counter wait in the tile loop at a carried index: the producer waits
// too (it loads what the counter guards), so it would need the carried
// work. Left as it is.
// CHECK-LABEL: tile.kernel @wait_uses_carried
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: the producer's loads or waits depend on values the tile loop carries (iter_args)}}
tile.kernel @wait_uses_carried(%A: !view, %C: !view, %F: !flags, %v: i32) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tile.foreach_tile (%m) in (%c1) iter_args(%x = %c0) -> (index) {
    tile.signal_wait %F[%x], %v at_least : !flags
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%y0 = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %y0 : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.yield %m : index
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @two_loops
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: it has 2 pipelined loops; one is supported}}
tile.kernel @two_loops(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
    }
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %b : !view, !tile.st<64x64xbf16>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @no_tile_loop
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: the pipelined loop is not directly in a 'tile.foreach_tile' of the kernel body (or of a 'tile.block_roles' compute region)}}
tile.kernel @no_tile_loop(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %c1 step %c1 {
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<64x64xbf16>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @work_outside
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: 'tile.store_async_wait' does work outside the tile loop}}
tile.kernel @work_outside(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
    }
  }
  tile.store_async_wait
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32, devices = 2>

// Counter signals around the tile loop (a start and end handshake between
// devices) go with the roles: all of them into the consumers' role around
// its tile loop, the waits before the loop into the producer's too.
// CHECK-LABEL: tile.kernel @signals_around
// CHECK:       tile.warp_specialize producer
// CHECK-NEXT:    tile.signal_wait %[[F:arg[0-9]+]][%{{.*}}], %[[V:arg[0-9]+]] at_least
// CHECK-NOT:     tile.signal_add
// CHECK:         tile.foreach_tile
// CHECK:       consumer
// CHECK:         scf.for
// CHECK-NEXT:      tile.signal_add %[[F]][%{{.*}}], %{{.*}} device
// CHECK:         tile.signal_wait %[[F]][%{{.*}}], %[[V]] at_least
// CHECK-NEXT:    tile.foreach_tile
// CHECK:         tile.store_async %
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.store_async_wait
// CHECK-NEXT:    tile.signal_add %[[F]][%{{.*}}], %{{[^ ]*}} :
// CHECK-NEXT:  }
// CHECK-NEXT: }
tile.kernel @signals_around(%A: !view, %C: !view, %F: !flags, %v: i32) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  scf.for %d = %c0 to %c2 step %c1 {
    tile.signal_add %F[%c0], %one device %d : !flags
  }
  tile.signal_wait %F[%c0], %v at_least : !flags
  tile.foreach_tile (%m) in (%c1) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%x = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
  }
  tile.signal_add %F[%c1], %one : !flags
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32>

// A tile store that becomes a TMA store: the counter signals that follow
// it (in the tile loop, and after the loop) wait until it is written and
// publish it (after_async_stores), as they published the register store;
// the signal before the loop, which no store precedes, is left as it is.
// CHECK-LABEL: tile.kernel @signals_publish_async_stores
// CHECK:       consumer
// CHECK:         tile.signal_add %{{.*}}[%{{.*}}], %{{[^ ]*}} :
// CHECK:         tile.foreach_tile
// CHECK:           tile.store_async %
// CHECK-NEXT:      tile.signal_add %{{.*}}[%{{.*}}], %{{.*}} after_async_stores :
// CHECK:         tile.store_async_wait
// CHECK-NEXT:    tile.signal_add %{{.*}}[%{{.*}}], %{{.*}} after_async_stores :
tile.kernel @signals_publish_async_stores(%A: !view, %C: !view, %F: !flags) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  tile.signal_add %F[%c1], %one : !flags
  tile.foreach_tile (%m) in (%c4) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%x = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
    tile.signal_add %F[%m], %one : !flags
  }
  tile.signal_add %F[%c0], %one : !flags
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32, devices = 2>

// A barrier across devices before the tile loop: the consumers' role runs
// it (it adds for the block), the producer's waits for the same count
// without adding; the one after the loop is the consumers' alone.
// CHECK-LABEL: tile.kernel @device_barriers_around
// CHECK:       tile.warp_specialize producer
// CHECK-NEXT:    tile.signal_wait %[[F:arg[0-9]+]][%[[I0:.*]]], %[[V:arg[0-9]+]] at_least
// CHECK-NOT:     tile.device_barrier
// CHECK:         tile.foreach_tile
// CHECK-NOT:     tile.device_barrier
// CHECK:       consumer
// CHECK:         tile.device_barrier %[[F]][%[[I0]]], %[[V]] :
// CHECK-NEXT:    tile.foreach_tile
// CHECK:         tile.store_async %
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.store_async_wait
// CHECK-NEXT:    tile.device_barrier %[[F]][%{{.*}}], %[[W:arg[0-9]+]] :
// CHECK-NEXT:  }
// CHECK-NEXT: }
tile.kernel @device_barriers_around(%A: !view, %C: !view, %F: !flags, %v: i32, %w: i32) launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.device_barrier %F[%c0], %v : !flags
  tile.foreach_tile (%m) in (%c1) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%x = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
  }
  tile.device_barrier %F[%c1], %w : !flags
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32, devices = 2>

// Work done once per launch after the barrier across devices (block 0's
// add, in a branch on tile.block_id): the consumers' role runs it after
// the barrier, the producer's has none of it.
// CHECK-LABEL: tile.kernel @once_after_barrier
// CHECK:       tile.warp_specialize producer
// CHECK-NOT:     tile.block_id
// CHECK-NOT:     tile.signal_add
// CHECK:       consumer
// CHECK:         tile.foreach_tile
// CHECK:         tile.device_barrier %[[F:arg[0-9]+]][%{{.*}}], %{{.*}} :
// CHECK-NEXT:    %[[B:.*]] = tile.block_id
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : index
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      tile.signal_add %[[F]][%{{.*}}], %{{.*}} :
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT: }
tile.kernel @once_after_barrier(%A: !view, %C: !view, %F: !flags, %v: i32, %u: i32) launch(warpgroups = 2, grid = persistent) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%x = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
  }
  tile.device_barrier %F[%c0], %v : !flags
  %block = tile.block_id
  %first = arith.cmpi eq, %block, %c0 : index
  scf.if %first {
    tile.signal_add %F[%c1], %u : !flags
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32>

// A counter wait in the tile loop guards what the tile reads: the producer
// keeps it before its loads (with the index math it needs). The consumers
// see what it publishes through the ring (their `full` waits acquire the
// producer's arrivals after it): they wait themselves only for a tile
// whose pipelined loop runs no step, the wait moved down to the loop.
// CHECK-LABEL: tile.kernel @wait_in_tile_loop
// CHECK:       tile.warp_specialize producer
// CHECK:         tile.foreach_tile (%[[M:.*]]) in
// CHECK:           %[[SLOT:.*]] = arith.remui %[[M]], %{{.*}} : index
// CHECK-NEXT:      tile.signal_wait %{{.*}}[%[[SLOT]]], %{{.*}} at_least
// CHECK:           tile.load_async
// CHECK:       consumer
// CHECK:         tile.foreach_tile
// CHECK:           %[[CSLOT:.*]] = arith.remui
// CHECK-NOT:       tile.signal_wait
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        tile.signal_wait %{{.*}}[%[[CSLOT]]], %{{.*}} at_least
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.for
// CHECK-NOT:       tile.load_async
// CHECK:           tile.mma
tile.kernel @wait_in_tile_loop(%A: !view, %C: !view, %F: !flags, %v: i32) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.foreach_tile (%m) in (%c4) {
    %slot = arith.remui %m, %c4 : index
    tile.signal_wait %F[%slot], %v at_least : !flags
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%x = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32>

// A counter wait after the tile's products guards its store: the
// consumers wait there, after their pipelined loop (not through the ring:
// nothing of theirs follows it before the store); the producer, which
// stores nothing, does not wait.
// CHECK-LABEL: tile.kernel @wait_before_store
// CHECK:       tile.warp_specialize producer
// CHECK:         tile.foreach_tile
// CHECK:           scf.for
// CHECK:             tile.load_async
// CHECK:           }
// CHECK-NEXT:    }
// CHECK-NOT:     tile.signal_wait
// CHECK:       consumer
// CHECK:         tile.foreach_tile
// CHECK-NOT:       tile.signal_wait
// CHECK:           tile.mma
// CHECK:           tile.signal_wait %{{.*}}[%{{.*}}], %{{.*}} at_least
// CHECK-NOT:       tile.mma
// CHECK:           tile.store_async %
tile.kernel @wait_before_store(%A: !view, %C: !view, %F: !flags, %v: i32) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.foreach_tile (%m) in (%c4) {
    %zero = tile.fill 0.0 : !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%x = %zero) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.signal_wait %F[%c0], %v at_least : !flags
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x64xf32, block>

// Row vectors of block tiles and masks split with the rows: a row max of
// 64-row slices, a causal mask shifted to the warpgroup's first row, a
// vector store at vector index r * 2 + wg.
// CHECK-LABEL: tile.kernel @row_vectors
// CHECK:       consumer(warpgroups = 2, registers = 232) {
// CHECK:         %[[WG:.*]] = tile.warpgroup_id
// CHECK:         %[[D:.*]] = tile.mma ABt {{.*}} -> !tile.rt<64x128xf32, warpgroup>
// CHECK:         %[[OFF:.*]] = arith.muli %[[WG]], %c64 : index
// CHECK:         %[[ROW:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK:         %[[E:.*]] = tile.causal_mask %[[D]][%[[ROW]], %{{.*}}] fill zero : !tile.rt<64x128xf32, warpgroup>
// CHECK:         scf.if {{.*}} -> (!tile.rt<64x128xf32, warpgroup>)
// CHECK:         tile.row_max {{.*}} : !tile.rt<64x128xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
// CHECK:       } {tile.pipelined
// CHECK:       %[[VROW:.*]] = arith.addi %{{.*}}, %[[WG]] : index
// CHECK:       tile.store %{{.*}}, %{{.*}}[%[[VROW]]] : !tile.rv<64xf32, warpgroup>, !tile.gl<?xf32>
tile.kernel @row_vectors(%A: !view, %L: !tile.gl<?xf32>, %c: i1) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %K = tile.dim %A[1] : !view
  tile.foreach_tile (%m) in (%c1) {
    %v0 = tile.fill 0.0 : !tile.rv<128xf32, block>
    %v = scf.for %k = %c0 to %K step %c1 iter_args(%x = %v0) -> (!tile.rv<128xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      %d = tile.mma ABt %a, %a : !tile.st<128x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<128x128xf32, block>
      %e = tile.causal_mask %d[%c0, %c0] fill zero : !tile.rt<128x128xf32, block>
      %f = scf.if %c -> (!tile.rt<128x128xf32, block>) {
        scf.yield %e : !tile.rt<128x128xf32, block>
      } else {
        scf.yield %d : !tile.rt<128x128xf32, block>
      }
      %y = tile.row_max %f, %x : !tile.rt<128x128xf32, block> -> !tile.rv<128xf32, block>
      scf.yield %y : !tile.rv<128xf32, block>
    }
    tile.store %v, %L[%m] : !tile.rv<128xf32, block>, !tile.gl<?xf32>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// tile.part_rows of a tile split by rows becomes the warpgroup's rows
// (row + wg * 64, 64 more); a tile that does not split into 64-row slices
// per warpgroup keeps the op (the whole tile). Work skipped under it stays
// between the loop's wait for its stage and its release: a warpgroup that
// skips still takes part in the ring.
// CHECK-LABEL: tile.kernel @part_rows
// CHECK:       consumer(warpgroups = 2
// CHECK:         %[[WG:.*]] = tile.warpgroup_id
// CHECK:         %[[OFF:.*]] = arith.muli %[[WG]], %[[C64:.*]] : index
// CHECK:         %[[LO:.*]] = arith.addi %[[ROW:.*]], %[[OFF]] : index
// CHECK:         %[[HI:.*]] = arith.addi %[[LO]], %[[C64]] : index
// CHECK:         %{{.*}}, %[[WHOLE:.*]] = tile.part_rows %[[ROW]] of !tile.rt<64x128xf32, block>
// CHECK:         scf.for
// CHECK:           tile.sem_wait
// CHECK:           %[[BELOW:.*]] = arith.cmpi ult, %{{.*}}, %[[HI]] : index
// CHECK:           scf.if %[[BELOW]] -> (!tile.rv<64xf32, warpgroup>) {
// CHECK:             tile.mma ABt {{.*}} -> !tile.rt<64x128xf32, warpgroup>
// CHECK:           tile.sem_arrive
// CHECK:         "test.use"(%[[WHOLE]])
tile.kernel @part_rows(%A: !view, %L: !tile.gl<?xf32>) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %A[1] : !view
  tile.foreach_tile (%m) in (%c1) {
    %row = arith.muli %m, %c64 : index
    %lo, %hi = tile.part_rows %row of !tile.rt<128x128xf32, block>
    %lo64, %hi64 = tile.part_rows %row of !tile.rt<64x128xf32, block>
    %v0 = tile.fill 0.0 : !tile.rv<128xf32, block>
    %v = scf.for %k = %c0 to %K step %c1 iter_args(%x = %v0) -> (!tile.rv<128xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      %k0 = arith.muli %k, %c64 : index
      %below = arith.cmpi ult, %k0, %hi : index
      %y = scf.if %below -> (!tile.rv<128xf32, block>) {
        %d = tile.mma ABt %a, %a : !tile.st<128x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<128x128xf32, block>
        %r = tile.row_max %d, %x : !tile.rt<128x128xf32, block> -> !tile.rv<128xf32, block>
        scf.yield %r : !tile.rv<128xf32, block>
      } else {
        scf.yield %x : !tile.rv<128xf32, block>
      }
      scf.yield %y : !tile.rv<128xf32, block>
    }
    "test.use"(%hi64) : (index) -> ()
    tile.store %v, %L[%m] : !tile.rv<128xf32, block>, !tile.gl<?xf32>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @short_mma
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: an mma of 64 rows does not split into 2 warpgroup mmas of whole 64-row blocks, and only one with both operands in shared memory, no accumulator and columns in whole 8-column blocks per warpgroup splits by columns}}
tile.kernel @short_mma(%A: !view, %C: !tile.gl<?x?xf32>) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    %z = tile.fill 0.0 : !tile.rt<64x64xf32, block>
    %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%acc = %z) -> (!tile.rt<64x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
      %d = tile.mma ABt %a, %a, %acc : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, block>
      scf.yield %d : !tile.rt<64x64xf32, block>
    }
    tile.store %r, %C[%m, %c0] : !tile.rt<64x64xf32, block>, !tile.gl<?x?xf32>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// An mma whose 64 rows do not split over two warpgroups, with both operands
// in shared memory and no accumulator, is split by columns: each warpgroup
// multiplies all of A (here transposed) by its 64 columns of B; elementwise
// ops keep the slices, and an add-reducing store of them goes through a
// shared buffer of one 64x64 slice per warpgroup and a reducing async store
// at the warpgroup's column of tiles. The block barrier stays: inside the
// consumer role it waits for the consumers only.
// CHECK-LABEL: tile.kernel @column_split
// CHECK: %[[BUF:.*]] = tile.alloc : !tile.st<128x64xf32>
// CHECK: consumer(warpgroups = 2
// CHECK: %[[WG:.*]] = tile.warpgroup_id
// CHECK: scf.for
// CHECK: tile.barrier block
// CHECK: %[[B:.*]] = tile.subtile %{{.*}}[%{{.*}}, %[[WG]]] : !tile.st<64x128xbf16> to !tile.st<64x64xbf16>
// CHECK: %[[D:.*]] = tile.mma AtB %{{.*}}, %[[B]] : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, warpgroup>
// CHECK: %[[S:.*]] = tile.mul %[[D]], %{{.*}} : !tile.rt<64x64xf32, warpgroup>, f32
// CHECK: %[[TWO:.*]] = arith.muli %{{.*}}, %c2
// CHECK: %[[COL:.*]] = arith.addi %[[TWO]], %[[WG]]
// CHECK: %[[SLICE:.*]] = tile.subtile %[[BUF]][%[[WG]], %{{.*}}] : !tile.st<128x64xf32> to !tile.st<64x64xf32>
// CHECK: tile.store_async_wait
// CHECK: tile.store %[[S]], %[[SLICE]]
// CHECK: tile.store_async %[[SLICE]] -> %{{.*}}[%{{.*}}, %[[COL]]] reduce add
// CHECK: tile.store_async_wait
tile.kernel @column_split(%A: !view, %B: !view, %C: !tile.gl<?x?xf32>, %s: f32) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %A[0] : !view
  tile.foreach_tile (%m) in (%n) {
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %A[%k, %m] -> %a : !view, !tile.st<64x64xbf16>
      tile.copy %B[%k, %c0] -> %b : !view, !tile.st<64x128xbf16>
      tile.barrier block
      %d = tile.mma AtB %a, %b : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, block>
      %e = tile.mul %d, %s : !tile.rt<64x128xf32, block>, f32
      tile.store %e, %C[%m, %c0] reduce add : !tile.rt<64x128xf32, block>, !tile.gl<?x?xf32>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// The same with a large shared tile besides: the 32 KB staging buffer does
// not fit, so the reducing store stays an element-wise (atomic) one, and a
// remark says so.
// CHECK-LABEL: tile.kernel @column_split_no_room
// CHECK-NOT: tile.store_async
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] reduce add : !tile.rt<64x64xf32, warpgroup>
// CHECK-NOT: tile.store_async
tile.kernel @column_split_no_room(%A: !view, %B: !view, %C: !tile.gl<?x?xf32>, %s: f32) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x128xbf16>
  // Unused: it only takes the room.
  %pad = tile.alloc : !tile.st<768x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %A[0] : !view
  tile.foreach_tile (%m) in (%n) {
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %A[%k, %m] -> %a : !view, !tile.st<64x64xbf16>
      tile.copy %B[%k, %c0] -> %b : !view, !tile.st<64x128xbf16>
      tile.barrier block
      %d = tile.mma AtB %a, %b : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, block>
      %e = tile.mul %d, %s : !tile.rt<64x128xf32, block>, f32
      // expected-remark @+1 {{store not staged through shared memory: its buffer would bring the kernel to 253968 bytes, over the target's 231424; it and the stores after it add element by element (atomics)}}
      tile.store %e, %C[%m, %c0] reduce add : !tile.rt<64x128xf32, block>, !tile.gl<?x?xf32>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// Column slices may only feed elementwise ops and stores.
// CHECK-LABEL: tile.kernel @column_split_reduced
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: the column slices of an mma whose rows do not split feed 'tile.row_sum'; only elementwise ops on them and stores are split yet}}
tile.kernel @column_split_reduced(%A: !view, %L: !tile.gl<?xf32>) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
      %d = tile.mma ABt %a, %a : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, block>
      %x = tile.fill 0.0 : !tile.rv<64xf32, block>
      %r = tile.row_sum %d, %x : !tile.rt<64x64xf32, block> -> !tile.rv<64xf32, block>
      tile.store %r, %L[%m] : !tile.rv<64xf32, block>, !tile.gl<?xf32>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// A transposed A (stored K x M) splits by rows too: each warpgroup takes
// its columns of the stored tile.
// CHECK-LABEL: tile.kernel @transposed_a
// CHECK: consumer(warpgroups = 2
// CHECK: %[[WG:.*]] = tile.warpgroup_id
// CHECK: %[[A:.*]] = tile.subtile %{{.*}}[%{{.*}}, %[[WG]]] : !tile.st<64x128xbf16> to !tile.st<64x64xbf16>
// CHECK: tile.mma AtB %[[A]], %{{.*}}, %{{.*}} : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !tile.rt<64x128xf32, warpgroup>
tile.kernel @transposed_a(%A: !view, %C: !tile.gl<?x?xf32>) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<64x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    %z = tile.fill 0.0 : !tile.rt<128x128xf32, block>
    %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%acc = %z) -> !tile.rt<128x128xf32, block> {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x128xbf16>
      %d = tile.mma AtB %a, %a, %acc : !tile.st<64x128xbf16>, !tile.st<64x128xbf16> -> !tile.rt<128x128xf32, block>
      scf.yield %d : !tile.rt<128x128xf32, block>
    }
    tile.store %r, %C[%m, %c0] : !tile.rt<128x128xf32, block>, !tile.gl<?x?xf32>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @unsplit_op
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: 'tile.transpose' on block-scope values is not split by rows yet}}
tile.kernel @unsplit_op(%A: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      %d = tile.mma ABt %a, %a : !tile.st<128x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<128x128xf32, block>
      %e = tile.transpose %d : !tile.rt<128x128xf32, block> to !tile.rt<128x128xf32, block>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @too_many_warpgroups
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: a producer warpgroup would exceed the target's 8 warpgroups}}
tile.kernel @too_many_warpgroups(%A: !view) launch(warpgroups = 8) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @cluster
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: cluster kernels are not split yet}}
tile.kernel @cluster(%A: !view) launch(warpgroups = 1, cluster = [2, 1, 1]) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
    }
  }
}

// -----

// A hand-scheduled kernel is left alone without a remark.
// CHECK-LABEL: tile.kernel @hand_scheduled
// CHECK-SAME:  launch(warpgroups = 2)
// CHECK:       tile.warp_specialize producer(warpgroups = 1) {
tile.kernel @hand_scheduled() launch(warpgroups = 2) {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 1) {
  }
}

// -----

// AMD targets have no setmaxnreg; the copies (kept synchronous by
// tile.stages = 1) stay where they are.
// CHECK-LABEL: tile.kernel @no_register_budgets
// CHECK-NOT: tile.warp_specialize
module attributes {tile.target = "gfx942"} {
  // expected-remark @+1 {{not warp-specialized: target gfx942 has no per-role register budgets}}
  tile.kernel @no_register_budgets(%A: !tile.gl<?x?xbf16>) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x64xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.foreach_tile (%m) in (%c1) {
      scf.for %k = %c0 to %c1 step %c1 {
        tile.copy %A[%m, %k] -> %a : !tile.gl<?x?xbf16>, !tile.st<64x64xbf16>
      } {tile.stages = 1}
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @ragged_rows
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: a block-scope tile of 48 rows does not split into 2 warpgroup slices of whole 16-row blocks}}
tile.kernel @ragged_rows(%A: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    %z = tile.fill 0.0 : !tile.rt<48x64xf32, block>
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!t = !tile.rt<128x64xf32, block>

// CHECK-LABEL: tile.kernel @while_argument
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: 'scf.while' has a block-scope region argument}}
tile.kernel @while_argument(%A: !view, %c: i1) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    %z = tile.fill 0.0 : !t
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
    }
    %w = scf.while (%x = %z) : (!t) -> !t {
      scf.condition(%c) %x : !t
    } do {
    ^bb0(%y: !t):
      scf.yield %y : !t
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// A loop marked pipelined by hand, without the prologue tile-pipeline adds.
// CHECK-LABEL: tile.kernel @no_prologue
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: the pipelined loop's prologue is missing}}
tile.kernel @no_prologue(%A: !view) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    scf.for %k = %c0 to %c1 step %c1 {
    } {tile.pipelined = 2}
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @column_sum
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: column reductions of block-scope tiles are not split by rows yet (they would sum over the warpgroups)}}
tile.kernel @column_sum(%A: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      %d = tile.mma ABt %a, %a : !tile.st<128x64xbf16>, !tile.st<128x64xbf16> -> !tile.rt<128x128xf32, block>
      %v = tile.col_sum %d : !tile.rt<128x128xf32, block> -> !tile.rv<128xf32, block>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// CHECK-LABEL: tile.kernel @vector_to_shared
// CHECK-NOT: tile.warp_specialize
// expected-remark @+1 {{not warp-specialized: block-scope vectors in shared memory are not split yet}}
tile.kernel @vector_to_shared(%A: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %sv = tile.alloc : !tile.sv<128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%m) in (%c1) {
    scf.for %k = %c0 to %c1 step %c1 {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
    }
    %v = tile.fill 0.0 : !tile.rv<128xf32, block>
    tile.store %v, %sv : !tile.rv<128xf32, block>, !tile.sv<128xf32>
  }
}

// -----

!qkv = !tile.gl<?x?x128xbf16>

// Attention's shape: a per-tile Q copy (kept whole in the producer, gone
// from the consumers) and a K loop whose trip count depends on the tile, so
// the grid stays one tile per block.
// CHECK-LABEL: tile.kernel @per_tile_copy
// CHECK-SAME:  launch(warpgroups = 3)
// CHECK-NOT:   grid = persistent
// CHECK:       tile.warp_specialize producer(warpgroups = 1, registers = 40) {
// CHECK:         tile.foreach_tile
// CHECK:           scf.if
// CHECK:             tile.load_async
// CHECK:           } {tile.pipeline_copy}
// CHECK:           scf.for
// CHECK:             tile.load_async
// CHECK:       } consumer(warpgroups = 2, registers = 232) {
// CHECK-NOT:     tile.pipeline_copy
// CHECK-NOT:     tile.load_async
// CHECK:         tile.sem_wait
// CHECK:         tile.mma ABt
// CHECK:       } {tile.pipelined = 3 : i64}
// CHECK-NEXT:  tile.sem_arrive
tile.kernel @per_tile_copy(%Q: !qkv, %K: !qkv) launch(warpgroups = 2) {
  %q = tile.alloc : !tile.st<128x128xbf16>
  %k = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %Q[1] : !qkv
  tile.foreach_tile (%t, %h) in (%n, %n) {
    %kv = arith.addi %t, %c1 : index
    tile.copy %Q[%h, %t, %c0] -> %q : !qkv, !tile.st<128x128xbf16>
    scf.for %j = %c0 to %kv step %c1 {
      tile.copy %K[%h, %j, %c0] -> %k : !qkv, !tile.st<128x128xbf16>
      %s = tile.mma ABt %q, %k : !tile.st<128x128xbf16>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
    }
  }
}

// -----

!qkv = !tile.gl<?x?x128xbf16>

// Column vectors (broadcast along columns, as attention's backward does with
// the per-query log-sum-exp over Sᵀ) stay whole in every warpgroup: the
// load keeps its coordinate, the broadcast fills the warpgroup's rows.
// CHECK-LABEL: tile.kernel @column_vectors
// CHECK:       consumer(
// CHECK:         %[[L:.*]] = tile.load %{{.*}}[%{{.*}}, %{{[a-z0-9_]*}}] : !tile.gl<?x?xf32> -> !tile.rv<128xf32, warpgroup>
// CHECK:         tile.broadcast col %[[L]] : !tile.rv<128xf32, warpgroup> to !tile.rt<64x128xf32, warpgroup>
tile.kernel @column_vectors(%K: !qkv, %Q: !qkv, %L: !tile.gl<?x?xf32>) launch(warpgroups = 2) {
  %k = tile.alloc : !tile.st<128x128xbf16>
  %q = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %Q[1] : !qkv
  tile.foreach_tile (%t) in (%n) {
    tile.copy %K[%c0, %t, %c0] -> %k : !qkv, !tile.st<128x128xbf16>
    scf.for %i = %c0 to %n step %c1 {
      tile.copy %Q[%c0, %i, %c0] -> %q : !qkv, !tile.st<128x128xbf16>
      %lse = tile.load %L[%c0, %i] : !tile.gl<?x?xf32> -> !tile.rv<128xf32, block>
      %s = tile.mma ABt %k, %q : !tile.st<128x128xbf16>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
      %b = tile.broadcast col %lse : !tile.rv<128xf32, block> to !tile.rt<128x128xf32, block>
      %p = tile.sub %s, %b : !tile.rt<128x128xf32, block>
    }
  }
}

// -----

!qkv = !tile.gl<?x?x128xbf16>

// The same shape with `grid = persistent` asked for by the program: the
// kernel stays persistent (no L2 group: the tiles differ in length), both
// roles take the ring position from the running sum of the trip counts, and
// the double-buffered Q slot follows the tile iteration in both.
// CHECK-LABEL: tile.kernel @persistent_requested
// CHECK-SAME:  launch(warpgroups = 3, grid = persistent)
// CHECK:       tile.warp_specialize producer
// CHECK:         tile.foreach_tile (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) iteration
// CHECK:           tile.prefix_sum
// CHECK:       } consumer
// CHECK:         tile.foreach_tile (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) iteration
// CHECK:           tile.slot %{{.*}} : !tile.st<2x128x128xbf16>
// CHECK:           tile.prefix_sum
tile.kernel @persistent_requested(%Q: !qkv, %K: !qkv) launch(warpgroups = 2, grid = persistent) {
  %q = tile.alloc : !tile.st<128x128xbf16>
  %k = tile.alloc : !tile.st<128x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %Q[1] : !qkv
  tile.foreach_tile (%t, %h) in (%n, %n) {
    %kv = arith.addi %t, %c1 : index
    tile.copy %Q[%h, %t, %c0] -> %q {tile.stages = 2} : !qkv, !tile.st<128x128xbf16>
    scf.for %j = %c0 to %kv step %c1 {
      tile.copy %K[%h, %j, %c0] -> %k : !qkv, !tile.st<128x128xbf16>
      %s = tile.mma ABt %q, %k : !tile.st<128x128xbf16>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
    }
  }
}

// -----

!view = !tile.gl<?x?xbf16>
!flags = !tile.gl<?xi32>

// A consumer wait followed by a global access of the consumers' own before
// the pipelined loop stays where it is.
// CHECK-LABEL: tile.kernel @wait_before_own_load
// CHECK:       consumer
// CHECK:         tile.foreach_tile
// CHECK-NOT:       scf.if
// CHECK-NEXT:      tile.signal_wait
// CHECK:           tile.load %{{.*}}[%{{.*}}]
tile.kernel @wait_before_own_load(%A: !view, %C: !view, %F: !flags, %v: i32) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.foreach_tile (%m) in (%c4) {
    tile.signal_wait %F[%m], %v at_least : !flags
    %bias = tile.load %C[%m, %c0] : !view -> !tile.rt<128x64xbf16, block>
    %init = tile.cast %bias : !tile.rt<128x64xbf16, block> to !tile.rt<128x64xf32, block>
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%x = %init) -> (!tile.rt<128x64xf32, block>) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %A[%k, %m] -> %b : !view, !tile.st<64x64xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<128x64xf32, block>
      scf.yield %y : !tile.rt<128x64xf32, block>
    }
    %out = tile.cast %acc : !tile.rt<128x64xf32, block> to !tile.rt<128x64xbf16, block>
    tile.store %out, %C[%m, %c0] : !tile.rt<128x64xbf16, block>, !view
  }
}

// -----

// A store into device %d's copy of a multi-device view, staged through
// shared memory like any other: the async store keeps the device and the
// add-reduce.
!view = !tile.gl<?x?xbf16>
!peers = !tile.gl<?x?xbf16, devices = 2>
!acc = !tile.rt<128x256xf32, block>
// CHECK-LABEL: tile.kernel @store_to_peer
// CHECK-SAME: (%{{[^:]*}}: !tile.gl<?x?xbf16>, %{{[^:]*}}: !tile.gl<?x?xbf16>, %[[C:[^:]*]]: !tile.gl<?x?xbf16, devices = 2>, %[[D:[^:]*]]: index)
// CHECK: } consumer(warpgroups = 2, registers = 232) {
// CHECK:           tile.store_async_wait
// CHECK-NEXT:      tile.store %{{.*}}, %[[CWG:.*]] : !tile.rt<64x256xbf16, warpgroup>, !tile.st<64x256xbf16>
// CHECK-NEXT:      tile.store_async %[[CWG]] -> %[[C]][%{{.*}}, %{{.*}}] device %[[D]] reduce add : !tile.st<64x256xbf16>, !tile.gl<?x?xbf16, devices = 2>
tile.kernel @store_to_peer(%A: !view, %B: !view, %C: !peers, %d: index) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  tile.foreach_tile (%m, %n) in (%M, %N) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%m, %n] device %d reduce add : !tile.rt<128x256xbf16, block>, !peers
  }
}

// -----

// A load's row comes from a branch that also signals: the producer would
// signal too, so the kernel is left alone.
// CHECK-LABEL: tile.kernel @load_coordinate_with_side_effects
// CHECK-NOT: tile.warp_specialize
!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x256xf32, block>

// expected-remark @+1 {{not warp-specialized: the producer's loads depend on 'scf.if', which has side effects (the producer would run them too)}}
tile.kernel @load_coordinate_with_side_effects(%A: !view, %B: !view, %C: !view, %Cnt: !tile.gl<?xi32>) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  tile.foreach_tile (%m, %n) in (%M, %N) {
    %zero = tile.fill 0.0 : !acc
    %first = arith.cmpi eq, %n, %c0 : index
    %row = scf.if %first -> (index) {
      %one = arith.constant 1 : i32
      tile.signal_add %Cnt[%m], %one : !tile.gl<?xi32>
      scf.yield %m : index
    } else {
      scf.yield %m : index
    }
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%row, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !view
  }
}
