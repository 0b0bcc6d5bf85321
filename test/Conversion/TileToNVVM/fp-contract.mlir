// fp-contract (default on) marks the float adds, subtracts and multiplies
// the lowering leaves, and the kernel's own arith ones, `contract`, so LLVM
// may fuse a multiply and the add or subtract that uses it into one fma
// (nvcc's default); fp-contract=false leaves them unmarked (each rounded on
// its own). test/Conversion/TileToROCDL/fp-contract.mlir: the same on AMD.
// RUN: tk-opt %s -convert-tile-to-nvvm | FileCheck %s --check-prefix=ON
// RUN: tk-opt %s -convert-tile-to-nvvm=fp-contract=false | FileCheck %s --check-prefix=OFF
// RUN: tk-opt %s -convert-tile-to-nvvm="fp-contract=true" | FileCheck %s --check-prefix=ON

// ON-LABEL: llvm.func @softmax_step
// ON: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// ON: llvm.fmul %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// ON: llvm.fsub %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// ON: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// ON-NOT: llvm.fdiv {{.*}}contract

// OFF-LABEL: llvm.func @softmax_step
// OFF-NOT: contract
tile.kernel @softmax_step(%s: f32, %O: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %log2e = arith.constant 1.44269504 : f32
  %s2 = arith.mulf %s, %log2e : f32
  %x = tile.fill 2.0 : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %m = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %y = tile.mul %x, %s2 : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>, f32
  %z = tile.sub %y, %m : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %w = tile.add %z, %m : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %v = tile.div %w, %m : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  tile.store %v, %O[%c0, %c0] : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>, !tile.gl<?x?xf32>
}
