// The Based program through -tile-to-amdgpu, compiled, not run (no AMD GPU
// here). gfx950: the scores, P V, the states, M and the output products as
// MFMAs (tile.mma_async is tile.mma there: an MFMA's result is ready when
// read), the outer products' gathers as ds_bpermute exchanges, the chunk
// copies as buffer loads into LDS; 77824 bytes of LDS within gfx950's
// 160 KiB, no scratch (six SGPRs spill to VGPR lanes). gfx942's 64 KiB of
// LDS do not hold the k ⊗ k / q ⊗ q buffer with the states: the compiler
// says so.
// RUN: rm -rf %t && tk-opt %kernels/linear_attention/based.mlir -tile-to-amdgpu="chip=gfx950 out=%t bind=4=true" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA950 < %t/based.s
// RUN: %python %S/check_code_object.py %t based gfx950 | FileCheck %s --check-prefix=OBJ950
// RUN: tk-opt %kernels/linear_attention/based.mlir -tile-to-amdgpu="chip=gfx950 out=%t/plain bind=4=false" -o /dev/null 2>/dev/null
// RUN: %python %S/check_code_object.py %t/plain based gfx950 | FileCheck %s --check-prefix=PLAIN950
// RUN: not tk-opt %kernels/linear_attention/based.mlir -tile-to-amdgpu="chip=gfx942 out=%t/942 bind=4=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LDS942

// ISA950-LABEL: based:
// ISA950-DAG: v_mfma_f32_16x16x32_bf16
// ISA950-DAG: ds_bpermute_b32
// ISA950-DAG: buffer_load_dwordx4
// ISA950-DAG: s_barrier
// ISA950-DAG: v_rcp_f32
// OBJ950: OK based gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 77824 LDS bytes, 52 MFMAs, 0 scratch bytes
// PLAIN950: OK based gfx950: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, {{[0-9]+}} LDS bytes, {{[0-9]+}} MFMAs, 0 scratch bytes
// LDS942: error: 'tile.kernel' op needs 77824 bytes of LDS; gfx942 has 65536
