// The AMD pipeline's own errors: an unknown chip, a program written for
// another chip, emitting before lowering, and no ld.lld to link with.
// RUN: not tk-opt %s -tile-set-target=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tk-opt %S/Inputs/written_for_sm90a.mlir -tile-to-amdgpu="chip=gfx942 out=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WRITTEN
// RUN: not tk-opt %s -tile-emit-amdgpu 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-amdgpu="chip=gfx942 out=%t lld=%t/no-such-lld" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LLD

// CHIP: error: unknown chip 'gfx1100'; expected one of sm_90a, gfx942, gfx950
// WRITTEN: error: module is written for 'sm_90a' but is compiled for 'gfx942'
// EMIT: error: no lowered kernels: run convert-tile-to-rocdl and the LLVM conversions first (or use -tile-to-amdgpu)
// LLD: error: ld.lld not found (install lld, or pass lld=PATH): it links the HSA code object

module attributes {tile.target = "gfx942"} {
  tile.kernel @empty() launch(warpgroups = 1) {
  }
}
