tile.kernel @k() {
  %x = tile.fill 0.0 : !tile.rt<>
}
