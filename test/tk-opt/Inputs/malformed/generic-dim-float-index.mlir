tile.kernel @k(%g: !tile.gl<?xf32>) {
  %d = "tile.dim"(%g) {index = 1.0 : f32} : (!tile.gl<?xf32>) -> index
}
