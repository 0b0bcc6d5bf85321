// RUN: tk-opt %kernels/ssm/mamba2_ssd.mlir | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/ssm/mamba2_ssd.mlir -mlir-print-op-generic | tk-opt | FileCheck %s
// RUN: tk-opt %kernels/ssm/mamba2_ssd.mlir -canonicalize -cse | tk-opt -verify-each > /dev/null
// Layouts and swizzles are left open for tile-assign-layouts: none is named.
// RUN: tk-opt %kernels/ssm/mamba2_ssd.mlir | not grep -E '#tile[.](row|col|mma_acc|mfma|vec|swizzle)'
// RUN: tk-opt %kernels/ssm/mamba2_ssd_n128.mlir | tk-opt | FileCheck %s --check-prefix=N128
// RUN: tk-opt %kernels/ssm/mamba2_ssd_n128.mlir | not grep -E '#tile[.](row|col|mma_acc|mfma|vec|swizzle)'

// CHECK-LABEL: tile.kernel @mamba2_ssd
// CHECK-SAME: launch(warpgroups = 1, blocks_per_sm = 2)
// CHECK: tile.foreach_tile (%{{.*}}, %{{.*}}, %{{.*}}) in
// CHECK: tile.signal_wait
// CHECK: scf.for
// CHECK: tile.copy {{.*}} !tile.sv<64xf32>
// CHECK: tile.cumsum
// CHECK: tile.broadcast row
// CHECK: tile.broadcast col
// CHECK: tile.mma ABt
// CHECK: tile.causal_mask {{.*}} fill zero
// CHECK: tile.vec_reduce sum
// CHECK: math.exp
// CHECK: tile.mma AtB
// CHECK: tile.signal_add
// N128-LABEL: tile.kernel @mamba2_ssd_n128
// N128: tile.mma AtB {{.*}} -> !tile.rt<64x128xf32, warpgroup>
