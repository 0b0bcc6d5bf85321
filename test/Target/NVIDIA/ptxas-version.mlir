// tile-emit-nvidia warns at the kernel when a ptxas older than 13.1
// assembles PTX that reads a wgmma's A operand from registers: ptxas
// 13.0.88 gave those registers to another value in attention_naive compiled
// with overlap-mma=false (docs/nvidia.md, "Assembler"). A stand-in ptxas
// (Inputs/stand-in-ptxas.sh) reports the release.
// RUN: rm -rf %t && mkdir -p %t/old/bin %t/new/bin %t/odd/bin
// RUN: cp %S/Inputs/stand-in-ptxas.sh %t/old/bin/ptxas && echo "13.0, V13.0.88" > %t/old/bin/release
// RUN: cp %S/Inputs/stand-in-ptxas.sh %t/new/bin/ptxas && echo "13.1, V13.1.115" > %t/new/bin/release
// RUN: cp %S/Inputs/stand-in-ptxas.sh %t/odd/bin/ptxas && echo "unknown" > %t/odd/bin/release
// RUN: chmod +x %t/old/bin/ptxas %t/new/bin/ptxas %t/odd/bin/ptxas
//
// Q and P come from registers: 13.0 warns, and the cubin is still written.
// RUN: env CUDA_ROOT=%t/old tk-opt %kernels/attention/attention_naive.mlir -tile-to-nvidia="out=%t/a producer-registers=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: test -s %t/a/attention_naive.cubin
// OLD: attention_naive.mlir:{{[0-9]+}}:1: warning: ptxas 13.0 ({{.*}}/old) is older than 13.1 and can reuse the registers of a wgmma's register A operand while a later wgmma still reads them (wrong results); this PTX reads A from registers: check the kernel on the GPU or set CUDA_ROOT to a CUDA 13.1 or newer toolkit
// OLD-NEXT: tile.kernel @attention_naive
//
// 13.1, or a release the compiler cannot read: no warning.
// RUN: env CUDA_ROOT=%t/new tk-opt %kernels/attention/attention_naive.mlir -tile-to-nvidia="out=%t/b producer-registers=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: env CUDA_ROOT=%t/odd tk-opt %kernels/attention/attention_naive.mlir -tile-to-nvidia="out=%t/c producer-registers=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: warning: ptxas
//
// The GEMM's operands both come from shared memory: no warning with 13.0.
// RUN: env CUDA_ROOT=%t/old tk-opt %kernels/gemm/gemm.mlir -tile-to-nvidia="out=%t/g" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: test -s %t/g/gemm.cubin
