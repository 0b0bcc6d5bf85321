tile.kernel @k() {
  %s = tile.alloc : !tile.sem
  tile.sem_wait %s
}
