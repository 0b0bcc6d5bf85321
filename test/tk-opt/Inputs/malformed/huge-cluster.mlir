tile.kernel @k() launch(cluster = [2147483647, 2147483647, 2147483647]) {
}
