// Attention backward, postprocessing for the fused programs: dQ from the f32
// accumulator they add into (a view in fragment order, the sequence padded
// to 64-row slabs) to bf16, row-major, in one pass. Each thread reads its
// elements 16 bytes at a time (the layout a load from fragment order takes
// is the one the accumulator was written from), converts them in registers
// and writes them row-major; rows past the sequence are not written.
// Memory-bound: reads the accumulator once, writes dQ once.
// Acc: [batch, heads, seq padded to 64, dim] f32 in fragment order; dQ:
// [batch, heads, seq, dim] bf16; dim a multiple of 64 (64 and 128).
!acc = !tile.gl<?x?x?x?xf32, fragments>
!out = !tile.gl<?x?x?x?xbf16>
!t = !tile.rt<64x64xf32, warpgroup>
!t16 = !tile.rt<64x64xbf16, warpgroup>

tile.kernel @attention_bwd_dq_convert(%Acc: !acc, %dQ: !out)
    launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %batch = tile.dim %dQ[0] : !out
  %heads = tile.dim %dQ[1] : !out
  %seq = tile.dim %dQ[2] : !out
  %dim = tile.dim %dQ[3] : !out
  %q_tiles = arith.ceildivui %seq, %c64 : index
  %col_tiles = arith.ceildivui %dim, %c64 : index
  tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) {
    scf.for %c = %c0 to %col_tiles step %c1 {
      %x = tile.load %Acc[%b, %h, %t, %c] : !acc -> !t
      %y = tile.cast %x : !t to !t16
      tile.store %y, %dQ[%b, %h, %t, %c] : !t16, !out
    }
  }
}
