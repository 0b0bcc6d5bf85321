// The Mamba2 SSD programs through -tile-to-amdgpu, compiled, not run (no
// AMD GPU here): C Bᵀ, the decayed scores times X, C S and the state update
// (Aᵀ read from LDS) as MFMAs, the chunk copies (X, B, C and the dt rows,
// shared vectors: one 16-byte buffer load per run) into LDS, the chunk's
// scans and total as ds_bpermute and LDS exchanges, exp on v_exp_f32, the
// initial state and the z gate loaded from global memory element by
// element. State dim 64 on gfx942 and gfx950; state dim 128 on gfx950 only:
// its 66192 bytes of LDS exceed gfx942's 64 KiB (last RUN line).
// `blocks_per_sm` is an NVIDIA setting that AMD targets ignore.
// RUN: rm -rf %t && tk-opt %kernels/ssm/mamba2_ssd.mlir -tile-to-amdgpu="chip=gfx942 out=%t/942 bind=12=false,13=false" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA942 < %t/942/mamba2_ssd.s
// RUN: %python %S/check_code_object.py %t/942 mamba2_ssd gfx942 | FileCheck %s --check-prefix=OBJ942
// RUN: tk-opt %kernels/ssm/mamba2_ssd.mlir -tile-to-amdgpu="chip=gfx950 out=%t/950 bind=12=true,13=true" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA950 < %t/950/mamba2_ssd.s
// RUN: %python %S/check_code_object.py %t/950 mamba2_ssd gfx950 | FileCheck %s --check-prefix=OBJ950
// RUN: tk-opt %kernels/ssm/mamba2_ssd_n128.mlir -tile-to-amdgpu="chip=gfx950 out=%t/n128 bind=12=true,13=true" -o /dev/null 2>/dev/null
// RUN: %python %S/check_code_object.py %t/n128 mamba2_ssd_n128 gfx950 | FileCheck %s --check-prefix=OBJ128
// RUN: not tk-opt %kernels/ssm/mamba2_ssd_n128.mlir -tile-to-amdgpu="chip=gfx942 out=%t/n128_942" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LDS942

// ISA942-LABEL: mamba2_ssd:
// ISA942-DAG: v_mfma_f32_16x16x16_bf16
// ISA942-DAG: buffer_load_dwordx4
// ISA942-DAG: ds_bpermute_b32
// ISA942-DAG: s_barrier
// ISA942-DAG: v_exp_f32
// OBJ942: OK mamba2_ssd gfx942: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, {{[0-9]+}} LDS bytes, {{[0-9]+}} MFMAs

// ISA950-LABEL: mamba2_ssd:
// ISA950-DAG: v_mfma_f32_16x16x32_bf16
// ISA950-DAG: buffer_load_dwordx4
// ISA950-DAG: v_exp_f32
// OBJ950: OK mamba2_ssd gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, {{[0-9]+}} LDS bytes, {{[0-9]+}} MFMAs
// OBJ128: OK mamba2_ssd_n128 gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, {{[0-9]+}} LDS bytes, {{[0-9]+}} MFMAs
// LDS942: error: 'tile.kernel' op needs 66192 bytes of LDS with the 32 bytes its exchanges between warps use; gfx942 has 65536
