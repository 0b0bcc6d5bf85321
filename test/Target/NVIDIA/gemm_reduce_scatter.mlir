// GEMM + reduce-scatter through the default pipeline: the GEMM's TMA ring
// and producer warpgroup, each tile added into its owner's copy of C by a
// TMA reduce store (the owner's tensor map picked by device), and the
// start and end handshakes at system scope: the end's adds wait for the
// reduce stores to be written first. ptxas accepts it (ptxas.mlir).
// RUN: rm -rf %t && tk-opt %kernels/multi_gpu/gemm_reduce_scatter.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/gemm_reduce_scatter.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gemm_reduce_scatter.json
// RUN: FileCheck %s --check-prefix=ORDER < %t/gemm_reduce_scatter.ptx
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// CHECK-DAG: red.release.sys.global.add.s32
// CHECK-DAG: ld.acquire.sys.global.b32
// CHECK-DAG: fence.proxy.async.global;
// CHECK-DAG: cp.async.bulk.wait_group 0;
// A signal publishes the stores before it, in this order: the warpgroup's
// TMA stores written (not only read), fenced to the generic proxy, the
// role's barrier, then the system-scope release add. Both at the start
// (the announcements) and at the end (the barrier after the reduce stores).
// ORDER: cp.async.bulk.wait_group 0;
// ORDER-NEXT: // begin inline asm
// ORDER-NEXT: fence.proxy.async.global;
// ORDER: bar.sync
// ORDER: red.release.sys.global.add.s32
// ORDER: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// ORDER: cp.async.bulk.wait_group 0;
// ORDER-NEXT: // begin inline asm
// ORDER-NEXT: fence.proxy.async.global;
// ORDER: bar.sync
// ORDER: red.release.sys.global.add.s32
// MANIFEST: "kind": "device_id"
// MANIFEST-NEXT: }
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "kind": "device_count"
// MANIFEST: "device": 7,
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "kind": "tensor_map",
// MANIFEST: "grid_policy": "persistent"
// MANIFEST: "devices": 8,
// MANIFEST: "product": [
