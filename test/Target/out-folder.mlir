// The artifacts (binary, assembly, manifest) go to the folder `out` names;
// `out=-` (standard output cannot hold several files) and an empty `out`
// are errors at the module, for both targets, and nothing is written.
// RUN: not tk-opt %kernels/gemm_naive.mlir -tile-to-nvidia="out=- cubin=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DASH
// RUN: not tk-opt %kernels/gemm_naive.mlir -tile-to-amdgpu="chip=gfx942 out=" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EMPTY
// DASH: gemm_naive.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'out' must name a folder for the binary, assembly and manifest, got '-'
// EMPTY: gemm_naive.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'out' must name a folder for the binary, assembly and manifest, got ''
