// All-gather + GEMM through the default pipeline: A's tiles loaded by 2-d
// TMA through the tensor map of the tile's shard (one per device copy of
// the multi-device view, chosen by the shard index), B's by 2-d TMA, C
// stored into its [world, R, N] view by 3-d TMA stores; the shard's arrival
// polled with a device-scope acquire by the producer and, for a tile with
// no k-steps, by the consumers. The tile space folds shards and rows into
// one bound (a product the launcher reads). ptxas accepts it (ptxas.mlir).
// RUN: rm -rf %t && tk-opt %kernels/multi_gpu/all_gather_gemm.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/all_gather_gemm.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/all_gather_gemm.json
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: ld.acquire.gpu.global.b32
// CHECK-NOT: ld.acquire.sys
// MANIFEST: "kind": "device_id"
// MANIFEST: "kind": "device_count"
// MANIFEST-COUNT-8: "device":
// MANIFEST: "grid_policy": "persistent"
// MANIFEST: "devices": 8
// MANIFEST: "product": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "axis": 0,
// MANIFEST-NEXT: "divisor": 1,
// MANIFEST-NEXT: "param": 2
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "axis": 0,
// MANIFEST-NEXT: "divisor": 128,
// MANIFEST-NEXT: "param": 0
