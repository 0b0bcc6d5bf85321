tile.kernel @k() {
  %s = tile.alloc : !tile.sem<99999999999>
}
