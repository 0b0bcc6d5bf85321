// Reductions, scans and layout conversions whose elements cross lanes and
// warps (Exchange.cpp, Reductions.cpp): what stays in registers and lanes
// takes no shared memory; what crosses warps gets its own scratch (a slot
// per warpgroup), written between two warpgroup barriers. (The manifest's
// shared_memory_bytes adds 1024 for aligning the dynamic shared memory.)
// RUN: tk-opt %s -split-input-file -convert-tile-to-nvvm | FileCheck %s

// A row sum of the accumulator stays in a warp: registers and two
// butterflies, no barrier, no scratch.
// CHECK: tile.abi = {row_sum = {{.*}}shared_memory_bytes = 0 : i64
// CHECK-LABEL: llvm.func @row_sum
// CHECK-NOT: nvvm.barrier
// CHECK-COUNT-2: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return
tile.kernel @row_sum(%O: !tile.gl<?xf32>) launch(warpgroups = 1) {
  %x = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %s = tile.row_sum %x : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc> -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %c0 = arith.constant 0 : index
  tile.store %s, %O[%c0] : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, !tile.gl<?xf32>
}

// -----

// A column sum crosses the warpgroup's 4 warps: butterflies over the 8
// lanes of a column, then scratch[col][warp] (64 x 4 f32, one slot for
// each of the 2 warpgroups: 2 KiB) between warpgroup barriers (named
// barrier 1 + warpgroup, 128 threads), and 4 reads per column added in
// warp order.
// CHECK: tile.abi = {col_sum = {{.*}}shared_memory_bytes = 3072 : i64
// CHECK-LABEL: llvm.func @col_sum
// CHECK-COUNT-3: nvvm.shfl.sync bfly
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
tile.kernel @col_sum(%O: !tile.gl<?xf32>) launch(warpgroups = 2) {
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  %s = tile.col_sum %x : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc> -> !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  %c0 = arith.constant 0 : index
  tile.store %s, %O[%c0] : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>, !tile.gl<?xf32>
}

// -----

// A running sum along each row stays in a warp: the 4 lanes of a row scan
// with shuffles (Hillis-Steele: 2 steps, then the lane before's and the
// last lane's value), the registers in order; no scratch.
// CHECK: tile.abi = {cumsum_row = {{.*}}shared_memory_bytes = 0 : i64
// CHECK-LABEL: llvm.func @cumsum_row
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
tile.kernel @cumsum_row(%O: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  %s = tile.cumsum row %x : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  %c0 = arith.constant 0 : index
  tile.store %s, %O[%c0, %c0] : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>, !tile.gl<?x?xf32>
}

// -----

// A running sum of a row vector crosses warps (16 rows each): lanes, then
// the registers, then the 4 warps' block totals through a scratch of 64 /
// 16 f32 per warpgroup, each read once.
// CHECK: tile.abi = {cumsum_vector = {{.*}}shared_memory_bytes = 1040 : i64
// CHECK-LABEL: llvm.func @cumsum_vector
// CHECK: nvvm.shfl.sync idx
// CHECK: nvvm.barrier id
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier id
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
tile.kernel @cumsum_vector(%O: !tile.gl<?xf32>) launch(warpgroups = 1) {
  %v = tile.fill 1.0 : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %s = tile.cumsum %v exclusive : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %c0 = arith.constant 0 : index
  tile.store %s, %O[%c0] : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, !tile.gl<?xf32>
}

// -----

// A column vector is held by every warp: its scan and total stay in a warp.
// CHECK: tile.abi = {column_vector = {{.*}}shared_memory_bytes = 0 : i64
// CHECK-LABEL: llvm.func @column_vector
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
tile.kernel @column_vector(%O: !tile.gl<?xf32>) launch(warpgroups = 1) {
  %v = tile.fill 1.0 : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  %s = tile.cumsum %v : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  %t = tile.vec_reduce sum %s : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  %u = tile.add %s, %t : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>, f32
  %c0 = arith.constant 0 : index
  tile.store %u, %O[%c0] : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>, !tile.gl<?xf32>
}

// -----

// The total of a row vector: butterflies over the 8 lanes of a warp's
// rows, then the 4 warps' partials (4 f32 of scratch).
// CHECK: tile.abi = {vec_reduce = {{.*}}shared_memory_bytes = 1040 : i64
// CHECK-LABEL: llvm.func @vec_reduce
// CHECK-COUNT-3: nvvm.shfl.sync bfly
// CHECK: nvvm.barrier id
// CHECK: nvvm.barrier id
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.intr.maxnum
tile.kernel @vec_reduce(%O: !tile.gl<?xf32>) launch(warpgroups = 1) {
  %v = tile.fill 1.0 : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %m = tile.vec_reduce max %v : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %u = tile.add %v, %m : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, f32
  %c0 = arith.constant 0 : index
  tile.store %u, %O[%c0] : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, !tile.gl<?xf32>
}

// -----

// A tile moved to #tile.col keeps every element in its warp: indexed
// shuffles, no barrier, no scratch.
// CHECK: tile.abi = {in_warp = {{.*}}shared_memory_bytes = 0 : i64
// CHECK-LABEL: llvm.func @in_warp
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
tile.kernel @in_warp(%O: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  %y = tile.convert_layout %x : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc> to !tile.rt<64x64xf32, warpgroup, #tile.col>
  %c0 = arith.constant 0 : index
  tile.store %y, %O[%c0, %c0] : !tile.rt<64x64xf32, warpgroup, #tile.col>, !tile.gl<?x?xf32>
}

// -----

// A row vector used as a column vector crosses warps: each thread writes
// its 2 elements, reads its 16 (64 f32 of scratch).
// CHECK: tile.abi = {row_to_col = {{.*}}shared_memory_bytes = 1280 : i64
// CHECK-LABEL: llvm.func @row_to_col
// CHECK: nvvm.barrier id
// CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier id
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
tile.kernel @row_to_col(%O: !tile.gl<?xf32>) launch(warpgroups = 1) {
  %v = tile.fill 1.0 : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %w = tile.convert_layout %v : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>> to !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  %c0 = arith.constant 0 : index
  tile.store %w, %O[%c0] : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>, !tile.gl<?xf32>
}

// -----

// tile.outer of two 64 x 16 tiles: every operand row stays in its warp, so
// both gathers are indexed shuffles (one per source element a register
// needs, shared by the registers that need the same one), then multiplies;
// no barrier, no scratch.
// CHECK: tile.abi = {outer = {{.*}}shared_memory_bytes = 0 : i64
// CHECK-LABEL: llvm.func @outer
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.shfl.sync idx
// CHECK: llvm.fmul
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
tile.kernel @outer(%O: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
  %a = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %b = tile.fill 2.0 : !tile.rt<64x16xf32, warpgroup, #tile.col>
  %c = tile.outer %a, %b : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>, !tile.rt<64x16xf32, warpgroup, #tile.col> -> !tile.rt<64x256xf32, warpgroup, #tile.row>
  %c0 = arith.constant 0 : index
  tile.store %c, %O[%c0, %c0] : !tile.rt<64x256xf32, warpgroup, #tile.row>, !tile.gl<?x?xf32>
}

// -----

// In bf16 the products go two at a time: one multiply of 2-element vectors
// (mul.bf16x2) per pair of result registers, no scalar multiply. f32
// products stay scalar.
// CHECK-LABEL: llvm.func @outer_bf16
// CHECK: nvvm.shfl.sync idx
// CHECK-NOT: llvm.fmul {{.*}} : bf16
// CHECK: llvm.fmul {{.*}} : vector<2xbf16>
// CHECK-NOT: llvm.fmul {{.*}} : bf16
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @outer_f32
// CHECK-NOT: vector<2xf32>
// CHECK: llvm.fmul {{.*}} : f32
// CHECK-NOT: vector<2xf32>
// CHECK: llvm.return
tile.kernel @outer_bf16(%O: !tile.gl<?x?xbf16>) launch(warpgroups = 1) {
  %a = tile.fill 1.0 : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>
  %c = tile.outer %a, %a : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>, !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc> -> !tile.rt<64x256xbf16, warpgroup, #tile.mma_acc>
  %c0 = arith.constant 0 : index
  tile.store %c, %O[%c0, %c0] : !tile.rt<64x256xbf16, warpgroup, #tile.mma_acc>, !tile.gl<?x?xbf16>
}
tile.kernel @outer_f32(%O: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
  %a = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %c = tile.outer %a, %a : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>, !tile.rt<64x16xf32, warpgroup, #tile.mma_acc> -> !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
  %c0 = arith.constant 0 : index
  tile.store %c, %O[%c0, %c0] : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>, !tile.gl<?x?xf32>
}

// -----

// f32 exponentials and logarithms of the math dialect in a kernel go to the
// special-function unit like tile.exp's (ex2.approx after a multiply by
// log2 e).
// CHECK-LABEL: llvm.func @scalar_exp
// CHECK: llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK: nvvm.ex2.approx.ftz.f
// CHECK-NOT: math.exp
tile.kernel @scalar_exp(%O: !tile.gl<?xf32>, %x: f32) launch(warpgroups = 1) {
  %e = math.exp %x : f32
  %v = tile.fill 0.0 : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %w = tile.add %v, %e : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, f32
  %c0 = arith.constant 0 : index
  tile.store %w, %O[%c0] : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, !tile.gl<?xf32>
}
