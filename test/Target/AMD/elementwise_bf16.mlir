// bf16 elementwise ops lower two register fields at a time (2-element
// vectors, as for NVIDIA's mul.bf16x2); on CDNA the backend widens each pair
// to f32 and rounds it back: gfx942 in integer instructions, gfx950 with
// its packed bf16 conversion. Both compile to a code object.
// RUN: rm -rf %t && tk-opt %s -tile-to-amdgpu="chip=gfx942 out=%t/942" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA942 < %t/942/ew.s
// RUN: tk-opt %s -tile-to-amdgpu="chip=gfx950 out=%t/950" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=ISA950 < %t/950/ew.s
// RUN: tk-opt %s -tile-to-nvidia="out=%t/nv cubin=false" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/nv/ew.ptx

// ISA942-LABEL: ew:
// ISA942: v_mfma_f32_16x16x16_bf16
// ISA942: v_fmac_f32_e32
// ISA950-LABEL: ew:
// ISA950: v_mfma_f32_16x16x32_bf16
// ISA950: v_fmac_f32_e32
// ISA950: v_cvt_pk_bf16_f32
// PTX: fma.rn.bf16x2
// PTX-NOT: {{(mul|add|fma)(\.rn)?\.bf16[[:space:]]}}
tile.kernel @ew(%C: !tile.gl<?x?xbf16>, %i: index, %s: f32) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x32xbf16>
  %d = tile.mma ABt %a, %a : !tile.st<64x32xbf16>, !tile.st<64x32xbf16> -> !tile.rt<64x64xf32, warpgroup>
  %e = tile.cast %d : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warpgroup>
  %y = tile.mul %e, %s : !tile.rt<64x64xbf16, warpgroup>, f32
  %z = tile.add %y, %e : !tile.rt<64x64xbf16, warpgroup>
  tile.store %z, %C[%i, %i] : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?xbf16>
}
