tile.kernel @k() launch(warpgroups = 99999999999) {
}
