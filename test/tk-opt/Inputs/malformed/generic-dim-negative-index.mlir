tile.kernel @k(%g: !tile.gl<?xf32>) {
  %d = "tile.dim"(%g) {index = -1 : i64} : (!tile.gl<?xf32>) -> index
}
