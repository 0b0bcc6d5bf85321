tile.kernel @k(%n: index) {
  "tile.foreach_tile"(%n) ({
    "tile.yield"() : () -> ()
  }) : (index) -> ()
}
