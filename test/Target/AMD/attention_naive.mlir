// The naive attention programs (the ones -tile-to-nvidia compiles for H100)
// through -tile-to-amdgpu: S = Q Kᵀ and O += P V as MFMAs over waves of 16
// query rows (row bands, so the softmax's row max and sum stay inside a
// wave: ds_bpermute exchanges), exp2 on v_exp_f32, P moved from the
// accumulator to the A fragment by lane exchanges, K and V prefetched into
// registers during the MFMAs. Head dim 128 on gfx950 (8 waves, 16x16x32)
// and on gfx942 (16x16x16), where Q, K and V (96 KiB) exceed the 64 KiB of
// LDS: tile-pipeline keeps Q in registers (copied through K's buffer,
// loaded once), which leaves K and V's 64 KiB; head dim 64 on gfx942 (12
// waves; 96 MFMAs: the causal half step adds Q Kᵀ and P V over 64 keys).
// RUN: rm -rf %t && tk-opt %kernels/attention/attention_naive.mlir -tile-to-amdgpu="chip=gfx950 out=%t" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA < %t/attention_naive.s
// RUN: %python %S/check_code_object.py %t attention_naive gfx950 --no-spills | FileCheck %s --check-prefix=OBJ
// RUN: tk-opt %kernels/attention/attention_naive_d64.mlir -tile-to-amdgpu="chip=gfx942 out=%t/d64" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA64 < %t/d64/attention_naive_d64.s
// RUN: %python %S/check_code_object.py %t/d64 attention_naive_d64 gfx942 | FileCheck %s --check-prefix=OBJ64
// RUN: tk-opt %kernels/attention/attention_naive.mlir -tile-to-amdgpu="chip=gfx942 out=%t/942" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK942
// RUN: %python %S/check_code_object.py %t/942 attention_naive gfx942 | FileCheck %s --check-prefix=OBJ942

// ISA-LABEL: attention_naive:
// ISA-DAG: v_mfma_f32_16x16x32_bf16
// ISA-DAG: v_exp_f32
// ISA-DAG: ds_bpermute_b32
// ISA-DAG: buffer_load_dwordx4
// ISA-DAG: s_barrier

// OBJ: OK attention_naive gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 98304 LDS bytes, 64 MFMAs, 0 scratch bytes

// ISA64-LABEL: attention_naive_d64:
// ISA64-DAG: v_mfma_f32_16x16x16_bf16
// ISA64-DAG: ds_bpermute_b32
// ISA64-DAG: v_exp_f32

// OBJ64: OK attention_naive_d64 gfx942: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 57344 LDS bytes, 96 MFMAs, {{[0-9]+}} scratch bytes

// REMARK942: remark: the copied tile is kept in registers (the kernel's shared tiles exceed gfx942's 65536 bytes of LDS): it is copied through a buffer the loop refills and loaded once
// REMARK942: attention_naive.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: kernel 'attention_naive' spills: {{[0-9]+}} bytes of scratch per lane
// OBJ942: OK attention_naive gfx942: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 65536 LDS bytes, 128 MFMAs, {{[0-9]+}} scratch bytes
