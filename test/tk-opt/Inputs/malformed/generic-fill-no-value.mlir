tile.kernel @k() {
  %x = "tile.fill"() : () -> !tile.rt<64x64xf32, warpgroup>
}
