module attributes {tile.target = "sm_90a} {
}
