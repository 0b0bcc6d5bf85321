tile.kernel @k() {
  "tile.warp_specialize"() ({
    "tile.yield"() : () -> ()
  }) {producer_warpgroups = 1 : i32, consumer_warpgroups = 1 : i32} : () -> ()
}
