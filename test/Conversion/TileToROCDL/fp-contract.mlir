// convert-tile-to-rocdl's fp-contract, as convert-tile-to-nvvm's
// (test/Conversion/TileToNVVM/fp-contract.mlir): on by default, the float
// adds, subtracts and multiplies are marked `contract` so the AMDGPU back end
// may fuse them into fmas; off, they are left unmarked.
// RUN: tk-opt %s -convert-tile-to-rocdl | FileCheck %s --check-prefix=ON
// RUN: tk-opt %s -convert-tile-to-rocdl=fp-contract=false | FileCheck %s --check-prefix=OFF

// ON-LABEL: llvm.func @scaled_shift
// ON: llvm.fmul %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// ON: llvm.fsub %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32

// OFF-LABEL: llvm.func @scaled_shift
// OFF-NOT: contract
module attributes {tile.target = "gfx942"} {
  tile.kernel @scaled_shift(%s: f32, %O: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
    %c0 = arith.constant 0 : index
    %x = tile.fill 2.0 : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
    %m = tile.fill 1.0 : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
    %y = tile.mul %x, %s : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>, f32
    %z = tile.sub %y, %m : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
    tile.store %z, %O[%c0, %c0] : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>, !tile.gl<?x?xf32>
  }
}
