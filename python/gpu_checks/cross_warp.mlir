// The paths of the NVIDIA lowering whose data crosses lanes and warps, on
// 64 x 64 f32 tiles of X ([n, 64], rows past n read as 0). Two warpgroups
// per block, each on its own tile (2 b + warpgroup), so each uses its own
// slot of every scratch. Per tile t (rows 64 t ..):
//   CS, CM    [t, 64]   column sums and maxima (reduced across the 4 warps)
//   RC        [n, 64]   running sums down each column (`cumsum col`: lanes,
//                       registers and warps)
//   RR        [n, 64]   running sums along each row (`cumsum row`: lanes and
//                       registers), exclusive
//   VS        [t, 64]   running sums of the row sums (a row vector: lanes,
//                       registers and warps), VE exclusive
//   TS, TM    [t, 64]   the tile's total and maximum (vec_reduce of the row
//                       sums and row maxima), repeated along the row
//   D         [n, 64]   s_c - s_r from the row sums s (the vector broadcast
//                       along both axes: a row vector converted to a column
//                       vector through the scratch)
//   P         [n, 64]   X converted to #tile.col and back (in-warp shuffles)
//   R         [n, 256]  the row-wise outer product of A ([n, 16]) held in
//                       #tile.mma_acc and in #tile.col (`tile.outer`: both
//                       operands gathered with in-warp shuffles)
//   XT        [n, 64]   the tile transposed (`tile.transpose`: across the
//                       warps, through the scratch)
//   WT, WC    [n, 16]   each 16 x 16 block of X's first 16 columns
//                       transposed by a warp (every warp of the warpgroup
//                       alike): #tile.row to #tile.row (in-warp shuffles)
//                       and to #tile.col (the same registers)
// With integer-valued X every result is exact in f32.
!x = !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
!xc = !tile.rt<64x64xf32, warpgroup, #tile.col>
!row = !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
!col = !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
!view = !tile.gl<?x64xf32>
!vecs = !tile.gl<?xf32>

tile.kernel @cross_warp(%X: !view, %CS: !vecs, %CM: !vecs, %RC: !view,
                        %RR: !view, %VS: !vecs, %VE: !vecs, %TS: !vecs,
                        %TM: !vecs, %D: !view, %P: !view,
                        %A: !tile.gl<?x16xf32>, %R: !tile.gl<?x256xf32>,
                        %XT: !view, %WT: !tile.gl<?x16xf32>,
                        %WC: !tile.gl<?x16xf32>)
    launch(warpgroups = 2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %n = tile.dim %X[0] : !view
  %tiles = arith.ceildivui %n, %c64 : index
  %pairs = arith.ceildivui %n, %c128 : index
  %wg = tile.warpgroup_id
  tile.foreach_tile (%b) in (%pairs) {
    %pair = arith.muli %b, %c2 : index
    %t = arith.addi %pair, %wg : index
    %live = arith.cmpi ult, %t, %tiles : index
    scf.if %live {
      %x = tile.load %X[%t, %c0] : !view -> !x
      %cs = tile.col_sum %x : !x -> !col
      tile.store %cs, %CS[%t] : !col, !vecs
      %cm = tile.col_max %x : !x -> !col
      tile.store %cm, %CM[%t] : !col, !vecs
      %rc = tile.cumsum col %x : !x
      tile.store %rc, %RC[%t, %c0] : !x, !view
      %rr = tile.cumsum row %x exclusive : !x
      tile.store %rr, %RR[%t, %c0] : !x, !view
      %s = tile.row_sum %x : !x -> !row
      %vs = tile.cumsum %s : !row
      tile.store %vs, %VS[%t] : !row, !vecs
      %ve = tile.cumsum %s exclusive : !row
      tile.store %ve, %VE[%t] : !row, !vecs
      %zero = tile.fill 0.0 : !row
      %total = tile.vec_reduce sum %s : !row
      %ts = tile.add %zero, %total : !row, f32
      tile.store %ts, %TS[%t] : !row, !vecs
      %m = tile.row_max %x : !x -> !row
      %top = tile.vec_reduce max %m : !row
      %tm = tile.add %zero, %top : !row, f32
      tile.store %tm, %TM[%t] : !row, !vecs
      %sc = tile.convert_layout %s : !row to !col
      %along_rows = tile.broadcast row %s : !row to !x
      %along_cols = tile.broadcast col %sc : !col to !x
      %d = tile.sub %along_cols, %along_rows : !x
      tile.store %d, %D[%t, %c0] : !x, !view
      %xc = tile.convert_layout %x : !x to !xc
      %back = tile.convert_layout %xc : !xc to !x
      tile.store %back, %P[%t, %c0] : !x, !view
      %a = tile.load %A[%t, %c0] : !tile.gl<?x16xf32> -> !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
      %ac = tile.load %A[%t, %c0] : !tile.gl<?x16xf32> -> !tile.rt<64x16xf32, warpgroup, #tile.col>
      %r = tile.outer %a, %ac : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>, !tile.rt<64x16xf32, warpgroup, #tile.col> -> !tile.rt<64x256xf32, warpgroup, #tile.row>
      tile.store %r, %R[%t, %c0] : !tile.rt<64x256xf32, warpgroup, #tile.row>, !tile.gl<?x256xf32>
      %xt = tile.transpose %x : !x to !x
      tile.store %xt, %XT[%t, %c0] : !x, !view
      %first = arith.muli %t, %c4 : index
      scf.for %q = %c0 to %c4 step %c1 {
        %blk = arith.addi %first, %q : index
        %w = tile.load %X[%blk, %c0] : !view -> !tile.rt<16x16xf32, warp, #tile.row>
        %wt = tile.transpose %w : !tile.rt<16x16xf32, warp, #tile.row> to !tile.rt<16x16xf32, warp, #tile.row>
        tile.store %wt, %WT[%blk, %c0] : !tile.rt<16x16xf32, warp, #tile.row>, !tile.gl<?x16xf32>
        %wc = tile.transpose %w : !tile.rt<16x16xf32, warp, #tile.row> to !tile.rt<16x16xf32, warp, #tile.col>
        tile.store %wc, %WC[%blk, %c0] : !tile.rt<16x16xf32, warp, #tile.col>, !tile.gl<?x16xf32>
      }
    }
  }
}
