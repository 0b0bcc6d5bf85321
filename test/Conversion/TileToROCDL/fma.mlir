// tile.fma on AMD: llvm.intr.fma per field, bf16 fields in pairs, as on
// NVIDIA (test/Conversion/TileToNVVM/fma.mlir); gfx942 has no bf16 FMA, so
// the back end computes a bf16 pair's in f32 (v_fmac_f32) and rounds.
// RUN: tk-opt %s -convert-tile-to-rocdl | FileCheck %s
// RUN: rm -rf %t && tk-opt %s -tile-to-amdgpu="chip=gfx942 out=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=ISA < %t/fused.s

// CHECK-LABEL: llvm.func @fused
// CHECK-COUNT-8: llvm.intr.fma({{.*}}) : (f32, f32, f32) -> f32
// CHECK-NOT: llvm.intr.fma({{.*}}) : (f32
// CHECK-COUNT-4: llvm.intr.fma({{.*}}) : (vector<2xbf16>, vector<2xbf16>, vector<2xbf16>) -> vector<2xbf16>
// CHECK-NOT: llvm.intr.fma
// CHECK-NOT: tile.fma

// ISA-LABEL: fused:
// ISA: v_fmac_f32
!r32 = !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
!r16 = !tile.rt<64x32xbf16, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
module attributes {tile.target = "gfx942"} {
  tile.kernel @fused(%A: !tile.gl<?x?xf32>, %B: !tile.gl<?x?xbf16>)
      launch(warpgroups = 1) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.gl<?x?xf32> -> !r32
    %d = tile.fma %a, %a, %a : !r32
    tile.store %d, %A[%c0, %c0] : !r32, !tile.gl<?x?xf32>
    %b = tile.load %B[%c0, %c0] : !tile.gl<?x?xbf16> -> !r16
    %e = tile.fma %b, %b, %b : !r16
    tile.store %e, %B[%c0, %c0] : !r16, !tile.gl<?x?xbf16>
  }
}
