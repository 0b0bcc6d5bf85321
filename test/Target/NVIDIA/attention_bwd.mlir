// Attention backward through -tile-to-nvidia's passes. dQ: per 128-query
// tile, Q and dO loaded once, K and V through a ring, P recomputed from the
// log-sum-exp (a row vector loaded from global memory), dQ += dS K. dK/dV:
// per 128-key tile, Q and dO through a ring of 64-query tiles, scores kept
// transposed so the log-sum-exp and Δ are column vectors that every
// consumer warpgroup reads whole from shared vectors the producer fills with
// TMA alongside Q and dO (no global loads in the consumers' loop), the
// causal mask in its transposed form.
// RUN: rm -rf %t && tk-opt %kernels/attention/attention_bwd_dq.mlir -tile-to-nvidia="out=%t cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=DQ < %t/attention_bwd_dq.ptx
// RUN: tk-opt %kernels/attention/attention_bwd_dkv.mlir -tile-pipeline -tile-warp-specialize -tile-assign-layouts 2>/dev/null | FileCheck %s --check-prefix=DKV-IR
// RUN: rm -rf %t.kv && tk-opt %kernels/attention/attention_bwd_dkv.mlir -tile-to-nvidia="out=%t.kv cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=DKV --implicit-check-not=ld.global < %t.kv/attention_bwd_dkv.ptx
// RUN: rm -rf %t.d64 && tk-opt %kernels/attention/attention_bwd_dkv_d64.mlir -tile-to-nvidia="out=%t.d64 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=D64 < %t.d64/attention_bwd_dkv_d64.ptx
// RUN: rm -rf %t.q64 && tk-opt %kernels/attention/attention_bwd_dq_d64.mlir -tile-to-nvidia="out=%t.q64 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=Q64 < %t.q64/attention_bwd_dq_d64.ptx

// The fused backward (attention_bwd.mlir): one kernel per 128-key tile;
// dSᵀ goes to shared memory (two buffers), the consumers meet on their own
// named barrier (15, 256 threads), each multiplies dS by its 64 columns of
// K and add-reduces its part of dQ into the accumulator, a view in fragment
// order: eight 16-byte shared stores per thread and one 16 KiB bulk
// reduction per warpgroup.
// RUN: rm -rf %t.f && tk-opt %kernels/attention/attention_bwd.mlir -tile-to-nvidia="out=%t.f cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=FUSED --implicit-check-not=ld.global < %t.f/attention_bwd.ptx
// RUN: FileCheck %s --check-prefix=FUSED-SDP < %t.f/attention_bwd.ptx
// RUN: tk-opt %kernels/attention/attention_bwd.mlir -tile-pipeline -tile-warp-specialize -tile-assign-layouts 2>/dev/null | FileCheck %s --check-prefix=FUSED-IR
// RUN: rm -rf %t.c && tk-opt %kernels/attention/attention_bwd.mlir -tile-to-nvidia="out=%t.c cubin=false producer-registers=24 mma-split=contraction stages=2" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=CONTRACTION < %t.c/attention_bwd.ptx
// RUN: rm -rf %t.f6 && tk-opt %kernels/attention/attention_bwd_d64.mlir -tile-to-nvidia="out=%t.f6 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=FUSED64 < %t.f6/attention_bwd_d64.ptx
// RUN: tk-opt %kernels/attention/attention_bwd_d64.mlir -tile-pipeline -tile-warp-specialize -tile-assign-layouts 2>/dev/null | FileCheck %s --check-prefix=FUSED64-IR

// FUSED: .entry attention_bwd
// FUSED-DAG: setmaxnreg.inc.sync.aligned.u32 240
// FUSED-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// FUSED-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// FUSED-DAG: bar.sync 15, 256
// FUSED-DAG: fence.proxy.async.shared::cta
// FUSED-DAG: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd{{[0-9]+}}], [%r{{[0-9]+}}], 16384;
// FUSED-DAG: st.shared.v4.b32
// FUSED-DAG: cp.async.bulk.wait_group.read 0
// FUSED-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// FUSED-DAG: ld.shared.b32

// Sᵀ and dPᵀ (eight m64n64k16 each) are two commit groups; the softmax
// waits for the first only.
// FUSED-SDP: wgmma.fence.sync.aligned
// FUSED-SDP-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// FUSED-SDP: wgmma.commit_group.sync.aligned;
// FUSED-SDP-NOT: wgmma.wait_group
// FUSED-SDP-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// FUSED-SDP: wgmma.commit_group.sync.aligned;
// FUSED-SDP-NEXT: wgmma.wait_group.sync.aligned 1;
// FUSED-SDP-NOT: wgmma.mma_async
// FUSED-SDP: ex2.approx.ftz.f32
// FUSED-SDP-NOT: wgmma.mma_async
// FUSED-SDP: wgmma.wait_group.sync.aligned 0;

// FUSED-IR-LABEL: tile.kernel @attention_bwd
// FUSED-IR: tile.alloc : !tile.st<2x128x64xbf16, #tile.swizzle<128>>
// FUSED-IR: tile.alloc : !tile.sv<2x4096xf32>
// FUSED-IR: consumer(warpgroups = 2, registers = 232)
// dV is queued before the consumer barrier, dQ and dK after it; the wait
// for dQ leaves dK in flight while dQ goes out, the last wait follows.
// FUSED-IR: tile.mma_async AB {{.*}} -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// FUSED-IR-NEXT: tile.barrier block
// FUSED-IR: tile.mma_async AtB {{.*}} : !tile.st<128x64xbf16, #tile.swizzle<128>>, !tile.st<128x64xbf16, #tile.swizzle<128>> -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
// FUSED-IR: tile.mma_async AB {{.*}} -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
// FUSED-IR-NEXT: tile.mma_wait 1
// FUSED-IR: tile.store {{.*}} : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>, !tile.sv<4096xf32>
// FUSED-IR-NEXT: tile.store_async {{.*}} reduce add : !tile.sv<4096xf32>, !tile.gl<?x?x?x128xf32, fragments>
// FUSED-IR-NEXT: tile.mma_wait 0

// With mma-split=contraction each consumer reduces its own 64 keys' part
// (a 64x128 product) and no shared data crosses warpgroups: no consumer
// barrier, one 32 KiB bulk reduction per part.
// CONTRACTION: .entry attention_bwd
// CONTRACTION-NOT: bar.sync 15
// CONTRACTION: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 {{.*}}, 32768;
// CONTRACTION-NOT: cp.reduce.async.bulk

// Head dim 64 steps over 128 queries: Sᵀ and dPᵀ (m64n128 per warpgroup,
// k = 64, both operands in shared memory) are queued together and the
// softmax waits for Sᵀ only; dV is queued before the consumers' barrier
// (dSᵀ is read by both warpgroups' dQ rows), dQ (m64n64, k = 128) and dK
// after it; the reducing store (a 64x64 part per warpgroup) goes out
// before the last wait, under dK.
// FUSED64: .entry attention_bwd_d64
// FUSED64-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// FUSED64: wgmma.commit_group.sync.aligned;
// FUSED64-NEXT: wgmma.wait_group.sync.aligned 1;
// FUSED64-NOT: wgmma.mma_async
// FUSED64: wgmma.wait_group.sync.aligned 0;
// FUSED64: fence.proxy.async.shared::cta
// FUSED64-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// FUSED64: bar.sync 15, 256;
// FUSED64-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// FUSED64: wgmma.wait_group.sync.aligned 1;
// FUSED64-COUNT-8: st.shared.v4.b32
// FUSED64: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 {{.*}}, 16384;
// FUSED64: wgmma.wait_group.sync.aligned 0;
// Two Q/dO stages (the loop's tile.stages) and two dSᵀ buffers.
// FUSED64-IR-LABEL: tile.kernel @attention_bwd_d64
// FUSED64-IR: tile.alloc : !tile.st<2x128x64xbf16, #tile.swizzle<128>>
// FUSED64-IR: tile.alloc : !tile.st<2x128x64xbf16, #tile.swizzle<128>>
// FUSED64-IR: tile.alloc : !tile.st<2x128x128xbf16, #tile.swizzle<128>>
// FUSED64-IR: tile.alloc : !tile.sv<2x4096xf32>

// DQ: .entry attention_bwd_dq
// DQ-DAG: setmaxnreg.inc.sync.aligned.u32 240
// DQ-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// DQ-DAG: ld.global.b32
// DQ-DAG: ex2.approx

// DKV-IR-LABEL: tile.kernel @attention_bwd_dkv
// DKV-IR: tile.sem_expect {{.*}} : !tile.st<64x128xbf16, #tile.swizzle<128>>, !tile.st<64x128xbf16, #tile.swizzle<128>>, !tile.sv<64xf32>, !tile.sv<64xf32>
// DKV-IR: tile.load_async {{.*}} : !tile.gl<?x?x?xf32>, !tile.sv<64xf32>
// DKV-IR: tile.load_async {{.*}} : !tile.gl<?x?x?xf32>, !tile.sv<64xf32>
// DKV-IR: consumer(warpgroups = 2, registers = 232)
// DKV-IR: tile.load {{.*}} : !tile.sv<64xf32> -> !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
// DKV-IR: tile.causal_mask {{.*}} transposed fill neg_inf : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>

// DKV: .entry attention_bwd_dkv
// DKV-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// DKV-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// DKV-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// DKV-DAG: ld.shared.b32

// Head dim 64: the same programs with 64-column tiles; dK/dV steps over
// 128 queries, so Sᵀ and dPᵀ are m64n128 and dV, dK m64n64 (k = 128).
// D64: .entry attention_bwd_dkv_d64
// D64-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// D64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// D64-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// Q64: .entry attention_bwd_dq_d64
// Q64-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// Q64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
