// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -convert-tile-to-nvvm | FileCheck %s

// A multi-device view takes a pointer per device, then its dims; the
// launch's device index and count follow the parameters. The view stands
// for the launch's own copy (a select on the device index); `device %d`
// picks copy %d. Counters in such a view are signalled at system scope, an
// add first waiting for the warpgroups' async stores to be written (not
// only read) and fencing them to the generic proxy; `at_least` polls a
// signed difference.
// CHECK: tile.abi = {peers = {abi = [{device = 0 : i64, kind = "view_ptr", param = 0 : i64}, {device = 1 : i64, kind = "view_ptr", param = 0 : i64}, {axis = 0 : i64, kind = "view_dim", param = 0 : i64}, {axis = 1 : i64, kind = "view_dim", param = 0 : i64}, {device = 0 : i64, kind = "view_ptr", param = 1 : i64}, {device = 1 : i64, kind = "view_ptr", param = 1 : i64}, {axis = 0 : i64, kind = "view_dim", param = 1 : i64}, {kind = "scalar", param = 2 : i64, type = "i64"}, {kind = "scalar", param = 3 : i64, type = "i32"}, {kind = "device_id"}, {kind = "device_count"}]
// CHECK-SAME: params = [{devices = 2 : i64, dtype = "f32", kind = "view", shape = array<i64: -1, -1>}, {devices = 2 : i64, dtype = "i32", kind = "view", shape = array<i64: -1>}
// CHECK-LABEL: llvm.func @peers
// CHECK-SAME: (%[[C0:.*]]: !llvm.ptr<1>, %[[C1:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %[[N:.*]]: i64, %[[F0:.*]]: !llvm.ptr<1>, %[[F1:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %[[V:.*]]: i32, %[[ME:.*]]: i32, %[[W:.*]]: i32)
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[ME]], %{{.*}} : i32
// CHECK: arith.select %[[IS1]], %[[C1]], %[[C0]] : !llvm.ptr<1>
// CHECK: %[[IS1F:.*]] = arith.cmpi eq, %[[ME]], %{{.*}} : i32
// CHECK: %[[OWN:.*]] = arith.select %[[IS1F]], %[[F1]], %[[F0]] : !llvm.ptr<1>
// CHECK: %[[COUNT:.*]] = arith.index_cast %[[W]] : i32 to index
// CHECK: %[[DIM:.*]] = arith.index_castui %[[N]] : i64 to index
// CHECK: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: "fence.proxy.async.global;"
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK: %[[D:.*]] = arith.index_cast %[[COUNT]] : index to i32
// CHECK: %[[PICK:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : i32
// CHECK: %[[PEER:.*]] = arith.select %[[PICK]], %[[F1]], %[[F0]] : !llvm.ptr<1>
// CHECK: llvm.getelementptr %[[PEER]]
// CHECK: "red.release.sys.global.add.s32 [$0], $1;"
// CHECK: scf.if
// CHECK: llvm.getelementptr %[[OWN]]
// CHECK: ld.acquire.sys.global.b32 v, [$0];\0Asub.s32 d, v, $1;\0Asetp.lt.s32 p, d, 0;
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.global;", ""
// CHECK: nvvm.barrier0
// CHECK: "test.use"(%[[DIM]])
tile.kernel @peers(%C: !tile.gl<?x?xf32, devices = 2>, %F: !tile.gl<?xi32, devices = 2>, %i: index, %v: i32) launch(warpgroups = 1) {
  %w = tile.device_count
  %n = tile.dim %C[1] : !tile.gl<?x?xf32, devices = 2>
  tile.signal_add %F[%i], %v device %w : !tile.gl<?xi32, devices = 2>
  tile.signal_wait %F[%i], %v at_least : !tile.gl<?xi32, devices = 2>
  "test.use"(%n) : (index) -> ()
}

// -----

// TMA stores to a multi-device view: a tensor map per device (after the
// rest), the one of the device the store names, else the launch's own.
// CHECK: {box = array<i64: 128, 64>, device = 0 : i64, dtype = "bf16", kind = "tensor_map", param = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 128, 64>, device = 1 : i64, dtype = "bf16", kind = "tensor_map", param = 0 : i64, swizzle = 128 : i64}]
// CHECK-LABEL: llvm.func @peer_store
// CHECK-SAME: %[[ME:[^:]*]]: i32, %[[W:[^:]*]]: i32, %[[M0:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[M1:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK: %[[D:.*]] = arith.index_cast %[[W]] : i32 to index
// CHECK: scf.if
// CHECK: %[[D32:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK: %[[IS:.*]] = arith.cmpi eq, %[[D32]], %{{.*}} : i32
// CHECK: %[[MAP:.*]] = arith.select %[[IS]], %[[M1]], %[[M0]] : !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.reduce %[[MAP]], {{.*}} {redKind = #nvvm.tma_redux_kind<add>}
// CHECK: scf.if
// CHECK: %[[OWN:.*]] = arith.index_cast %[[ME]] : i32 to index
// CHECK: %[[OWN32:.*]] = arith.index_cast %[[OWN]] : index to i32
// CHECK: %[[ISOWN:.*]] = arith.cmpi eq, %[[OWN32]], %{{.*}} : i32
// CHECK: %[[OWNMAP:.*]] = arith.select %[[ISOWN]], %[[M1]], %[[M0]] : !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[OWNMAP]]
tile.kernel @peer_store(%C: !tile.gl<?x?xbf16, devices = 2>, %i: index) launch(warpgroups = 1) {
  %s = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  %d = tile.device_count
  tile.store_async %s -> %C[%i, %i] device %d reduce add : !tile.st<128x64xbf16, #tile.swizzle<128>>, !tile.gl<?x?xbf16, devices = 2>
  tile.store_async %s -> %C[%i, %i] : !tile.st<128x64xbf16, #tile.swizzle<128>>, !tile.gl<?x?xbf16, devices = 2>
}

// -----

// A barrier across devices: the warpgroups' async stores written and
// fenced, one block barrier, then the first thread adds 1 to every
// device's copy (a loop to the device count, each copy picked by index)
// and polls its own copy for the expected count, all at system scope; a
// second block barrier releases the block.
// CHECK-LABEL: llvm.func @device_barrier
// CHECK-SAME: (%[[F0:.*]]: !llvm.ptr<1>, %[[F1:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %[[V:.*]]: i32, %[[ME:.*]]: i32, %[[W:.*]]: i32)
// CHECK: %[[OWN:.*]] = arith.select %{{.*}}, %[[F1]], %[[F0]] : !llvm.ptr<1>
// CHECK: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: "fence.proxy.async.global;"
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK: %[[COUNT:.*]] = arith.index_cast %[[W]] : i32 to index
// CHECK: scf.for %[[D:.*]] = %{{.*}} to %[[COUNT]]
// CHECK: %[[D32:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK: %[[PICK:.*]] = arith.cmpi eq, %[[D32]], %{{.*}} : i32
// CHECK: %[[PEER:.*]] = arith.select %[[PICK]], %[[F1]], %[[F0]] : !llvm.ptr<1>
// CHECK: llvm.getelementptr %[[PEER]]
// CHECK: "red.release.sys.global.add.s32 [$0], $1;"
// CHECK: }
// CHECK: llvm.getelementptr %[[OWN]]
// CHECK: ld.acquire.sys.global.b32 v, [$0];\0Asub.s32 d, v, $1;\0Asetp.lt.s32 p, d, 0;{{.*}}%[[V]]
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.global;", ""
// CHECK: }
// CHECK-NEXT: nvvm.barrier0
tile.kernel @device_barrier(%F: !tile.gl<?xi32, devices = 2>, %i: index, %v: i32) launch(warpgroups = 1) {
  tile.device_barrier %F[%i], %v : !tile.gl<?xi32, devices = 2>
}

// -----

// A plain view's counters stay at device scope, with no wait for stores.
// CHECK-LABEL: llvm.func @plain_counters
// CHECK-NOT: wait_group
// CHECK: "red.release.gpu.global.add.s32 [$0], $1;"
// CHECK: ld.acquire.gpu.global.b32 v, [$0];\0Asub.s32 d, v, $1;\0Asetp.lt.s32 p, d, 0;
tile.kernel @plain_counters(%F: !tile.gl<?xi32>, %i: index, %v: i32) launch(warpgroups = 1) {
  tile.signal_add %F[%i], %v : !tile.gl<?xi32>
  tile.signal_wait %F[%i], %v at_least : !tile.gl<?xi32>
}

// -----

// A tile-space bound may be the product of two bounds the launcher can
// read (tiles of several dimensions folded into one).
// CHECK: tiles = [{product = [{axis = 0 : i64, divisor = 1 : i64, param = 0 : i64}, {axis = 1 : i64, divisor = 128 : i64, param = 0 : i64}]}, {const = 4 : i64}]
tile.kernel @product_bound(%A: !tile.gl<?x?x?xbf16>) launch(warpgroups = 1) {
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %parts = tile.dim %A[0] : !tile.gl<?x?x?xbf16>
  %rows = tile.dim %A[1] : !tile.gl<?x?x?xbf16>
  %tiles = arith.ceildivui %rows, %c128 : index
  %all = arith.muli %parts, %tiles : index
  tile.foreach_tile (%t, %u) in (%all, %c4) {
    "test.use"(%t, %u) : (index, index) -> ()
  }
}

// -----

// The launch's device count as a tile-space bound: the launcher reads it
// from the multi-device views it passes; the tile loop from the hidden
// device_count parameter.
// CHECK: tiles = [{device_count = true}, {axis = 1 : i64, divisor = 1 : i64, param = 0 : i64}]
// CHECK-LABEL: llvm.func @device_count_bound
// CHECK-SAME: %[[ME:[^:]*]]: i32, %[[W:[^:]*]]: i32)
// CHECK: arith.index_cast %[[W]] : i32 to index
tile.kernel @device_count_bound(%A: !tile.gl<?x?xf32, devices = 4>) launch(warpgroups = 1) {
  %world = tile.device_count
  %cols = tile.dim %A[1] : !tile.gl<?x?xf32, devices = 4>
  tile.foreach_tile (%d, %c) in (%world, %cols) {
    "test.use"(%d, %c) : (index, index) -> ()
  }
}

// -----

// TMA loads from a multi-device view: the map of the device the load names
// (a peer's memory through NVLink), else the launch's own.
// CHECK-LABEL: llvm.func @peer_load
// CHECK-SAME: %[[ME:[^:]*]]: i32, %[[W:[^:]*]]: i32, %[[M0:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[M1:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK: %[[D:.*]] = arith.index_cast %[[W]] : i32 to index
// CHECK: %[[D32:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK: %[[IS:.*]] = arith.cmpi eq, %[[D32]], %{{.*}} : i32
// CHECK: %[[MAP:.*]] = arith.select %[[IS]], %[[M1]], %[[M0]] : !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]]
// CHECK: %[[OWN:.*]] = arith.index_cast %[[ME]] : i32 to index
// CHECK: %[[OWN32:.*]] = arith.index_cast %[[OWN]] : index to i32
// CHECK: %[[ISOWN:.*]] = arith.cmpi eq, %[[OWN32]], %{{.*}} : i32
// CHECK: %[[OWNMAP:.*]] = arith.select %[[ISOWN]], %[[M1]], %[[M0]] : !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[OWNMAP]]
tile.kernel @peer_load(%A: !tile.gl<?x?xbf16, devices = 2>, %i: index) launch(warpgroups = 1) {
  %s = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  %sem = tile.alloc : !tile.sem
  %d = tile.device_count
  tile.load_async %A[%i, %i] device %d -> %s, %sem : !tile.gl<?x?xbf16, devices = 2>, !tile.st<128x64xbf16, #tile.swizzle<128>>
  tile.load_async %A[%i, %i] -> %s, %sem : !tile.gl<?x?xbf16, devices = 2>, !tile.st<128x64xbf16, #tile.swizzle<128>>
}

// -----

// Register tiles stored into device %d's copy: its pointer picked by a
// select on %d; an add-reduce store adds each element atomically (relaxed,
// at system scope, so that adds from several devices are atomic against
// each other: inline PTX, since LLVM's atomicrmw comes out at GPU scope;
// the signal that publishes them orders them). A wait on device %d's
// counter polls that device's copy.
// CHECK-LABEL: llvm.func @register_tiles_to_peer
// CHECK-SAME: (%[[C0:[^:]*]]: !llvm.ptr<1>, %[[C1:[^:]*]]: !llvm.ptr<1>, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %[[F0:[^:]*]]: !llvm.ptr<1>, %[[F1:[^:]*]]: !llvm.ptr<1>, %{{[^:]*}}: i64, %[[DARG:[^:]*]]: i64, %{{[^:]*}}: i64, %[[V:[^:]*]]: i32,
// CHECK: %[[D:.*]] = arith.index_cast %[[DARG]] : i64 to index
// CHECK: %[[D32:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[D32]], %{{.*}} : i32
// CHECK: %[[PEER:.*]] = arith.select %[[IS1]], %[[C1]], %[[C0]] : !llvm.ptr<1>
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[PEER]]
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "red.relaxed.sys.global.add.f32 [$0], $1;", "l,f" %[[AT]], %{{.*}} : (!llvm.ptr<1>, f32) -> ()
// CHECK: %[[D32B:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK: %[[IS1B:.*]] = arith.cmpi eq, %[[D32B]], %{{.*}} : i32
// CHECK: %[[PEERB:.*]] = arith.select %[[IS1B]], %[[C1]], %[[C0]] : !llvm.ptr<1>
// CHECK: %[[ATB:.*]] = llvm.getelementptr %[[PEERB]]
// CHECK-NEXT: llvm.store %{{.*}}, %[[ATB]] : f32, !llvm.ptr<1>
// CHECK: %[[D32C:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK: %[[IS1C:.*]] = arith.cmpi eq, %[[D32C]], %{{.*}} : i32
// CHECK: %[[PF:.*]] = arith.select %[[IS1C]], %[[F1]], %[[F0]] : !llvm.ptr<1>
// CHECK: %[[PA:.*]] = llvm.getelementptr %[[PF]]
// CHECK-NEXT: ld.acquire.sys.global.b32 v, [$0];{{.*}}%[[PA]], %[[V]]
tile.kernel @register_tiles_to_peer(%C: !tile.gl<?x?xf32, devices = 2>, %F: !tile.gl<?xi32, devices = 2>, %d: index, %i: index, %v: i32) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %r = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  tile.store %r, %C[%c0, %c0] device %d reduce add : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>, !tile.gl<?x?xf32, devices = 2>
  tile.store %r, %C[%c0, %c0] device %d : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>, !tile.gl<?x?xf32, devices = 2>
  tile.signal_wait %F[%i], %v device %d at_least : !tile.gl<?xi32, devices = 2>
}
