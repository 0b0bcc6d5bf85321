// The naive attention program (head dim 128, the one -tile-to-nvidia
// compiles for H100) for gfx950 through -tile-to-amdgpu: S = Q Kᵀ and O +=
// P V as 16x16x32 MFMAs over 8 waves of 16 query rows (row bands, so the
// softmax's row max and sum stay inside a wave: ds_bpermute exchanges),
// exp2 on v_exp_f32, P moved from the accumulator to the A fragment
// through LDS. Q, K and V (96 KiB) plus that scratch (32 KiB) need gfx950's
// 160 KiB of LDS: gfx942's 64 KiB cannot hold them, and says so.
// RUN: rm -rf %t && tk-opt %kernels/attention_naive.mlir -tile-to-amdgpu="chip=gfx950 out=%t" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA < %t/attention_naive.s
// RUN: %python %S/check_code_object.py %t attention_naive gfx950 | FileCheck %s --check-prefix=OBJ
// RUN: not tk-opt %kernels/attention_naive.mlir -tile-to-amdgpu="chip=gfx942 out=%t/942" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LDS942

// ISA-LABEL: attention_naive:
// ISA-DAG: v_mfma_f32_16x16x32_bf16
// ISA-DAG: v_exp_f32
// ISA-DAG: ds_bpermute_b32
// ISA-DAG: buffer_load_dwordx4
// ISA-DAG: s_barrier

// OBJ: OK attention_naive gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 131072 LDS bytes, 64 MFMAs, {{[0-9]+}} scratch bytes

// LDS942: error: 'tile.kernel' op allocates 98304 bytes of shared memory; gfx942 allows at most 65536
