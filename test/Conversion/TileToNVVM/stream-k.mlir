// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -convert-tile-to-nvvm | FileCheck %s

// Persistent stream_k: W = gridDim, T tiles, K steps each. D = (T / W - 1) W
// tiles run whole when T / W > 0, T mod W > 0 and K > 0 (else D = T); the
// other (T - D) K steps are cut into W ranges [b S / W, (b + 1) S / W). One
// scf.while runs the block's whole tiles, then its range, a unit per step.
// CHECK-LABEL: llvm.func @stream_k
// CHECK: %[[B:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[W:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[Q:.*]] = arith.divui %[[T:.*]], %[[W]] : index
// CHECK: %[[R:.*]] = arith.remui %[[T]], %[[W]] : index
// CHECK: arith.andi
// CHECK: %[[RAGGED:.*]] = arith.andi
// CHECK: %[[Q1:.*]] = arith.subi %[[Q]], %{{.*}} : index
// CHECK: %[[DW:.*]] = arith.muli %[[Q1]], %[[W]] : index
// CHECK: %[[D:.*]] = arith.select %[[RAGGED]], %[[DW]], %[[T]] : index
// CHECK: %[[S:.*]] = arith.subi %[[T]], %[[D]] : index
// CHECK: %[[WORK:.*]] = arith.muli %[[S]], %[[K:.*]] : index
// CHECK: %[[SB:.*]] = arith.muli %[[B]], %[[WORK]] : index
// CHECK: %[[START:.*]] = arith.divui %[[SB]], %[[W]] : index
// CHECK: %[[END:.*]] = arith.divui %{{.*}}, %[[W]] : index
// CHECK: %[[WHOLE:.*]] = arith.ceildivui %{{.*}}, %[[W]] : index
// CHECK: %[[NWHOLE:.*]] = arith.select %{{.*}}, %[[WHOLE]], %{{.*}} : index
// CHECK: scf.while (%[[U:.*]] = %{{.*}}, %[[STEP:.*]] = %[[START]], %[[SUM:.*]] = %{{.*}}) : (index, index, index)
// CHECK: %[[MORE1:.*]] = arith.cmpi ult, %[[U]], %[[NWHOLE]] : index
// CHECK: %[[MORE2:.*]] = arith.cmpi ult, %[[STEP]], %[[END]] : index
// CHECK: %[[MORE:.*]] = arith.ori %[[MORE1]], %[[MORE2]] : i1
// CHECK: scf.condition(%[[MORE]])
// CHECK: ^bb0(%[[U2:.*]]: index, %[[STEP2:.*]]: index, %[[SUM2:.*]]: index):
// CHECK: %[[ISWHOLE:.*]] = arith.cmpi ult, %[[U2]], %[[NWHOLE]] : index
// CHECK: %[[TILE:.*]] = arith.divui %[[STEP2]], %{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.remui %[[STEP2]], %{{.*}} : index
// CHECK: %[[LIN:.*]] = arith.select %[[ISWHOLE]], %{{.*}}, %{{.*}} : index
// CHECK: %[[KB:.*]] = arith.select %[[ISWHOLE]], %{{.*}}, %[[FIRST]] : index
// CHECK: %[[KE:.*]] = arith.select %[[ISWHOLE]], %[[K]], %{{.*}} : index
// CHECK: %[[SLOT:.*]] = arith.select %[[ISWHOLE]], %{{.*}}, %[[TILE]] : index
// CHECK: %[[NEXTU:.*]] = arith.addi %[[U2]], %{{.*}} : index
// CHECK: "test.use"(%[[LIN]], %[[KB]], %[[KE]], %[[SLOT]], %[[U2]], %[[SUM2]])
// CHECK: %[[NEXTSUM:.*]] = arith.addi %[[SUM2]], %{{.*}} : index
// CHECK: scf.yield %[[NEXTU]], %{{.*}}, %[[NEXTSUM]] : index, index, index
tile.kernel @stream_k(%n: index, %k: index) launch(warpgroups = 1, grid = persistent) {
  tile.foreach_tile (%i) in (%n) stream_k(%kb, %ke, %slot) of %k iteration(%t) {
    %steps = arith.subi %ke, %kb : index
    %base = tile.prefix_sum %steps
    "test.use"(%i, %kb, %ke, %slot, %t, %base) : (index, index, index, index, index, index) -> ()
  }
}

// -----

// One tile per block (grid = tiles): every unit is a whole tile, [0, K),
// slot 0.
// CHECK-LABEL: llvm.func @stream_k_one_tile
// CHECK-SAME: (%{{.*}}: i64, %[[KARG:.*]]: i64)
// CHECK: %[[K:.*]] = arith.index_cast %[[KARG]] : i64 to index
// CHECK: scf.if
// CHECK: "test.use"(%{{.*}}, %c0{{.*}}, %[[K]], %c0{{.*}})
// CHECK-NOT: scf.while
tile.kernel @stream_k_one_tile(%n: index, %k: index) launch(warpgroups = 1) {
  tile.foreach_tile (%i) in (%n) stream_k(%kb, %ke, %slot) of %k {
    "test.use"(%i, %kb, %ke, %slot) : (index, index, index, index) -> ()
  }
}

// -----

// Counters in a consumer role: the role's named barrier (15, its 256
// threads) and its first thread (128, after the producer warpgroup); the
// wait polls with device-scope acquire before the barrier, the add
// releases after it.
// CHECK-LABEL: llvm.func @role_signals
// CHECK-SAME: (%[[F:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %[[V:.*]]: i32)
// CHECK: } else {
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c128{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[P:.*]] = llvm.getelementptr %[[F]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK: llvm.inline_asm has_side_effects {{.*}}ld.acquire.gpu.global.b32 v, [$0];\0Asetp.ne.b32 p, v, $1;\0A@p bra TK_SIGNAL;{{.*}}"l,r" %[[P]], %[[V]]
// CHECK: }
// CHECK: nvvm.barrier id = %c15_i32 number_of_threads = %c256_i32
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: arith.cmpi eq, %{{.*}}, %c128{{.*}} : index
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "red.release.gpu.global.add.s32 [$0], $1;", "l,r"
tile.kernel @role_signals(%F: !tile.gl<?xi32>, %i: index, %v: i32) launch(warpgroups = 3) {
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
    tile.signal_wait %F[%i], %v : !tile.gl<?xi32>
    tile.signal_add %F[%i], %v : !tile.gl<?xi32>
  }
}

// -----

// Outside roles: the block barrier and thread 0. No wait for async
// stores without after_async_stores.
// CHECK-LABEL: llvm.func @block_signal
// CHECK-NOT: nvvm.cp.async.bulk.wait_group
// CHECK: nvvm.barrier0
// CHECK: arith.cmpi eq, %{{.*}}, %c0{{.*}} : index
// CHECK: red.release.gpu.global.add.s32
tile.kernel @block_signal(%F: !tile.gl<?xi32>, %i: index, %v: i32) launch(warpgroups = 1) {
  tile.signal_add %F[%i], %v : !tile.gl<?xi32>
}

// -----

// after_async_stores: the block's TMA stores are waited for until written
// (wait_group, not .read) and made visible to the generic proxy, then the
// barrier and the release.
// CHECK-LABEL: llvm.func @signal_after_async_stores
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT: read
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.global;"
// CHECK: nvvm.barrier0
// CHECK: red.release.gpu.global.add.s32
tile.kernel @signal_after_async_stores(%F: !tile.gl<?xi32>, %i: index, %v: i32) launch(warpgroups = 1) {
  tile.signal_add %F[%i], %v after_async_stores : !tile.gl<?xi32>
}

// -----

// store_async_wait: the issuing thread waits for its stores' reads
// (.read); `written`: until they are written, then the proxy fence that
// lets the block's ordinary loads see them.
// CHECK-LABEL: llvm.func @store_waits
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK-NOT: fence.proxy.async.global
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT: read
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.global;"
tile.kernel @store_waits() launch(warpgroups = 1) {
  tile.store_async_wait {pending = 1 : i32}
  tile.store_async_wait written
}

// -----

// Global view -> register tile (the workspace read of a split tile): each
// thread loads its elements, zero past the edges.
// CHECK-LABEL: llvm.func @load_accumulator
// CHECK-COUNT-32: scf.if %{{.*}} -> (f32) {
// CHECK-NOT: scf.if %{{.*}} -> (f32) {
// CHECK: "test.use"
tile.kernel @load_accumulator(%W: !tile.gl<?x?xf32>, %i: index) launch(warpgroups = 1) {
  %x = tile.load %W[%i, %i] : !tile.gl<?x?xf32> -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  "test.use"(%x) : (!tile.rt<64x64xf32, warpgroup, #tile.mma_acc>) -> ()
}
