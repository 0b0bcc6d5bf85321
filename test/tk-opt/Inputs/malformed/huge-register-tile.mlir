tile.kernel @k() {
  %x = tile.fill 0.0 : !tile.rt<1048576x1048576xf32, warp, #tile.row>
}
