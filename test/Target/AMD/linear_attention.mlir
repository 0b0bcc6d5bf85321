// The elu + 1 linear-attention program (head dim 64, one warpgroup)
// through -tile-to-amdgpu, compiled, not run (no AMD GPU here): Q Kᵀ, P V,
// φQ S, the normaliser's MMAs and the state updates (Aᵀ read from LDS) as
// MFMAs over four 16-row wave bands, the chunk copies as buffer loads into
// LDS, the row maxima and the accumulator-to-A conversion as ds_bpermute
// exchanges, the state and φK stored to LDS between workgroup barriers.
// 45056 bytes of LDS fit gfx942's 64 KiB. Compiled for the [batch, seq,
// heads, dim] layout (bshd = true) on gfx942, for both on gfx950 (the bshd
// variant's 106 SGPRs are 100 numbered ones and the 6 gfx9 reserves for
// VCC, FLAT_SCRATCH and XNACK_MASK, within the 102 + 6 a wave holds).
// RUN: rm -rf %t && tk-opt %kernels/linear_attention/linear_attention.mlir -tile-to-amdgpu="chip=gfx942 out=%t bind=6=true" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA942 < %t/linear_attention.s
// RUN: %python %S/check_code_object.py %t linear_attention gfx942 --no-spills | FileCheck %s --check-prefix=OBJ942
// RUN: tk-opt %kernels/linear_attention/linear_attention.mlir -tile-to-amdgpu="chip=gfx950 out=%t/950 bind=6=false" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA950 < %t/950/linear_attention.s
// RUN: %python %S/check_code_object.py %t/950 linear_attention gfx950 --no-spills | FileCheck %s --check-prefix=OBJ950

// ISA942-LABEL: linear_attention:
// ISA942-DAG: v_mfma_f32_16x16x16_bf16
// ISA942-DAG: ds_bpermute_b32
// ISA942-DAG: buffer_load_dwordx4
// ISA942-DAG: s_barrier
// ISA942-DAG: v_exp_f32
// OBJ942: OK linear_attention gfx942: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 45056 LDS bytes, 72 MFMAs, 0 scratch bytes

// ISA950-LABEL: linear_attention:
// ISA950-DAG: v_mfma_f32_16x16x32_bf16
// ISA950-DAG: ds_bpermute_b32
// OBJ950: OK linear_attention gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 45056 LDS bytes, 36 MFMAs, 0 scratch bytes

// RUN: tk-opt %kernels/linear_attention/linear_attention.mlir -tile-to-amdgpu="chip=gfx950 out=%t/950b bind=6=true" -o /dev/null 2>/dev/null
// RUN: %python %S/check_code_object.py %t/950b linear_attention gfx950 | FileCheck %s --check-prefix=SGPRS
// SGPRS: OK linear_attention gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, 106 SGPRs

// Head dim 128 (two warpgroups splitting the value columns; their
// warpgroup barriers are the workgroup's, as every warpgroup runs them
// alike): gfx950 only, its 122 KiB of LDS exceed gfx942's 64 KiB.
// RUN: tk-opt %kernels/linear_attention/linear_attention_d128.mlir -tile-to-amdgpu="chip=gfx950 out=%t/d128" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA128 < %t/d128/linear_attention_d128.s
// RUN: %python %S/check_code_object.py %t/d128 linear_attention_d128 gfx950 | FileCheck %s --check-prefix=OBJ128
// RUN: not tk-opt %kernels/linear_attention/linear_attention_d128.mlir -tile-to-amdgpu="chip=gfx942 out=%t/d128_942" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LDS942
// ISA128-LABEL: linear_attention_d128:
// ISA128-DAG: v_mfma_f32_16x16x32_bf16
// ISA128-DAG: s_barrier
// OBJ128: OK linear_attention_d128 gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 124928 LDS bytes, 64 MFMAs, {{[0-9]+}} scratch bytes
// LDS942: error: 'tile.kernel' op needs 124928 bytes of LDS; gfx942 has 65536

// The decayed program (head dim 128, two warpgroups) on gfx950; its 97 KiB
// of LDS exceed gfx942's 64 KiB.
// RUN: tk-opt %kernels/linear_attention/linear_attention_decay.mlir -tile-to-amdgpu="chip=gfx950 out=%t/decay bind=8=true" -o /dev/null 2>/dev/null
// RUN: %python %S/check_code_object.py %t/decay linear_attention_decay gfx950 | FileCheck %s --check-prefix=DECAY
// DECAY: OK linear_attention_decay gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 99328 LDS bytes, {{[0-9]+}} MFMAs
