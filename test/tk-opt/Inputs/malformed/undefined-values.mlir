tile.kernel @k() {
  tile.load_async %A[%i] -> %a, %s : !tile.gl<?xf32>, !tile.sv<64xf32>
}
