tile.kernel @k() {
  %x = "tile.fill"() {value = 1.0 : f64} : () -> !tile.rt<64x64xi8, warpgroup>
}
