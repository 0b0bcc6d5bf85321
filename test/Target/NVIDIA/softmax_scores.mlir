// Row softmax on the wgmma accumulator: shuffles within the quad, exp2 on
// the special-function unit, no shared-memory round trip for the statistics.
// RUN: rm -rf %t && tk-opt %kernels/alternatives/softmax_scores.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/softmax_scores.ptx
// CHECK: .entry softmax_scores
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-NOT: st.shared.f32
