tile.kernel @k() {
  tile.frobnicate
}
