// An AMD program with explicit MFMA layouts and no tile.target: it verifies
// for the chip --target names.
tile.kernel @mfma_layouts(%C: !tile.gl<?x?xf32>, %i: index) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x32xbf16, #tile.swizzle<64>>
  %d = tile.mma ABt %a, %a : !tile.st<64x32xbf16, #tile.swizzle<64>>, !tile.st<64x32xbf16, #tile.swizzle<64>> -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
  tile.store %d, %C[%i, %i] : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>, !tile.gl<?x?xf32>
}
