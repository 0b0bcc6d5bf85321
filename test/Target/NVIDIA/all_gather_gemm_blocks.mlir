// All-gather + GEMM with grid-level roles through the default pipeline:
// the communicating blocks' peer TMA loads of A's chunks (the tensor map of
// the peer's copy) and local TMA stores, their system-scope chunk
// announcements and barriers; the computing blocks' 3-d and 2-d TMA loads
// and system-scope polls. The manifest asks for 16 communicating blocks.
// ptxas accepts it (ptxas.mlir).
// RUN: rm -rf %t && tk-opt %kernels/alternatives/all_gather_gemm_blocks.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/all_gather_gemm_blocks.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/all_gather_gemm_blocks.json
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: red.release.sys.global.add.s32
// CHECK-DAG: ld.acquire.sys.global.b32
// CHECK-DAG: fence.proxy.async.global;
// MANIFEST: "box": [
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "device": 0,
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "kind": "tensor_map",
// MANIFEST: "communication_blocks": 16,
// MANIFEST: "grid_policy": "persistent"
