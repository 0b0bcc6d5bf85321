tile.kernel @k() {
  %a = tile.alloc : !tile.sem
