// A program that names its chip: compiling it for another is an error.
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k() launch(warpgroups = 1) {
  }
}
