// The attention forward program lowers end to end: online softmax on the
// wgmma accumulator (quad shuffles, ex2), P·V with P as the register A
// operand of wgmma, the log-sum-exp with lg2, and TMA for Q, K and V.
// RUN: rm -rf %t && tk-opt %kernels/alternatives/attention_fwd.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/attention_fwd.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/attention_fwd.json
// CHECK: .entry attention_fwd
// CHECK-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: lg2.approx.f32
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 240
// MANIFEST: "grid_policy": "tiles"
// MANIFEST: "tiles": [
// MANIFEST: "divisor": 128,
