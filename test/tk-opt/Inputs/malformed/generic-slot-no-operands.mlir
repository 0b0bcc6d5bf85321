tile.kernel @k() {
  %s = "tile.slot"() : () -> !tile.st<64x64xbf16>
}
