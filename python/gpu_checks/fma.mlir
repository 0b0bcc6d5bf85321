// tile.fma on the GPU: D = A·B + C rounded once, in f32 and in bf16, on
// [n, 64] matrices read into 64-row warpgroup register tiles straight from
// global memory and stored back (fma.py checks every element against the
// float64 product and sum: correctly rounded, so within half a unit in the
// last place; and differing from a product rounded before the add).
!f32v = !tile.gl<?x64xf32>
!bf16v = !tile.gl<?x64xbf16>
!r32 = !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
!r16 = !tile.rt<64x64xbf16, warpgroup, #tile.mma_acc>

tile.kernel @fma(%A: !f32v, %B: !f32v, %C: !f32v, %D: !f32v,
                 %A16: !bf16v, %B16: !bf16v, %C16: !bf16v, %D16: !bf16v)
    launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = tile.dim %A[0] : !f32v
  %tiles = arith.ceildivui %n, %c64 : index
  tile.foreach_tile (%i) in (%tiles) {
    %a = tile.load %A[%i, %c0] : !f32v -> !r32
    %b = tile.load %B[%i, %c0] : !f32v -> !r32
    %c = tile.load %C[%i, %c0] : !f32v -> !r32
    %d = tile.fma %a, %b, %c : !r32
    tile.store %d, %D[%i, %c0] : !r32, !f32v
    %a16 = tile.load %A16[%i, %c0] : !bf16v -> !r16
    %b16 = tile.load %B16[%i, %c0] : !bf16v -> !r16
    %c16 = tile.load %C16[%i, %c0] : !bf16v -> !r16
    %d16 = tile.fma %a16, %b16, %c16 : !r16
    tile.store %d16, %D16[%i, %c0] : !r16, !bf16v
  }
}
