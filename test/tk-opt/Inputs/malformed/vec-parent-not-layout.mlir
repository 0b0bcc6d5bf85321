tile.kernel @k() {
  %x = tile.fill 0.0 : !tile.rv<32xf32, warp, #tile.vec<row, 5 : i32>>
}
