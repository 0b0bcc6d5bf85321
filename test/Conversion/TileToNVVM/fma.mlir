// tile.fma: a·b + c with one rounding, field by field as llvm.intr.fma (a
// thread's 8 fields of a 64x16 warpgroup tile, 2 of a row vector); bf16
// fields go in pairs, so PTX has fma.rn.bf16x2. AMD:
// test/Conversion/TileToROCDL/fma.mlir.
// RUN: tk-opt %s -convert-tile-to-nvvm | FileCheck %s
// RUN: rm -rf %t && tk-opt %s -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/fused.ptx

// CHECK-LABEL: llvm.func @fused
// CHECK-COUNT-8: llvm.intr.fma({{.*}}) : (f32, f32, f32) -> f32
// CHECK-NOT: llvm.intr.fma
// CHECK-COUNT-4: llvm.intr.fma({{.*}}) : (vector<2xbf16>, vector<2xbf16>, vector<2xbf16>) -> vector<2xbf16>
// CHECK-NOT: llvm.intr.fma({{.*}}) : (vector
// CHECK-COUNT-2: llvm.intr.fma({{.*}}) : (f32, f32, f32) -> f32
// CHECK-NOT: llvm.intr.fma
// CHECK-NOT: tile.fma

// PTX-COUNT-4: fma.rn.bf16x2
// PTX-NOT: fma.rn.bf16x2
// PTX-NOT: mul.rn.bf16x2
!r32 = !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
!r16 = !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>
!v32 = !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
tile.kernel @fused(%A: !tile.gl<?x?xf32>, %B: !tile.gl<?x?xbf16>,
                   %L: !tile.gl<?xf32>) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.gl<?x?xf32> -> !r32
  %d = tile.fma %a, %a, %a : !r32
  tile.store %d, %A[%c0, %c0] : !r32, !tile.gl<?x?xf32>
  %b = tile.load %B[%c0, %c0] : !tile.gl<?x?xbf16> -> !r16
  %e = tile.fma %b, %b, %b : !r16
  tile.store %e, %B[%c0, %c0] : !r16, !tile.gl<?x?xbf16>
  %l = tile.load %L[%c0] : !tile.gl<?xf32> -> !v32
  %m = tile.fma %l, %l, %l : !v32
  tile.store %m, %L[%c0] : !v32, !tile.gl<?xf32>
}
