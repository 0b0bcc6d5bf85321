// The ping-pong GEMM: per-warpgroup 64x256 tiles with one wgmma group in
// flight (wait_group 1), ordering semaphores between the consumers, a
// 4-stage ring and per-warpgroup TMA stores.
// RUN: rm -rf %t && tk-opt %kernels/alternatives/gemm_pingpong.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/gemm_pingpong.ptx

// CHECK: .entry gemm_pingpong
// CHECK: .maxntid 384, 1, 1
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: wgmma.wait_group.sync.aligned 1
// CHECK-DAG: wgmma.wait_group.sync.aligned 0
// CHECK-DAG: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
