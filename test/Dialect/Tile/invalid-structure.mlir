// RUN: tk-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{kernels return no values}}
tile.kernel @k() -> i32 {
}

// -----

// expected-error @+1 {{'tile.kernel' op kernels return no values}}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "k", function_type = () -> i32} : () -> ()

// -----

// expected-error @+1 {{'tile.kernel' op parameter #1 must be a global view or a scalar (integer, index or float), got '!tile.sem'}}
tile.kernel @k(%a: !tile.gl<?xf32>, %s: !tile.sem) {
}

// -----

// A view chosen at run time has no pointer, shape or tensor map of its own.
tile.kernel @k(%a: !tile.gl<?xf32>, %b: !tile.gl<?xf32>, %c: i1) {
  // expected-error @+1 {{'arith.select' op makes a global view; views are only the kernel's parameters (branch around their uses to choose one)}}
  %v = arith.select %c, %a, %b : !tile.gl<?xf32>
}

// -----

// Nor does one a loop carries.
tile.kernel @k(%a: !tile.gl<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op makes a global view; views are only the kernel's parameters (branch around their uses to choose one)}}
  scf.for %i = %c0 to %n step %c1 iter_args(%v = %a) -> (!tile.gl<?xf32>) {
    scf.yield %v : !tile.gl<?xf32>
  }
}

// -----

// expected-error @+1 {{'tile.kernel' op launches 9 warpgroups; sm_90a allows 1 to 8}}
tile.kernel @k() launch(warpgroups = 9) {
}

// -----

// expected-error @+1 {{'tile.kernel' op launches 0 warpgroups; sm_90a allows 1 to 8}}
tile.kernel @k() launch(warpgroups = 0) {
}

// -----

module attributes {tile.target = "gfx942"} {
  // expected-error @+1 {{'tile.kernel' op launches 5 warpgroups; gfx942 allows 1 to 4}}
  tile.kernel @k() launch(warpgroups = 5) {
  }
}

// -----

// expected-error @+1 {{unknown launch parameter 'threads'; expected warpgroups, grid, cluster or blocks_per_sm}}
tile.kernel @k() launch(threads = 128) {
}

// -----

// expected-error @+1 {{expected grid policy 'tiles' or 'persistent', got 'dynamic'}}
tile.kernel @k() launch(grid = dynamic) {
}

// -----

// expected-error @+1 {{'tile.kernel' op cluster shape must have 1 to 3 dimensions, got 4}}
tile.kernel @k() launch(cluster = [1, 1, 1, 1]) {
}

// -----

// expected-error @+1 {{'tile.kernel' op cluster dimensions must be positive, got 0}}
tile.kernel @k() launch(cluster = [2, 0]) {
}

// -----

// expected-error @+1 {{'tile.kernel' op cluster of 32 blocks exceeds the 16 that sm_90a allows}}
tile.kernel @k() launch(cluster = [4, 8]) {
}

// -----

// expected-error @+1 {{'tile.kernel' op cluster of more than a million blocks exceeds the 16 that sm_90a allows}}
tile.kernel @k() launch(cluster = [2147483647, 2147483647, 2147483647]) {
}

// -----

tile.kernel @k(%n: index) {
  // expected-error @+1 {{'tile.foreach_tile' op body must take 1 index coordinates and the index iteration count for a 1-d tile space}}
  "tile.foreach_tile"(%n) <{operandSegmentSizes = array<i32: 1, 0, 0>}> ({
  ^bb0(%i: index, %t: i32):
    "tile.yield"() : () -> ()
  }) : (index) -> ()
}

// -----

module attributes {tile.target = "gfx950"} {
  // expected-error @+1 {{'tile.kernel' op thread-block clusters need an NVIDIA target, not gfx950}}
  tile.kernel @k() launch(cluster = [2, 1, 1]) {
  }
}

// -----

// 2 x 128 KiB is more than sm_90a's 227 KiB per block.
// expected-error @+1 {{'tile.kernel' op allocates 262144 bytes of shared memory; sm_90a allows at most 231424}}
tile.kernel @k() {
  %a = tile.alloc : !tile.st<2x256x256xbf16>
}

// -----


tile.kernel @k() launch(warpgroups = 2) {
  tile.warp_specialize producer(warpgroups = 1) {
    // expected-error @+1 {{'tile.fill' op produces a block-scope value inside a warp-specialized region, which runs on part of the block; use warpgroup or warp scope}}
    %x = tile.fill 0.0 : !tile.rt<64x64xf32, block>
  } consumer(warpgroups = 1) {
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.fill' op uses layout #tile.mfma<32x32x8, acc> for 64-lane warps, but sm_90a has 32-lane warps}}
  %x = tile.fill 0.0 : !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, acc>>
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() {
    // expected-error @+1 {{'tile.fill' op uses layout #tile.mma_acc for 32-lane warps, but gfx942 has 64-lane warps}}
    %x = tile.fill 0.0 : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() {
    // expected-error @+1 {{'tile.fill' op uses #tile.mfma<32x32x16, acc>, but gfx942 has no 32x32x16 MFMA}}
    %x = tile.fill 0.0 : !tile.rt<32x32xf32, warp, #tile.mfma<32x32x16, acc>>
  }
}

// -----

tile.kernel @k() launch(warpgroups = 2) {
  // expected-error @+1 {{'tile.fill' op result layout #tile.row does not fit the block's 8 warps: rows (64) must be a multiple of 128 for #tile.row (16 per warp, 8 warps)}}
  %x = tile.fill 0.0 : !tile.rt<64x64xf32, block, #tile.row>
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() launch(warpgroups = 2) {
    // expected-error @+1 {{'tile.fill' op result layout #tile.mfma<32x32x8, acc, waves = 2x2> does not fit the block's 8 warps: layout #tile.mfma<32x32x8, acc, waves = 2x2> needs 4 waves, the value has 8}}
    %x = tile.fill 0.0 : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() launch(warpgroups = 2) {
    // expected-error @+1 {{'tile.fill' op result layout #tile.chunks<lanes = 64, warps = 4, run = 8> does not fit the block's 8 warps: #tile.chunks is spread over 4 warps, the value over 8}}
    %x = tile.fill 0.0 : !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 4, run = 8>>
  }
}

// -----

%n = "test.source"() : () -> index
// expected-error @+1 {{'tile.foreach_tile' op must be inside a 'tile.kernel'}}
tile.foreach_tile (%i) in (%n) {
}

// -----

tile.kernel @k(%n: index) {
  // expected-error @+1 {{'tile.foreach_tile' op tile space must have 1 to 3 dimensions, got 4}}
  tile.foreach_tile (%a, %b, %c, %d) in (%n, %n, %n, %n) {
  }
}

// -----

tile.kernel @k(%n: index) {
  // expected-error @+1 {{'tile.foreach_tile' op body must take 2 index coordinates and the index iteration count for a 2-d tile space}}
  tile.foreach_tile (%a) in (%n, %n) {
  }
}

// -----

tile.kernel @k(%n: index) {
  // expected-error @+1 {{'tile.foreach_tile' op group must be positive, got 0}}
  tile.foreach_tile (%a, %b) in (%n, %n) group 0 {
  }
}

// -----

tile.kernel @k(%n: index) {
  // expected-error @+1 {{'tile.foreach_tile' op group must be at most 65536 tile rows, got 4611686018427387904}}
  tile.foreach_tile (%a, %b) in (%n, %n) group 4611686018427387904 {
  }
}

// -----

tile.kernel @k(%n: index) {
  // expected-error @+1 {{'tile.foreach_tile' op group ordering needs a 2-d tile space, got 1 dimensions}}
  tile.foreach_tile (%a) in (%n) group 8 {
  }
}

// -----

tile.kernel @k(%n: index) {
  tile.foreach_tile (%a) in (%n) {
    // expected-error @+1 {{'tile.foreach_tile' op cannot be nested in another 'tile.foreach_tile'}}
    tile.foreach_tile (%b) in (%n) {
    }
  }
}

// -----

tile.kernel @k(%n: index) {
  scf.for %i = %n to %n step %n {
    // expected-error @+1 {{'tile.warp_specialize' op must be directly in a 'tile.kernel' or 'tile.foreach_tile' body, or in the compute region of a 'tile.block_roles'}}
    tile.warp_specialize producer(warpgroups = 1) {
    } consumer(warpgroups = 1) {
    }
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.warp_specialize' op each role needs at least one warpgroup, got 0 producer and 2 consumer}}
  tile.warp_specialize producer(warpgroups = 0) {
  } consumer(warpgroups = 2) {
  }
}

// -----

tile.kernel @k() launch(warpgroups = 2) {
  // expected-error @+1 {{'tile.warp_specialize' op roles use 3 warpgroups but the kernel launches 2}}
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2) {
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() {
    // expected-error @+1 {{'tile.warp_specialize' op register budgets need a target with setmaxnreg; gfx942 has none}}
    tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    } consumer(warpgroups = 1) {
    }
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.warp_specialize' op producer register budget must be a multiple of 8 in [24, 256], got 41}}
  tile.warp_specialize producer(warpgroups = 1, registers = 41) {
  } consumer(warpgroups = 2) {
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.warp_specialize' op consumer register budget must be a multiple of 8 in [24, 256], got 264}}
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 2, registers = 264) {
  }
}

// -----

// Reported as written, not as the 4294967288 of its 32 bits read unsigned.
tile.kernel @k() {
  // expected-error @+1 {{'tile.warp_specialize' op producer register budget must be a multiple of 8 in [24, 256], got -8}}
  tile.warp_specialize producer(warpgroups = 1, registers = -8) {
  } consumer(warpgroups = 2) {
  }
}

// -----

// The producer's budget can only go down from the registers each thread
// starts with (384 threads: 168), the consumers' only up.
tile.kernel @k() launch(warpgroups = 3) {
  // expected-error @+1 {{'tile.warp_specialize' op producer register budget 176 is above the 168 registers each of the kernel's 384 threads starts with; setmaxnreg can only lower it}}
  tile.warp_specialize producer(warpgroups = 1, registers = 176) {
  } consumer(warpgroups = 2, registers = 168) {
  }
}

// -----

tile.kernel @k() launch(warpgroups = 2) {
  // expected-error @+1 {{'tile.warp_specialize' op consumer register budget 240 is below the 248 registers each of the kernel's 256 threads starts with; setmaxnreg can only raise it}}
  tile.warp_specialize producer(warpgroups = 1, registers = 24) {
  } consumer(warpgroups = 1, registers = 240) {
  }
}

// -----

// 32 + 2 x 240 per thread is 65536 registers, the whole register file, but
// 384 threads start with 168 each (64512): the consumers' raise would wait
// forever (it hung on an H100).
tile.kernel @k() launch(warpgroups = 3) {
  // expected-error @+1 {{'tile.warp_specialize' op register budgets need 65536 registers per block; its 384 threads hold 64512 (168 each)}}
  tile.warp_specialize producer(warpgroups = 1, registers = 32) {
  } consumer(warpgroups = 2, registers = 240) {
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{unknown producer role parameter 'threads'; expected warpgroups or registers}}
  tile.warp_specialize producer(threads = 128) {
  } consumer(warpgroups = 1) {
  }
}

// -----

// Only the consumers are staggered.
tile.kernel @k() {
  // expected-error @+1 {{unknown producer role parameter 'stagger'; expected warpgroups or registers}}
  tile.warp_specialize producer(warpgroups = 1, stagger = 100) {
  } consumer(warpgroups = 1) {
  }
}

// -----

tile.kernel @k() {
  tile.warp_specialize producer(warpgroups = 1) {
  // expected-error @+1 {{unknown consumer role parameter 'threads'; expected warpgroups or registers or stagger}}
  } consumer(warpgroups = 1, threads = 128) {
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.warp_specialize' op consumer stagger must be in [0, 100000] cycles, got -1}}
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 1, stagger = -1) {
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.warp_specialize' op consumer stagger must be in [0, 100000] cycles, got 100001}}
  tile.warp_specialize producer(warpgroups = 1) {
  } consumer(warpgroups = 1, stagger = 100001) {
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k() {
    // expected-error @+1 {{'tile.warp_specialize' op consumer stagger is lowered for NVIDIA targets only; gfx942 is not one}}
    tile.warp_specialize producer(warpgroups = 1) {
    } consumer(warpgroups = 1, stagger = 100) {
    }
  }
}

// -----

tile.kernel @k() {
  tile.warp_specialize producer(warpgroups = 1) {
  // expected-error @+1 {{the consumer role needs 'warpgroups = N'}}
  } consumer(registers = 232) {
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{the producer role needs 'warpgroups = N'}}
  tile.warp_specialize producer(registers = 40) {
  } consumer(warpgroups = 1) {
  }
}

// -----

// expected-error @+1 {{'tile.warpgroup_id' op must be inside a 'tile.kernel'}}
%wg = tile.warpgroup_id

// -----

// expected-error @+1 {{'tile.block_id' op must be inside a 'tile.kernel'}}
%block = tile.block_id

// -----

tile.kernel @k(%a: !tile.gl<?x?xbf16>) {
  // expected-error @+1 {{'tile.dim' op dimension index 2 is out of range for a rank-2 global view}}
  %d = tile.dim %a[2] : !tile.gl<?x?xbf16>
}

// -----

// expected-error @+1 {{'tile.return' op expects parent op 'tile.kernel'}}
tile.return

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.yield' op expects parent op to be one of 'tile.foreach_tile, tile.warp_specialize, tile.block_roles'}}
  "tile.yield"() : () -> ()
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.cluster_rank' op the cluster rank needs a kernel launched in clusters of more than one block}}
  %r = tile.cluster_rank
}

// -----

// expected-error @+1 {{'tile.cluster_rank' op must be inside a 'tile.kernel'}}
%r = tile.cluster_rank

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.interleave' must be a unit attribute on an 'scf.for'}}
  tile.barrier block {tile.interleave}
}

// -----

// expected-error @+1 {{'tile.uniform_warpgroup_id' must be a boolean on a 'tile.kernel'}}
tile.kernel @k() attributes {tile.uniform_warpgroup_id} {
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.uniform_warpgroup_id' must be a boolean on a 'tile.kernel'}}
  tile.barrier block {tile.uniform_warpgroup_id = false}
}

// -----

// expected-error @+1 {{'tile.stagger' must be an integer in [0, 100000] (cycles) on a 'tile.kernel'}}
tile.kernel @k() attributes {tile.stagger = 1.5} {
}

// -----

// expected-error @+1 {{'tile.stagger' must be an integer in [0, 100000] (cycles) on a 'tile.kernel'}}
tile.kernel @k() attributes {tile.stagger = -5} {
}

// -----

// expected-error @+1 {{'tile.stagger' must be an integer in [0, 100000] (cycles) on a 'tile.kernel'}}
tile.kernel @k() attributes {tile.stagger = 200000} {
}

// -----

// An i128 is compared as written: 2^64 + 100 must not read as 100.
// expected-error @+1 {{'tile.stagger' must be an integer in [0, 100000] (cycles) on a 'tile.kernel'}}
tile.kernel @k() attributes {tile.stagger = 18446744073709551716 : i128} {
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.stagger' must be an integer in [0, 100000] (cycles) on a 'tile.kernel'}}
  tile.barrier block {tile.stagger = 100}
}

// -----

tile.kernel @part_rows_warpgroup_tile(%row: index) {
  // expected-error @+1 {{'tile.part_rows' op needs a block-scope register tile type, got '!tile.rt<64x128xf32, warpgroup>'}}
  %lo, %hi = tile.part_rows %row of !tile.rt<64x128xf32, warpgroup>
}

// -----

tile.kernel @part_rows_shared_tile(%row: index) {
  // expected-error @+1 {{'tile.part_rows' op needs a block-scope register tile type, got '!tile.st<64x64xbf16>'}}
  %lo, %hi = tile.part_rows %row of !tile.st<64x64xbf16>
}

// -----

%row = "test.source"() : () -> index
// expected-error @+1 {{'tile.part_rows' op must be inside a 'tile.kernel'}}
%lo, %hi = tile.part_rows %row of !tile.rt<64x128xf32, block>

// -----

tile.kernel @prefix_sum_outside(%n: index) {
  // expected-error @+1 {{'tile.prefix_sum' op must be directly in a 'tile.foreach_tile' body}}
  %s = tile.prefix_sum %n
}

// -----

tile.kernel @prefix_sum_nested(%n: index, %c: i1) {
  tile.foreach_tile (%t) in (%n) {
    %x = scf.if %c -> (index) {
      scf.yield %t : index
    } else {
      scf.yield %n : index
    }
    %y = scf.if %c -> (index) {
      %z = arith.addi %t, %t : index
      // expected-error @+1 {{'tile.prefix_sum' op must be directly in a 'tile.foreach_tile' body}}
      %s = tile.prefix_sum %z
      scf.yield %s : index
    } else {
      scf.yield %n : index
    }
  }
}

// -----

tile.kernel @k(%n: index) {
  // expected-error @+1 {{'tile.foreach_tile' op body must take 1 index coordinates, the unit's k-step range and split slot and the index iteration count for a 1-d tile space}}
  "tile.foreach_tile"(%n, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> ({
  ^bb0(%i: index, %t: index):
    "tile.yield"() : () -> ()
  }) : (index, index) -> ()
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent, cluster = [2, 1, 1]) {
  // expected-error @+1 {{'tile.foreach_tile' op stream_k is not supported in cluster kernels (the unit of work is the cluster there)}}
  tile.foreach_tile (%i) in (%n) stream_k(%kb, %ke, %slot) of %n {
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  // expected-error @+1 {{'tile.foreach_tile' op snake and stream_k cannot be combined (stream-K deals out its own order)}}
  tile.foreach_tile (%i) in (%n) snake stream_k(%kb, %ke, %slot) of %n {
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  // expected-error @+1 {{'tile.foreach_tile' op dynamic cannot be combined with snake (blocks take the tiles in order as they ask)}}
  tile.foreach_tile (%i) in (%n) snake dynamic {
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  // expected-error @+1 {{'tile.foreach_tile' op dynamic cannot be combined with stream_k (blocks take the tiles in order as they ask)}}
  tile.foreach_tile (%i) in (%n) dynamic stream_k(%kb, %ke, %slot) of %n {
  }
}

// -----

tile.kernel @k(%n: index) launch(warpgroups = 1, grid = persistent, cluster = [2, 1, 1]) {
  // expected-error @+1 {{'tile.foreach_tile' op dynamic is not supported in cluster kernels}}
  tile.foreach_tile (%i) in (%n) dynamic {
  }
}

// -----

tile.kernel @k(%n: index, %c: i1) launch(grid = persistent) {
  scf.if %c {
    // expected-error @+1 {{'tile.foreach_tile' op dynamic needs the tile loop directly in the kernel or in a 'tile.warp_specialize' role (every thread of the block takes part in passing tiles on)}}
    tile.foreach_tile (%i) in (%n) dynamic {
    }
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  // expected-error @+1 {{'tile.foreach_tile' op table cannot be combined with snake (the launcher's table sets the order)}}
  tile.foreach_tile (%i) in (%n) snake table {
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  // expected-error @+1 {{'tile.foreach_tile' op table cannot be combined with dynamic (the launcher's table sets the order)}}
  tile.foreach_tile (%i) in (%n) dynamic table {
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  // expected-error @+1 {{'tile.foreach_tile' op table cannot be combined with stream_k (the launcher's table sets the order)}}
  tile.foreach_tile (%i) in (%n) table stream_k(%kb, %ke, %slot) of %n {
  }
}

// -----

tile.kernel @k(%n: index) launch(warpgroups = 1, grid = persistent, cluster = [2, 1, 1]) {
  // expected-error @+1 {{'tile.foreach_tile' op table is not supported in cluster kernels}}
  tile.foreach_tile (%i) in (%n) table {
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = tiles) {
  // expected-error @+1 {{'tile.foreach_tile' op table needs a persistent grid (grid = tiles runs one tile per block)}}
  tile.foreach_tile (%i) in (%n) table {
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  tile.warp_specialize producer(warpgroups = 1) {
    tile.foreach_tile (%i) in (%n) table {
    }
  } consumer(warpgroups = 1) {
    // expected-error @+1 {{'tile.foreach_tile' op 'table' must be on every 'tile.foreach_tile' of the kernel or on none (its roles walk the same tiles)}}
    tile.foreach_tile (%i) in (%n) {
    }
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  tile.warp_specialize producer(warpgroups = 1) {
    tile.foreach_tile (%i) in (%n) dynamic {
    }
  } consumer(warpgroups = 1) {
    // expected-error @+1 {{'tile.foreach_tile' op 'dynamic' must be on every 'tile.foreach_tile' of the kernel or on none (its roles walk the same tiles)}}
    tile.foreach_tile (%i) in (%n) {
    }
  }
}

// -----

tile.kernel @k(%n: index) {
  %c0 = arith.constant 0 : index
  %r = tile.foreach_tile (%i) in (%n) iter_args(%a = %c0) -> (index) {
    // expected-error @+1 {{'tile.yield' op must give the 1 carried values of the tile loop ('index'), got ()}}
    tile.yield
  }
}

// -----

tile.kernel @k(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.foreach_tile' op has 1 iter_args but 0 results}}
  "tile.foreach_tile"(%n, %c0) <{operandSegmentSizes = array<i32: 1, 0, 1>}> ({
  ^bb0(%i: index, %t: index, %a: index):
    "tile.yield"(%a) : (index) -> ()
  }) : (index, index) -> ()
}

// -----

tile.kernel @k(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.foreach_tile' op iter_args #0 has type 'index' but its body argument has 'i32' and its result 'index'}}
  %r = "tile.foreach_tile"(%n, %c0) <{operandSegmentSizes = array<i32: 1, 0, 1>}> ({
  ^bb0(%i: index, %t: index, %a: i32):
    "tile.yield"(%c0) : (index) -> ()
  }) : (index, index) -> index
}

// -----

tile.kernel @k(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected 2 types after '->', got 1}}
  %r = tile.foreach_tile (%i) in (%n) iter_args(%a = %c0, %b = %c0) -> (index) {
    tile.yield %a : index
  }
}

// -----

tile.kernel @k() launch(warpgroups = 2) {
  %c0 = arith.constant 0 : index
  tile.warp_specialize producer(warpgroups = 1) {
    // expected-error @+1 {{'tile.yield' op ends a warp role, which carries no values; got 1}}
    tile.yield %c0 : index
  } consumer(warpgroups = 1) {
  }
}

// -----

// expected-error @+1 {{'tile.bound' on parameter #1 must be a value of its type 'i1', got 1 : i32}}
tile.kernel @bound_type(%X: !tile.gl<?x?xf32>, %causal: i1 {tile.bound = 1 : i32}) {
}

// -----

// expected-error @+1 {{'tile.bound' on parameter #0 must be a value of its type 'f32', got "half"}}
tile.kernel @bound_string(%s: f32 {tile.bound = "half"}) {
}

// -----

// expected-error @+1 {{'tile.bound' binds a scalar; parameter #0 is '!tile.gl<?x?xf32>'}}
tile.kernel @bound_view(%X: !tile.gl<?x?xf32> {tile.bound = 0 : i64}) {
}

// -----

// expected-error @+1 {{'tile.bound' must be on a parameter of a 'tile.kernel'}}
llvm.func @bound_func(%causal: i1 {tile.bound = true}) {
  llvm.return
}

// -----

// expected-error @+1 {{unknown tile dialect parameter attribute 'tile.fixed'}}
tile.kernel @unknown_param_attr(%causal: i1 {tile.fixed = true}) {
}

// -----

// expected-error @+1 {{'tile.kernel' op blocks_per_sm must be in [1, 32], got 0}}
tile.kernel @k() launch(warpgroups = 1, blocks_per_sm = 0) {
}

// -----

// Reported as written, not as the 4294967295 of its 32 bits read unsigned.
// expected-error @+1 {{'tile.kernel' op blocks_per_sm must be in [1, 32], got -1}}
tile.kernel @k() launch(warpgroups = 1, blocks_per_sm = -1) {
}

// -----

// expected-error @+1 {{'tile.kernel' op runs 5 blocks of 512 threads per multiprocessor; sm_90a holds at most 2048 threads on one}}
tile.kernel @k() launch(warpgroups = 4, blocks_per_sm = 5) {
}

// -----

// Two blocks per multiprocessor halve what each may allocate.
// expected-error @+1 {{'tile.kernel' op allocates 131072 bytes of shared memory; sm_90a allows at most 114688 per block with 2 blocks per multiprocessor}}
tile.kernel @k() launch(warpgroups = 2, blocks_per_sm = 2) {
  %a = tile.alloc : !tile.st<256x256xbf16>
}


// -----

tile.kernel @device_id_without_views(%g: !tile.gl<?xi32>) {
  // expected-error @+1 {{'tile.device_id' op needs a kernel with a multi-device view parameter (!tile.gl<..., devices = N>)}}
  %d = tile.device_id
}

// -----

tile.kernel @device_count_without_views() {
  // expected-error @+1 {{'tile.device_count' op needs a kernel with a multi-device view parameter (!tile.gl<..., devices = N>)}}
  %d = tile.device_count
}

// -----

// expected-error @+1 {{'tile.device_id' op must be inside a 'tile.kernel'}}
%d = tile.device_id

// -----

// expected-error @+1 {{'tile.device_count' op must be inside a 'tile.kernel'}}
%d = tile.device_count

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  scf.for %i = %n to %n step %n {
    // expected-error @+1 {{'tile.block_roles' op must be directly in a 'tile.kernel' body}}
    tile.block_roles communicate(blocks = 1) (%b, %nb) {
    } compute {
    }
  }
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.block_roles' op needs a kernel with 'grid = persistent': the communicating and computing blocks wait for each other, so all must be resident at once}}
  tile.block_roles communicate(blocks = 1) (%b, %nb) {
  } compute {
  }
}

// -----

tile.kernel @k() launch(grid = persistent, cluster = [2, 1, 1]) {
  // expected-error @+1 {{'tile.block_roles' op is not supported in cluster kernels}}
  tile.block_roles communicate(blocks = 1) (%b, %nb) {
  } compute {
  }
}

// -----

tile.kernel @k() launch(grid = persistent) {
  // expected-error @+1 {{'tile.block_roles' op 'blocks' must be in [1, 1024], got 0}}
  tile.block_roles communicate(blocks = 0) (%b, %nb) {
  } compute {
  }
}

// -----

tile.kernel @k() launch(grid = persistent) {
  // expected-error @+1 {{'tile.block_roles' op a kernel has at most one 'tile.block_roles'}}
  tile.block_roles communicate(blocks = 1) (%b, %nb) {
  } compute {
  }
  tile.block_roles communicate(blocks = 2) (%b, %nb) {
  } compute {
  }
}

// -----

tile.kernel @k() launch(grid = persistent) {
  // expected-error @+1 {{the communicate region takes two arguments: the block's index among the communicating blocks and their number}}
  tile.block_roles communicate(blocks = 1) (%b) {
  } compute {
  }
}

// -----

tile.kernel @k() launch(grid = persistent) {
  // expected-error @+1 {{'tile.block_roles' op the communicate region takes two index arguments: the block's index among the communicating blocks and their number}}
  "tile.block_roles"() ({
  ^bb0(%b: index, %nb: i32):
    tile.yield
  }, {
    tile.yield
  }) {blocks = 1 : i64} : () -> ()
}

// -----

tile.kernel @k() launch(grid = persistent) {
  // expected-error @+1 {{'tile.block_roles' op the compute region takes no arguments}}
  "tile.block_roles"() ({
  ^bb0(%b: index, %nb: index):
    tile.yield
  }, {
  ^bb0(%x: index):
    tile.yield
  }) {blocks = 1 : i64} : () -> ()
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  // expected-error @+1 {{'tile.block_roles' op the communicate region runs no 'tile.foreach_tile': its blocks are numbered by its arguments}}
  tile.block_roles communicate(blocks = 1) (%b, %nb) {
    tile.foreach_tile (%i) in (%n) {
    }
  } compute {
  }
}

// -----

tile.kernel @k(%n: index) launch(grid = persistent) {
  // expected-error @+1 {{'tile.block_roles' op deals tiles to its computing blocks with a strided walk: 'dynamic', 'table' and 'stream_k' tile loops are not supported in its compute region}}
  tile.block_roles communicate(blocks = 1) (%b, %nb) {
  } compute {
    tile.foreach_tile (%i) in (%n) snake {
    }
    tile.foreach_tile (%i) in (%n) table {
    }
  }
}

// -----

tile.kernel @k() launch(grid = persistent) {
  tile.block_roles communicate(blocks = 1) (%b, %nb) {
    // expected-error @+1 {{'tile.yield' op ends a block role, which carries no values; got 1}}
    tile.yield %b : index
  } compute {
  }
}
