// RUN: tk-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf8E4M3FN, warpgroup>
  // expected-error @+1 {{'tile.exp2' op arithmetic needs f32, f16 or bf16 elements, got 'f8E4M3FN'; 'tile.cast' it first}}
  %y = tile.exp2 %x : !tile.rt<64x64xf8E4M3FN, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  %y = "test.source"() : () -> !tile.rt<64x64xf16, warpgroup>
  // expected-error @+1 {{'tile.add' op rhs type '!tile.rt<64x64xf16, warpgroup>' must match lhs type '!tile.rt<64x64xf32, warpgroup>' or be an f32 scalar}}
  %z = tile.add %x, %y : !tile.rt<64x64xf32, warpgroup>, !tile.rt<64x64xf16, warpgroup>
}

// -----

tile.kernel @k(%s: f16) {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  // expected-error @+1 {{'tile.mul' op operand #1 must be register tile or vector or 32-bit float, but got 'f16'}}
  %z = tile.mul %x, %s : !tile.rt<64x64xf32, warpgroup>, f16
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf8E5M2, warpgroup>
  // expected-error @+1 {{'tile.fma' op arithmetic needs f32, f16 or bf16 elements, got 'f8E5M2'}}
  %y = tile.fma %x, %x, %x : !tile.rt<64x64xf8E5M2, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  // expected-error @+1 {{'tile.cast' op must keep the kind of value: tile to tile, vector to vector (it changes only the element type; use 'tile.convert_layout' for layouts)}}
  %y = tile.cast %x : !tile.rt<64x64xf32, warpgroup> to !tile.rv<64xbf16, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  // expected-error @+1 {{'tile.cast' op must keep the shape}}
  %y = tile.cast %x : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x128xbf16, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  // expected-error @+1 {{'tile.cast' op must keep the scope}}
  %y = tile.cast %x : !tile.rt<64x64xf32, warpgroup> to !tile.rt<64x64xbf16, warp>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  // expected-error @+1 {{'tile.cast' op must keep the layout}}
  %y = tile.cast %x : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc> to !tile.rt<64x64xbf16, warpgroup, #tile.row>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  // expected-error @+1 {{'tile.convert_layout' op must keep the element type (it changes only the layout; use 'tile.cast' for element types)}}
  %y = tile.convert_layout %x : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc> to !tile.rt<64x64xbf16, warpgroup, #tile.row>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x32xf32, warpgroup>
  // expected-error @+1 {{'tile.transpose' op result shape must be 32x64, the transpose of the input}}
  %y = tile.transpose %x : !tile.rt<64x32xf32, warpgroup> to !tile.rt<64x32xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x32xf32, warpgroup>
  // expected-error @+1 {{'tile.transpose' op must keep the element type (it only swaps rows and columns)}}
  %y = tile.transpose %x : !tile.rt<64x32xf32, warpgroup> to !tile.rt<32x64xbf16, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x128xf32, warpgroup>
  // expected-error @+1 {{'tile.row_max' op vector length 128 does not match the 64 rows of the tile}}
  %m = tile.row_max %x : !tile.rt<64x128xf32, warpgroup> -> !tile.rv<128xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x128xf32, warpgroup>
  // expected-error @+1 {{'tile.col_sum' op vector length 64 does not match the 128 columns of the tile}}
  %m = tile.col_sum %x : !tile.rt<64x128xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  // expected-error @+1 {{'tile.row_sum' op vector and tile element types differ: 'f16' vs 'f32'}}
  %m = tile.row_sum %x : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf16, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  // expected-error @+1 {{'tile.col_max' op vector and tile scopes differ: warp vs warpgroup}}
  %m = tile.col_max %x : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warp>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  // expected-error @+1 {{'tile.row_max' op vector layout must be #tile.vec<row, #tile.mma_acc> to match the tile, got #tile.vec<col, #tile.mma_acc>}}
  %m = tile.row_max %x : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc> -> !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
}

// -----

// #tile.chunks spreads its lanes over a tile's columns first: over 256
// columns a warp's 32 lanes (runs of 4) hold parts of one row, over the 64
// columns of the vector layout's parent they hold two rows, so that vector
// would not hold the tile's rows as the tile does.
tile.kernel @k() launch(warpgroups = 2) {
  %x = "test.source"() : () -> !tile.rt<128x256xf32, block, #tile.chunks<lanes = 32, warps = 8, run = 4>>
  // expected-error @+1 {{'tile.row_max' op the tile's rows are not placed as #tile.vec<row, #tile.chunks<lanes = 32, warps = 8, run = 4>> places a vector of them; use another tile layout}}
  %m = tile.row_max %x : !tile.rt<128x256xf32, block, #tile.chunks<lanes = 32, warps = 8, run = 4>> -> !tile.rv<128xf32, block, #tile.vec<row, #tile.chunks<lanes = 32, warps = 8, run = 4>>>
}

// -----

// The same layout over 64 columns holds the vector's rows: accepted.
tile.kernel @k() launch(warpgroups = 1) {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, block, #tile.chunks<lanes = 32, warps = 4, run = 4>>
  %m = tile.row_max %x : !tile.rt<64x64xf32, block, #tile.chunks<lanes = 32, warps = 4, run = 4>> -> !tile.rv<64xf32, block, #tile.vec<row, #tile.chunks<lanes = 32, warps = 4, run = 4>>>
  "test.use"(%m) : (!tile.rv<64xf32, block, #tile.vec<row, #tile.chunks<lanes = 32, warps = 4, run = 4>>>) -> ()
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  %i = "test.source"() : () -> !tile.rv<64xf32, warp>
  // expected-error @+1 {{'tile.row_max' op failed to verify that init type matches result type}}
  %m = "tile.row_max"(%x, %i) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!tile.rt<64x64xf32, warpgroup>, !tile.rv<64xf32, warp>) -> !tile.rv<64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  %t = "test.source"() : () -> f32
  // expected-error @+1 {{'tile.row_max' op slack needs an init vector (the running maximum it may keep)}}
  %m = tile.row_max %x slack %t : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %x = "test.source"() : () -> !tile.rt<64x64xf32, warpgroup>
  %t = "test.source"() : () -> f32
  // expected-error @+1 {{'tile.col_max' op slack needs an init vector (the running maximum it may keep)}}
  %m = tile.col_max %x slack %t : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %v = "test.source"() : () -> !tile.rv<32xf32, warpgroup>
  // expected-error @+1 {{'tile.broadcast' op vector length 32 does not match the 64 rows of the tile}}
  %t = tile.broadcast row %v : !tile.rv<32xf32, warpgroup> to !tile.rt<64x32xf32, warpgroup>
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.fill' op fill value 1.000000e+06 overflows 'f16'}}
  %x = tile.fill 1.0e6 : !tile.rt<64x64xf16, warpgroup>
}

// -----

tile.kernel @k() {
  %v = "test.source"() : () -> !tile.rv<64xf8E4M3FN, warpgroup>
  // expected-error @+1 {{'tile.cumsum' op arithmetic needs f32, f16 or bf16 elements}}
  %c = tile.cumsum %v : !tile.rv<64xf8E4M3FN, warpgroup>
}

// -----

tile.kernel @k() {
  %t = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup>
  // expected-error @+1 {{'tile.cumsum' op of a tile needs an axis: 'row' (along each row) or 'col' (along each column)}}
  %c = tile.cumsum %t : !tile.rt<64x64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %v = tile.fill 1.0 : !tile.rv<64xf32, warpgroup>
  // expected-error @+1 {{'tile.cumsum' op of a vector takes no axis}}
  %c = tile.cumsum row %v : !tile.rv<64xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %v = "test.source"() : () -> !tile.rv<64xf8E4M3FN, warpgroup>
  // expected-error @+1 {{'tile.vec_reduce' op arithmetic needs f32, f16 or bf16 elements}}
  %c = tile.vec_reduce max %v : !tile.rv<64xf8E4M3FN, warpgroup>
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.fill' op fill value is infinite, but 'f8E4M3FN' has no infinity}}
  %x = tile.fill 0xFFF0000000000000 : !tile.rt<64x64xf8E4M3FN, warpgroup>
}

// -----

tile.kernel @k(%i: index) {
  %x = "test.source"() : () -> !tile.rt<64x64xf8E4M3FN, warpgroup>
  // expected-error @+1 {{'tile.causal_mask' op cannot fill with neg_inf: 'f8E4M3FN' has no infinity}}
  %y = tile.causal_mask %x[%i, %i] fill neg_inf : !tile.rt<64x64xf8E4M3FN, warpgroup>
}

// -----

tile.kernel @k(%i: index) {
  %x = "test.source"() : () -> !tile.rt<64x64xf8E5M2, warpgroup>
  // expected-error @+1 {{'tile.bound_mask' op arithmetic needs f32, f16 or bf16 elements, got 'f8E5M2'}}
  %y = tile.bound_mask %x[%i, %i] within [%i, %i] fill zero : !tile.rt<64x64xf8E5M2, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup>
  %b = tile.fill 1.0 : !tile.rt<64x16xbf16, warpgroup>
  // expected-error @+1 {{'tile.outer' op operands and result must share the element type and scope}}
  %c = tile.outer %a, %b : !tile.rt<64x16xf32, warpgroup>, !tile.rt<64x16xbf16, warpgroup> -> !tile.rt<64x256xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup>
  %b = tile.fill 1.0 : !tile.rt<64x16xf32, block>
  // expected-error @+1 {{'tile.outer' op operands and result must share the element type and scope}}
  %c = tile.outer %a, %b : !tile.rt<64x16xf32, warpgroup>, !tile.rt<64x16xf32, block> -> !tile.rt<64x256xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup>
  %b = tile.fill 1.0 : !tile.rt<128x16xf32, warpgroup>
  // expected-error @+1 {{'tile.outer' op operands must have the same rows, got 64 and 128}}
  %c = tile.outer %a, %b : !tile.rt<64x16xf32, warpgroup>, !tile.rt<128x16xf32, warpgroup> -> !tile.rt<64x256xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup>
  // expected-error @+1 {{'tile.outer' op result shape must be 64x256 (the operands' rows, the product of their columns), got 64x128}}
  %c = tile.outer %a, %a : !tile.rt<64x16xf32, warpgroup>, !tile.rt<64x16xf32, warpgroup> -> !tile.rt<64x128xf32, warpgroup>
}

// -----

tile.kernel @k() {
  %a = "test.source"() : () -> !tile.rt<64x16xf8E4M3FN, warpgroup>
  // expected-error @+1 {{'tile.outer' op arithmetic needs f32, f16 or bf16 elements}}
  %c = tile.outer %a, %a : !tile.rt<64x16xf8E4M3FN, warpgroup>, !tile.rt<64x16xf8E4M3FN, warpgroup> -> !tile.rt<64x256xf8E4M3FN, warpgroup>
}
