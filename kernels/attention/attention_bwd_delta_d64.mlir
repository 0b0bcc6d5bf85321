// Attention backward, preprocessing: Δ = rowsum(dO ∘ O) per query, in f32,
// the term every backward program subtracts from dO Vᵀ. O, dO:
// [batch, heads, seq, 64] bf16; Δ: [batch, heads, seq'] f32 with seq' >= seq
// (the backward pads rows to 16 bytes for TMA; rows past seq get 0, since
// loads past the end read zeros). One block per 64 queries: both tiles come
// in by TMA (tile-pipeline makes the copies async), the product and the row
// sum stay in registers. Memory-bound: it reads each of O and dO once.
// Head dim 64 (attention_bwd_delta.mlir: the same program for 128).
!qkv = !tile.gl<?x?x?x64xbf16>
!vec = !tile.gl<?x?x?xf32>
!st = !tile.st<64x64xbf16>
!t16 = !tile.rt<64x64xbf16, warpgroup>
!t = !tile.rt<64x64xf32, warpgroup>
!row = !tile.rv<64xf32, warpgroup>

tile.kernel @attention_bwd_delta_d64(%O: !qkv, %dO: !qkv, %Dl: !vec)
    launch(warpgroups = 1) {
  %o = tile.alloc : !st
  %do = tile.alloc : !st
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %batch = tile.dim %O[0] : !qkv
  %heads = tile.dim %O[1] : !qkv
  %seq = tile.dim %O[2] : !qkv
  %q_tiles = arith.ceildivui %seq, %c64 : index
  tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) {
    tile.copy %O[%b, %h, %t, %c0] -> %o : !qkv, !st
    tile.copy %dO[%b, %h, %t, %c0] -> %do : !qkv, !st
    %o16 = tile.load %o : !st -> !t16
    %do16 = tile.load %do : !st -> !t16
    %of = tile.cast %o16 : !t16 to !t
    %dof = tile.cast %do16 : !t16 to !t
    %prod = tile.mul %of, %dof : !t
    %delta = tile.row_sum %prod : !t -> !row
    tile.store %delta, %Dl[%b, %h, %t] : !row, !vec
  }
}
