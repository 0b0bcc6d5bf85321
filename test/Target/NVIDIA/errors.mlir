// RUN: not tk-opt %s -tile-emit-nvidia="out=%t" 2>&1 | FileCheck %s
// CHECK: error: no lowered kernels: run convert-tile-to-nvvm and the LLVM conversions first (or use -tile-to-nvidia)
tile.kernel @k() launch(warpgroups = 1) {
}
