// Register tiles of each element type the reducing store takes, added into
// device %d's copy of a multi-device view element by element (no copies:
// the passes leave the stores as they are).
tile.kernel @peer_reduce(%F: !tile.gl<?x?xf32, devices = 2>,
                         %H: !tile.gl<?x?xf16, devices = 2>,
                         %B: !tile.gl<?x?xbf16, devices = 2>, %d: index)
    launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %f = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
  %h = tile.fill 1.0 : !tile.rt<64x64xf16, warpgroup>
  %b = tile.fill 1.0 : !tile.rt<64x64xbf16, warpgroup>
  tile.store %f, %F[%c0, %c0] device %d reduce add : !tile.rt<64x64xf32, warpgroup>, !tile.gl<?x?xf32, devices = 2>
  tile.store %h, %H[%c0, %c0] device %d reduce add : !tile.rt<64x64xf16, warpgroup>, !tile.gl<?x?xf16, devices = 2>
  tile.store %b, %B[%c0, %c0] device %d reduce add : !tile.rt<64x64xbf16, warpgroup>, !tile.gl<?x?xbf16, devices = 2>
}
