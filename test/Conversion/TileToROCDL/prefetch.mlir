// tile.prefetch on AMD: dropped (a hint; CDNA has no L2 prefetch of a box),
// with no tensor map in the ABI. NVIDIA: test/Conversion/TileToNVVM/prefetch.mlir.
// RUN: tk-opt %s -convert-tile-to-rocdl | FileCheck %s

// CHECK-NOT: tensor_map
// CHECK-LABEL: llvm.func @prefetch
// CHECK-NOT: prefetch
// CHECK: llvm.return
module attributes {tile.target = "gfx942"} {
  tile.kernel @prefetch(%A: !tile.gl<?x?xbf16>) launch(warpgroups = 1) {
    %c0 = arith.constant 0 : index
    tile.prefetch %A[%c0, %c0] box [128, 64] : !tile.gl<?x?xbf16>
  }
}
