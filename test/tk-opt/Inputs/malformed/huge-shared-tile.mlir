tile.kernel @k() {
  %a = tile.alloc : !tile.st<99999999999x99999999999xf32>
}
