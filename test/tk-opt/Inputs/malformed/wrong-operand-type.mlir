tile.kernel @k(%n: index) {
  %y = tile.exp %n : index
}
