tile.kernel @k() {
  %x = tile.fill 0.0 : !tile.rt<32x32xf32, warp, #tile.mfma<0x0x0, acc>>
}
