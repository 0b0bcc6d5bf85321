tile.kernel @k() {
  %x = tile.fill 0.0 : !tile.rt<64x64xf32, warp