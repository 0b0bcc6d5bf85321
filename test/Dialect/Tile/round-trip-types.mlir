// RUN: tk-opt %s -allow-unregistered-dialect | tk-opt -allow-unregistered-dialect | FileCheck %s
// RUN: tk-opt %s -allow-unregistered-dialect -mlir-print-op-generic | tk-opt -allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: "test.register_tiles"
// CHECK-SAME: !tile.rt<16x16xbf16, warp>
// CHECK-SAME: !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
// CHECK-SAME: !tile.rt<128x64xf16, block, #tile.row>
// CHECK-SAME: !tile.rt<16x32xbf16, warp, #tile.col>
// CHECK-SAME: !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, acc>>
// CHECK-SAME: !tile.rt<32x16xbf16, warp, #tile.mfma<32x32x16, a>>
// CHECK-SAME: !tile.rt<16x16xf16, warp, #tile.mfma<16x16x16, b>>
// CHECK-SAME: !tile.rt<64x64xf8E4M3FN, warpgroup>
// CHECK-SAME: !tile.rt<64x64xf8E5M2, warpgroup>
"test.register_tiles"() : () -> (!tile.rt<16x16xbf16, warp>,
    !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>,
    !tile.rt<128x64xf16, block, #tile.row>,
    !tile.rt<16x32xbf16, warp, #tile.col>,
    !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, acc>>,
    !tile.rt<32x16xbf16, warp, #tile.mfma<32x32x16, a>>,
    !tile.rt<16x16xf16, warp, #tile.mfma<16x16x16, b>>,
    !tile.rt<64x64xf8E4M3FN, warpgroup>,
    !tile.rt<64x64xf8E5M2, warpgroup>)

// CHECK-LABEL: "test.register_vectors"
// CHECK-SAME: !tile.rv<64xf32, warpgroup>
// CHECK-SAME: !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
// CHECK-SAME: !tile.rv<128xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
// CHECK-SAME: !tile.rv<32xf32, warp, #tile.vec<row, #tile.mfma<32x32x8, acc>>>
"test.register_vectors"() : () -> (!tile.rv<64xf32, warpgroup>,
    !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>,
    !tile.rv<128xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>,
    !tile.rv<32xf32, warp, #tile.vec<row, #tile.mfma<32x32x8, acc>>>)

// CHECK-LABEL: "test.shared"
// CHECK-SAME: !tile.st<64x64xbf16>
// CHECK-SAME: !tile.st<128x64xbf16, #tile.swizzle<128>>
// CHECK-SAME: !tile.st<64x32xbf16, #tile.swizzle<64>>
// CHECK-SAME: !tile.st<64x16xbf16, #tile.swizzle<32>>
// CHECK-SAME: !tile.st<64x8xf32, #tile.swizzle<0>>
// CHECK-SAME: !tile.st<4x128x64xbf16, #tile.swizzle<128>>
// CHECK-SAME: !tile.sv<64xf32>
// CHECK-SAME: !tile.sv<2x64xf32>
"test.shared"() : () -> (!tile.st<64x64xbf16>,
    !tile.st<128x64xbf16, #tile.swizzle<128>>,
    !tile.st<64x32xbf16, #tile.swizzle<64>>,
    !tile.st<64x16xbf16, #tile.swizzle<32>>,
    !tile.st<64x8xf32, #tile.swizzle<0>>,
    !tile.st<4x128x64xbf16, #tile.swizzle<128>>,
    !tile.sv<64xf32>, !tile.sv<2x64xf32>)

// CHECK-LABEL: "test.global_and_sync"
// CHECK-SAME: !tile.gl<?xf32>
// CHECK-SAME: !tile.gl<?x?xbf16>
// CHECK-SAME: !tile.gl<4x?x1024x128xf16>
// CHECK-SAME: !tile.gl<?x?x?x128xf32, fragments>
// CHECK-SAME: !tile.gl<128x64xf32, fragments>
// CHECK-SAME: !tile.gl<?x?x128x?xf32, fragments>
// CHECK-SAME: !tile.gl<?x?xbf16, devices = 8>
// CHECK-SAME: !tile.gl<?xi32, devices = 2>
// CHECK-SAME: !tile.sem
// CHECK-SAME: !tile.sem<4>
"test.global_and_sync"() : () -> (!tile.gl<?xf32>, !tile.gl<?x?xbf16>,
    !tile.gl<4x?x1024x128xf16>, !tile.gl<?x?x?x128xf32, fragments>,
    !tile.gl<128x64xf32, fragments>, !tile.gl<?x?x128x?xf32, fragments>,
    !tile.gl<?x?xbf16, devices = 8>, !tile.gl<?xi32, devices = 2>,
    !tile.sem, !tile.sem<1>, !tile.sem<4>)
