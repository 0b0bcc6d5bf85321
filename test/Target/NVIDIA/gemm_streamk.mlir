// The stream-K GEMM: the same wgmma/TMA main loop as gemm.mlir; a split
// tile's later units add their partial sums into the f32 workspace (atomic
// f32 adds) and count their k-steps with a device-scope release add, after
// the consumers' named barrier; the unit with the first k-step polls the
// count with acquire, reads the workspace and stores C through TMA. The
// manifest lists the workspace (f32) and the counters (i32) as plain views.
// RUN: rm -rf %t && tk-opt %kernels/alternatives/gemm_streamk.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_streamk.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gemm_streamk.json

// PTX: .entry gemm_streamk
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-DAG: mbarrier.try_wait.parity.shared::cta.b64
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// PTX-DAG: ld.acquire.gpu.global.b32
// PTX-DAG: atom.global.add.f32
// PTX-DAG: bar.sync {{.*}}15, 256;
// PTX-DAG: red.release.gpu.global.add.s32
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// MANIFEST: "grid_policy": "persistent"
// MANIFEST: "dtype": "f32",
// MANIFEST-NEXT: "kind": "view",
// MANIFEST: "dtype": "i32",
// MANIFEST-NEXT: "kind": "view",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: -1
// MANIFEST-NEXT: ]
