// The bundled GEMMs compile through the whole NVIDIA pipeline to PTX that
// uses the instructions that make them fast, with a manifest for launching.
// RUN: rm -rf %t && tk-opt %kernels/gemm/gemm.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gemm.json
// RUN: rm -rf %t.abt && tk-opt %kernels/gemm/gemm_abt.mlir -tile-to-nvidia="out=%t.abt cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.abt/gemm_abt.ptx

// PTX: .target sm_90a
// PTX: .entry gemm
// PTX: .maxntid 384, 1, 1
// PTX: .minnctapersm 1
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG: mbarrier.try_wait.parity.shared::cta.b64
// PTX-DAG: wgmma.fence.sync.aligned
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-DAG: wgmma.wait_group.sync.aligned 0
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-DAG: cp.async.bulk.wait_group.read 0
// PTX-DAG: fence.proxy.async.shared::cta
// PTX-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16

// Keys are sorted. Parameters: A, B, C as pointer + dims; then one TMA
// descriptor per (view, box, swizzle): A 128x64, B 64x64 blocks, C 64x64.
// MANIFEST: "format": "tk-mlir-manifest-1"
// MANIFEST: "gemm": {
// MANIFEST: "kind": "view_ptr",
// MANIFEST: "axis": 1,
// MANIFEST-NEXT: "kind": "view_dim",
// MANIFEST: "box": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "kind": "tensor_map",
// MANIFEST-NEXT: "param": 0,
// MANIFEST-NEXT: "swizzle": 128
// MANIFEST: "param": 1,
// MANIFEST: "param": 2,
// MANIFEST: "cluster": [
// MANIFEST: "grid_policy": "persistent",
// MANIFEST: "shape": [
// MANIFEST-NEXT: -1,
// MANIFEST-NEXT: -1
// MANIFEST: "shared_memory_bytes": 214064,
// MANIFEST-NEXT: "target": "sm_90a",
// MANIFEST-NEXT: "threads": 384,
// MANIFEST-NEXT: "tiles": [
// MANIFEST: "divisor": 128,
// MANIFEST: "divisor": 256,
// MANIFEST: "ptx": "gemm.ptx"
