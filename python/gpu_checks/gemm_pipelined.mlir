// A naive GEMM whose k-loop runs min(steps, ceil(K / 64)) steps, to check
// tile-pipeline's ring on the GPU for trip counts 0, 1, fewer than the 3
// stages and more, with and without tile-warp-specialize:
//   C = A[:, :64 steps] · B[:64 steps, :]   (bf16 in, f32 accumulate, bf16 C)
// One warpgroup computes each 64x128 tile of C.
!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<64x128xf32, warpgroup>

tile.kernel @gemm_pipelined(%A: !view, %B: !view, %C: !view, %steps: i32)
    launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  %tiles_m = arith.ceildivui %M, %c64 : index
  %tiles_n = arith.ceildivui %N, %c128 : index
  %tiles_k = arith.ceildivui %K, %c64 : index
  %steps_i = arith.index_cast %steps : i32 to index
  %trips = arith.minui %steps_i, %tiles_k : index
  tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %trips step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x128xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !acc
      scf.yield %y : !acc
    } {tile.stages = 3}
    %out = tile.cast %acc : !acc to !tile.rt<64x128xbf16, warpgroup>
    tile.store %out, %C[%m, %n] : !tile.rt<64x128xbf16, warpgroup>, !view
  }
}
