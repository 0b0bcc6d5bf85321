// C = A · B, naive: bf16 A (M x K) and B (K x N), f32 accumulation, bf16 C.
// One 128x256 output tile per block; each k-step copies a 128x64 tile of A
// and a 64x256 tile of B into shared memory and multiplies. No rings, no
// semaphores, no warp roles, no layouts: tile-pipeline, tile-warp-specialize
// and tile-assign-layouts (the -tile-to-nvidia pipeline) turn it into the
// kernel of gemm.mlir; `group 16` asks for gemm.mlir's tile walk (the
// pipeline's default groups 8 rows).
!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x256xf32, block>

tile.kernel @gemm_naive(%A: !view, %B: !view, %C: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  %tiles_m = arith.ceildivui %M, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles_k = arith.ceildivui %K, %c64 : index
  tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 16 {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %tiles_k step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !view
  }
}
