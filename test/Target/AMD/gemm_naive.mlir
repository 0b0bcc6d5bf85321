// The naive GEMM program (the one -tile-to-nvidia compiles for H100), for
// both AMD chips through -tile-to-amdgpu: the ISA has the chip's MFMA,
// 16-byte buffer loads into LDS (A as 16-byte writes, B scattered into its
// transposed form), 8- or 16-byte LDS reads for the fragments and block
// barriers; the code object is an AMDGPU HSA shared object whose registers
// and LDS fit the chip, and the manifest states the launch.
// RUN: rm -rf %t && tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-amdgpu="chip=gfx942 out=%t/942" -o /dev/null
// RUN: FileCheck %s --check-prefixes=ISA,ISA942 < %t/942/gemm_naive.s
// RUN: %python %S/check_code_object.py %t/942 gemm_naive gfx942 --no-spills | FileCheck %s --check-prefix=OBJ942
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/942/gemm_naive.json
// RUN: tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-amdgpu="chip=gfx950 out=%t/950" -o /dev/null
// RUN: FileCheck %s --check-prefixes=ISA,ISA950 < %t/950/gemm_naive.s
// RUN: %python %S/check_code_object.py %t/950 gemm_naive gfx950 --no-spills | FileCheck %s --check-prefix=OBJ950
// RUN: llvm-readelf -h %t/950/gemm_naive.hsaco | FileCheck %s --check-prefix=ELF
// The same program with one warpgroup (one wave per SIMD): the 4-wave
// interleave spreads the prefetch loads and LDS reads between the MFMAs.
// RUN: sed 's/warpgroups = 2/warpgroups = 1/' %kernels/gemm/gemm_naive.mlir > %t/four.mlir
// RUN: tk-opt %t/four.mlir -tile-to-amdgpu="chip=gfx942 out=%t/four" -o /dev/null
// RUN: FileCheck %s --check-prefix=FOUR < %t/four/gemm_naive.s
// RUN: %python %S/check_code_object.py %t/four gemm_naive gfx942 --no-spills | FileCheck %s --check-prefix=OBJFOUR

// FOUR: v_mfma_f32_32x32x8_bf16
// FOUR-NOT: s_barrier
// FOUR: buffer_load_dwordx4
// FOUR-NOT: s_barrier
// FOUR: v_mfma_f32_32x32x8_bf16
// FOUR-NOT: s_barrier
// FOUR: ds_read_b64
// FOUR-NOT: s_barrier
// FOUR: v_mfma_f32_32x32x8_bf16
// OBJFOUR: OK gemm_naive gfx942: {{[0-9]+}} VGPRs, {{[0-9]+}} AGPRs, {{[0-9]+}} SGPRs, 49152 LDS bytes, 64 MFMAs, 0 scratch bytes

// ISA: .amdgcn_target "amdgcn-amd-amdhsa--gfx9
// ISA-LABEL: gemm_naive:
// ISA-DAG: buffer_load_dwordx4
// ISA-DAG: ds_write_b128
// ISA-DAG: ds_write_b16
// ISA-DAG: s_barrier
// ISA942-DAG: ds_read_b64
// ISA942-DAG: v_mfma_f32_32x32x8_bf16
// ISA950-DAG: ds_read_b128
// ISA950-DAG: v_mfma_f32_32x32x16_bf16
// ISA: .amdhsa_next_free_vgpr

// gfx942's 64 KiB hold one stage: the register-staged prefetch.
// OBJ942: OK gemm_naive gfx942: {{[0-9]+}} VGPRs, 0 AGPRs, {{[0-9]+}} SGPRs, 49152 LDS bytes, 32 MFMAs, 0 scratch bytes
// gfx950 has the LDS for three stages: the 8-wave ping-pong (3 x 48 KiB).
// OBJ950: OK gemm_naive gfx950: {{[0-9]+}} VGPRs, 0 AGPRs, {{[0-9]+}} SGPRs, 147456 LDS bytes, 16 MFMAs, 0 scratch bytes

// MANIFEST: "hsaco": "gemm_naive.hsaco"
// MANIFEST: "isa": "gemm_naive.s"
// MANIFEST: "resources": {
// MANIFEST: "scratch_bytes_per_lane": 0,
// MANIFEST: "shared_memory_bytes": 49152,
// MANIFEST: "target": "gfx942",
// MANIFEST: "threads": 512,

// ELF: Class: ELF64
// ELF: OS/ABI: AMDGPU - HSA
// ELF: Type: DYN (Shared object file)
// ELF: Machine: EM_AMDGPU
// ELF: Flags: {{.*}}gfx950
