// The Based program through the default pipeline: TMA ring and producer
// warpgroup; wgmma for the scores (k16), P V and the states (value columns
// split in 32s: n32), the normaliser's ones (n16) and q ⊗ q from registers
// (k256); `tile.outer` as indexed shuffles inside each warp. ptxas accepts
// it (ptxas.mlir).
// RUN: rm -rf %t && tk-opt %kernels/linear_attention/based.mlir -tile-to-nvidia="out=%t cubin=false bind=6=false" -o /dev/null
// RUN: FileCheck %s < %t/based.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/based.json
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// CHECK-DAG: shfl.sync.idx.b32
// MANIFEST: "value": false
// MANIFEST: "threads": 384
