"test.source"() : () -> !tile.tensor<64x64xf32>
