// The decayed linear-attention program through the default pipeline: TMA
// ring and producer warpgroup, wgmma m64n64k16 (scores from shared Q and K,
// P V and the state update from shared memory), the running sum of the log
// decays and the chunk's total (shuffles and an exchange between the
// warpgroup's warps), the cumulative decays as a row and as a column
// vector (a conversion through shared memory), the scalar chunk decay on
// the special-function unit (math.exp), and the final state's stores.
// ptxas accepts it (ptxas.mlir).
// RUN: rm -rf %t && tk-opt %kernels/linear_attention/linear_attention_decay.mlir -tile-to-nvidia="out=%t cubin=false bind=8=true" -o /dev/null
// RUN: FileCheck %s < %t/linear_attention_decay.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/linear_attention_decay.json
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-DAG: shfl.sync.idx.b32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: st.global.b32
// MANIFEST: "threads": 384
