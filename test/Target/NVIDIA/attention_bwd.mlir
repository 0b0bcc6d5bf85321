// Attention backward through -tile-to-nvidia's passes. dQ: per 128-query
// tile, Q and dO loaded once, K and V through a ring, P recomputed from the
// log-sum-exp (a row vector loaded from global memory), dQ += dS K. dK/dV:
// per 128-key tile, Q and dO through a ring of 64-query tiles, scores kept
// transposed so the log-sum-exp and Δ are column vectors that every
// consumer warpgroup loads whole, the causal mask in its transposed form.
// RUN: rm -rf %t && tk-opt %kernels/attention_bwd_dq.mlir -tile-to-nvidia="out=%t cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=DQ < %t/attention_bwd_dq.ptx
// RUN: tk-opt %kernels/attention_bwd_dkv.mlir -tile-pipeline -tile-warp-specialize -tile-assign-layouts 2>/dev/null | FileCheck %s --check-prefix=DKV-IR
// RUN: rm -rf %t.kv && tk-opt %kernels/attention_bwd_dkv.mlir -tile-to-nvidia="out=%t.kv cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=DKV < %t.kv/attention_bwd_dkv.ptx
// RUN: rm -rf %t.d64 && tk-opt %kernels/attention_bwd_dkv_d64.mlir -tile-to-nvidia="out=%t.d64 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=D64 < %t.d64/attention_bwd_dkv_d64.ptx
// RUN: rm -rf %t.q64 && tk-opt %kernels/attention_bwd_dq_d64.mlir -tile-to-nvidia="out=%t.q64 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=Q64 < %t.q64/attention_bwd_dq_d64.ptx

// DQ: .entry attention_bwd_dq
// DQ-DAG: setmaxnreg.inc.sync.aligned.u32 240
// DQ-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// DQ-DAG: ld.global.b32
// DQ-DAG: ex2.approx

// DKV-IR-LABEL: tile.kernel @attention_bwd_dkv
// DKV-IR: consumer(warpgroups = 2, registers = 232)
// DKV-IR: tile.load {{.*}} -> !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
// DKV-IR: tile.causal_mask {{.*}} transposed fill neg_inf : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>

// DKV: .entry attention_bwd_dkv
// DKV-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// DKV-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// DKV-DAG: ld.global.b32

// Head dim 64: the same programs with 64-column tiles.
// D64: .entry attention_bwd_dkv_d64
// D64: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// Q64: .entry attention_bwd_dq_d64
// Q64-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// Q64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
