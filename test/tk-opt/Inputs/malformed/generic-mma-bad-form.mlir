tile.kernel @k() {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %d = "tile.mma"(%a, %a) {form = "AB"} : (!tile.st<64x64xbf16>, !tile.st<64x64xbf16>) -> !tile.rt<64x64xf32, warpgroup>
}
