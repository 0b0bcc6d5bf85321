// Head dim 64 with 128-query tiles (attention() takes it for short causal
// calls): a producer and two consumer warpgroups (384 threads, 24 / 240
// registers). Unlike the 192-query program, the consumers' 240 registers
// fit tile-overlap-mma's rotated loop (S 64 + O 32 + P 32 + 40 = 168), so
// Q Kᵀ of a step is issued with the previous step's P V (wait_group 1).
// O leaves through shared memory and a TMA store.
// RUN: rm -rf %t && tk-opt %kernels/alternatives/attention_naive_d64_q128.mlir -tile-to-nvidia="out=%t cubin=false producer-registers=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t/attention_naive_d64_q128.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/attention_naive_d64_q128.json

// REMARK-NOT: MMAs not overlapped

// CHECK: .entry attention_naive_d64_q128
// CHECK: .maxntid 384, 1, 1
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 240
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-DAG: wgmma.wait_group.sync.aligned 1;
// CHECK-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group

// MANIFEST: "grid_policy": "persistent",
// MANIFEST: "threads": 384,
