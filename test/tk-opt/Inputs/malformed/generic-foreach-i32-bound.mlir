tile.kernel @k(%n: i32) {
  "tile.foreach_tile"(%n) ({
  ^bb0(%i: index, %t: index):
    "tile.yield"() : () -> ()
  }) : (i32) -> ()
}
