// convert-tile-to-rocdl: each kernel becomes an llvm.func with rocdl.kernel
// and its workgroup size; tile.copy moves 16-byte chunks with buffer loads
// into LDS between block barriers; tile.mma issues one MFMA per atom and
// k-step; row reductions exchange lanes with ds_bpermute; foreach_tile deals
// tiles to XCDs.
// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -convert-tile-to-rocdl | FileCheck %s

// CHECK-LABEL: llvm.func @copy_mma
// CHECK-SAME: rocdl.flat_work_group_size = "256,256", rocdl.kernel
// CHECK: rocdl.workgroup.id.x
// CHECK: rocdl.make.buffer.rsrc
// CHECK: rocdl.barrier
// CHECK: rocdl.raw.ptr.buffer.load {{.*}} : vector<4xi32>
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: rocdl.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi16>
// CHECK: rocdl.mfma.f32.32x32x8bf16.1k {{.*}} : (vector<4xi16>, vector<4xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// The result goes out with one buffer store per element, no branches.
// CHECK-NOT: scf.if
// CHECK-COUNT-16: rocdl.raw.ptr.buffer.store {{.*}} : i32
module attributes {tile.target = "gfx942"} {
  tile.kernel @copy_mma(%A: !tile.gl<?x?xbf16>, %C: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x32xbf16, #tile.swizzle<64>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    tile.foreach_tile (%m, %n) in (%c2, %c1) {
      tile.copy %A[%m, %c0] -> %a : !tile.gl<?x?xbf16>, !tile.st<64x32xbf16, #tile.swizzle<64>>
      %d = tile.mma ABt %a, %a : !tile.st<64x32xbf16, #tile.swizzle<64>>, !tile.st<64x32xbf16, #tile.swizzle<64>> -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
      tile.store %d, %C[%m, %n] : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>, !tile.gl<?x?xf32>
    }
  }
}

// -----

// gfx950's doubled-k MFMA takes 8 bf16 per lane, one 16-byte LDS read
// whose 8-byte halves are swapped back where the AMD swizzle flipped them
// (lines 8 .. 15 of every 16).
// CHECK-LABEL: llvm.func @mma950
// CHECK: %[[CHUNK:.*]] = llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [2, 3, 0, 1] : vector<4xi32>
// CHECK: rocdl.mfma.f32.16x16x32.bf16 {{.*}} : (vector<8xbf16>, vector<8xbf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
module attributes {tile.target = "gfx950"} {
  tile.kernel @mma950(%C: !tile.gl<?x?xf32>, %i: index) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x32xbf16, #tile.swizzle<64>>
    %d = tile.mma ABt %a, %a : !tile.st<64x32xbf16, #tile.swizzle<64>>, !tile.st<64x32xbf16, #tile.swizzle<64>> -> !tile.rt<64x64xf32, block, #tile.mfma<16x16x32, acc, waves = 4x1>>
    tile.store %d, %C[%i, %i] : !tile.rt<64x64xf32, block, #tile.mfma<16x16x32, acc, waves = 4x1>>, !tile.gl<?x?xf32>
  }
}

// -----

// An MFMA's result is there when an instruction reads it (the chip waits
// on the registers), so tile.mma_async lowers as tile.mma and tile.mma_wait
// to nothing: four MFMAs a product (a wave's 16 x 64 rows), no wait.
// CHECK-LABEL: llvm.func @mma_async
// CHECK-COUNT-8: rocdl.mfma.f32.16x16x32.bf16
// CHECK-NOT: rocdl.mfma
// CHECK: llvm.return
module attributes {tile.target = "gfx950"} {
  tile.kernel @mma_async(%C: !tile.gl<?x?xf32>, %i: index) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x32xbf16, #tile.swizzle<64>>
    %d = tile.mma_async ABt %a, %a : !tile.st<64x32xbf16, #tile.swizzle<64>>, !tile.st<64x32xbf16, #tile.swizzle<64>> -> !tile.rt<64x64xf32, block, #tile.mfma<16x16x32, acc, waves = 4x1>>
    %e = tile.mma_async ABt %a, %a, %d : !tile.st<64x32xbf16, #tile.swizzle<64>>, !tile.st<64x32xbf16, #tile.swizzle<64>> -> !tile.rt<64x64xf32, block, #tile.mfma<16x16x32, acc, waves = 4x1>>
    tile.mma_wait 0
    tile.store %e, %C[%i, %i] : !tile.rt<64x64xf32, block, #tile.mfma<16x16x32, acc, waves = 4x1>>, !tile.gl<?x?xf32>
  }
}

// -----

// A row reduction inside each wave: lanes holding other columns of a row
// are combined through ds_bpermute; exp2 is v_exp_f32's intrinsic.
// CHECK-LABEL: llvm.func @softmax_rows
// CHECK: llvm.call_intrinsic "llvm.amdgcn.exp2.f32"
// CHECK: rocdl.ds_bpermute
// CHECK: llvm.intr.maxnum
module attributes {tile.target = "gfx942"} {
  tile.kernel @softmax_rows(%L: !tile.gl<?xf32>, %i: index) launch(warpgroups = 1) {
    %s = tile.fill 1.0 : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
    %e = tile.exp2 %s : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
    %m = tile.row_max %e : !tile.rt<64x32xf32, block, #tile.mfma<16x16x16, acc, waves = 4x1>> -> !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<16x16x16, acc, waves = 4x1>>>
    tile.store %m, %L[%i] : !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<16x16x16, acc, waves = 4x1>>>, !tile.gl<?xf32>
  }
}

// -----

// XCD-aware order: block b runs tile (b % 8) * (n / 8) + min(b % 8, n % 8)
// + b / 8 of the n tiles.
// CHECK-LABEL: llvm.func @xcd_order
// CHECK: %[[B:.*]] = rocdl.workgroup.id.x
// CHECK: %[[X:.*]] = arith.constant 8 : index
// CHECK: %[[XCD:.*]] = arith.remui %{{.*}}, %[[X]] : index
// CHECK: arith.divui %{{.*}}, %[[X]] : index
// CHECK: arith.minui %[[XCD]]
module attributes {tile.target = "gfx942"} {
  tile.kernel @xcd_order(%C: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 1) {
    tile.foreach_tile (%t) in (%n) {
      %z = tile.fill 0.0 : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
    }
  }
}

// -----

// A layout conversion that moves data between waves (here the accumulator's
// 2x2 grid to the A fragment, which every wave of a grid row needs whole)
// goes through an LDS scratch tile the pass reserves: barrier, every thread
// stores its elements, barrier, every thread loads its new ones.
// CHECK-LABEL: llvm.func @convert_through_lds
// CHECK: rocdl.barrier
// CHECK-COUNT-16: llvm.store {{.*}} : bf16, !llvm.ptr<3>
// CHECK: rocdl.barrier
// CHECK-COUNT-16: llvm.load {{.*}} : !llvm.ptr<3> -> bf16
module attributes {tile.target = "gfx942"} {
  tile.kernel @convert_through_lds(%O: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 1) {
    %s = tile.fill 1.0 : !tile.rt<64x64xbf16, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
    %t = tile.convert_layout %s : !tile.rt<64x64xbf16, block, #tile.mfma<32x32x8, acc, waves = 2x2>> to !tile.rt<64x64xbf16, block, #tile.mfma<32x32x8, a, waves = 2x2>>
    tile.store %t, %O[%i, %i] : !tile.rt<64x64xbf16, block, #tile.mfma<32x32x8, a, waves = 2x2>>, !tile.gl<?x?xbf16>
  }
}

// -----

// A shared tile that copies fill and only `AB` mmas read as B is stored
// transposed (N x K): the copy scatters each 16-byte chunk's elements, the
// B fragments are then contiguous reads like A's.
// CHECK-LABEL: llvm.func @b_transposed
// CHECK: rocdl.raw.ptr.buffer.load {{.*}} : vector<4xi32>
// CHECK-COUNT-8: llvm.store {{.*}} : bf16, !llvm.ptr<3>
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi16>
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi16>
// CHECK: rocdl.mfma.f32.32x32x8bf16.1k
module attributes {tile.target = "gfx942"} {
  tile.kernel @b_transposed(%B: !tile.gl<?x?xbf16>, %C: !tile.gl<?x?xf32>, %i: index) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x32xbf16, #tile.swizzle<64>>
    %b = tile.alloc : !tile.st<32x64xbf16, #tile.swizzle<128>>
    tile.copy %B[%i, %i] -> %b : !tile.gl<?x?xbf16>, !tile.st<32x64xbf16, #tile.swizzle<128>>
    %d = tile.mma AB %a, %b : !tile.st<64x32xbf16, #tile.swizzle<64>>, !tile.st<32x64xbf16, #tile.swizzle<128>> -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
    tile.store %d, %C[%i, %i] : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>, !tile.gl<?x?xf32>
  }
}

// -----

// The halves of a split copy: a #tile.chunks load is one 16-byte buffer load
// per run (here two per thread: 64x64 bf16 over 256 threads), the store into
// LDS one 16-byte store per run at its swizzled offset.
// CHECK-LABEL: llvm.func @staged_copy
// CHECK-COUNT-2: rocdl.raw.ptr.buffer.load {{.*}} : vector<4xi32>
// CHECK-COUNT-2: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NOT: rocdl.barrier
module attributes {tile.target = "gfx942"} {
  tile.kernel @staged_copy(%A: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
    %r = tile.load %A[%i, %i] : !tile.gl<?x?xbf16> -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 4, run = 8>>
    tile.store %r, %a : !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 4, run = 8>>, !tile.st<64x64xbf16, #tile.swizzle<128>>
  }
}

// -----

// With row bands every element stays in its wave: the conversion is lane
// exchanges (ds_bpermute, one per source register a destination register
// draws from, and a select by lane), no LDS and no barrier.
// CHECK-LABEL: llvm.func @convert_in_wave
// CHECK-NOT: rocdl.barrier
// CHECK: rocdl.ds_bpermute
// CHECK: arith.select
// CHECK-NOT: rocdl.barrier
// CHECK: llvm.return
module attributes {tile.target = "gfx942"} {
  tile.kernel @convert_in_wave(%O: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 1) {
    %s = tile.fill 1.0 : !tile.rt<64x64xbf16, block, #tile.mfma<16x16x16, acc, waves = 4x1>>
    %t = tile.convert_layout %s : !tile.rt<64x64xbf16, block, #tile.mfma<16x16x16, acc, waves = 4x1>> to !tile.rt<64x64xbf16, block, #tile.mfma<16x16x16, a, waves = 4x1>>
    tile.store %t, %O[%i, %i] : !tile.rt<64x64xbf16, block, #tile.mfma<16x16x16, a, waves = 4x1>>, !tile.gl<?x?xbf16>
  }
}

// -----

// A shared tile read into MFMA `a` fragments: each lane's run of 4 k-values
// is one 8-byte LDS read.
// CHECK-LABEL: llvm.func @shared_to_registers
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xbf16>
// CHECK-NOT: llvm.load
module attributes {tile.target = "gfx942"} {
  tile.kernel @shared_to_registers(%O: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x128xbf16, #tile.swizzle<128>>
    %r = tile.load %a : !tile.st<64x128xbf16, #tile.swizzle<128>> -> !tile.rt<64x128xbf16, block, #tile.mfma<16x16x16, a, waves = 4x1>>
    tile.store %r, %O[%i, %i] : !tile.rt<64x128xbf16, block, #tile.mfma<16x16x16, a, waves = 4x1>>, !tile.gl<?x?xbf16>
  }
}

// -----

// A loop marked for the 4-wave interleave: after its MFMAs, scheduling
// groups put one LDS read and one of the loop's prefetch loads (here 2 per
// thread) after each MFMA.
// CHECK-LABEL: llvm.func @interleaved
// CHECK: rocdl.mfma.f32.32x32x8bf16.1k
// CHECK: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
module attributes {tile.target = "gfx942"} {
  tile.kernel @interleaved(%A: !tile.gl<?x?xbf16>, %C: !tile.gl<?x?xf32>, %n: index) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = tile.fill 0.0 : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %zero) -> (!tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>) {
      %r = tile.load %A[%c0, %k] : !tile.gl<?x?xbf16> -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 4, run = 8>>
      %y = tile.mma ABt %a, %a, %x : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x64xbf16, #tile.swizzle<128>> -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
      tile.store %r, %a : !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 4, run = 8>>, !tile.st<64x64xbf16, #tile.swizzle<128>>
      scf.yield %y : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
    } {tile.interleave}
    tile.store %acc, %C[%c0, %c0] : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>, !tile.gl<?x?xf32>
  }
}

// -----

// A transposed A (form AtB, Aᵀ stored K x M in LDS) is read one element per
// k, as a B of form AB is: 4 k-steps of 32x32x8, 16 two-byte LDS reads for
// each operand.
// CHECK-LABEL: llvm.func @atb
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<3> -> i16
// CHECK: rocdl.mfma.f32.32x32x8bf16.1k
module attributes {tile.target = "gfx942"} {
  tile.kernel @atb(%C: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<32x32xbf16, #tile.swizzle<64>>
    %b = tile.alloc : !tile.st<32x32xbf16, #tile.swizzle<64>>
    %d = tile.mma AtB %a, %b : !tile.st<32x32xbf16, #tile.swizzle<64>>, !tile.st<32x32xbf16, #tile.swizzle<64>> -> !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, acc>>
    %c0 = arith.constant 0 : index
    tile.store %d, %C[%c0, %c0] : !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, acc>>, !tile.gl<?x?xf32>
  }
}

// -----

// A register tile stored to LDS: each lane writes its elements at their
// swizzled offsets, two columns at a time where its registers hold pairs
// (an MFMA accumulator holds one column per lane: single stores).
// CHECK-LABEL: llvm.func @to_lds
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : bf16, !llvm.ptr<3>
module attributes {tile.target = "gfx942"} {
  tile.kernel @to_lds() launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
    %s = tile.fill 1.0 : !tile.rt<64x64xbf16, warpgroup, #tile.mfma<16x16x16, acc>>
    tile.store %s, %a : !tile.rt<64x64xbf16, warpgroup, #tile.mfma<16x16x16, acc>>, !tile.st<64x64xbf16, #tile.swizzle<128>>
  }
}

// -----

// A warpgroup barrier that every warpgroup reaches alike (no branch or
// loop bound around it depends on the warpgroup) is the workgroup's
// (s_barrier); `fence async_proxy` emits nothing (CDNA has no async proxy:
// the barrier orders the LDS writes for the waves' own reads).
// CHECK-LABEL: llvm.func @uniform_barrier
// CHECK-NEXT: rocdl.barrier
// CHECK-NEXT: llvm.return
module attributes {tile.target = "gfx942"} {
  tile.kernel @uniform_barrier() launch(warpgroups = 2) {
    tile.fence async_proxy
    tile.barrier warpgroup
  }
}

// -----

// A copy into a shared vector: 64 f32 are 16 runs of 16 bytes, run i read
// by thread i (one buffer load, zeros past the view) and stored at byte
// 16 i, between block barriers; the vector back into registers reads each
// of the thread's elements from LDS. A register tile from a global view
// loads its elements one by one, zero past the view.
// CHECK-LABEL: llvm.func @vector_copy
// CHECK: rocdl.barrier
// CHECK: scf.if
// CHECK: rocdl.raw.ptr.buffer.load {{.*}} : vector<4xi32>
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: rocdl.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: scf.if {{.*}} -> (f32)
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> f32
// From a one-dimensional view the same way (the row is the whole view).
// CHECK: rocdl.make.buffer.rsrc
// CHECK: rocdl.raw.ptr.buffer.load {{.*}} : vector<4xi32>
module attributes {tile.target = "gfx942"} {
  tile.kernel @vector_copy(%A: !tile.gl<?x?xf32>, %S: !tile.gl<?x?xf32>, %O: !tile.gl<?x?xf32>, %V: !tile.gl<?xf32>) launch(warpgroups = 1) {
    %v = tile.alloc : !tile.sv<64xf32>
    %c0 = arith.constant 0 : index
    tile.copy %A[%c0, %c0] -> %v : !tile.gl<?x?xf32>, !tile.sv<64xf32>
    %r = tile.load %v : !tile.sv<64xf32> -> !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>>
    tile.store %r, %O[%c0, %c0] : !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>>, !tile.gl<?x?xf32>
    %t = tile.load %S[%c0, %c0] : !tile.gl<?x?xf32> -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
    tile.store %t, %S[%c0, %c0] : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>, !tile.gl<?x?xf32>
    %c1 = arith.constant 1 : index
    tile.copy %V[%c1] -> %v : !tile.gl<?xf32>, !tile.sv<64xf32>
  }
}

// -----

// Grid-level roles on AMD: workgroups below 4 communicate; the tile loop
// deals its tiles to the others, renumbered from 0 in a grid 4 smaller
// (the grid read from the dispatch packet).
// CHECK-LABEL: llvm.func @block_roles
// CHECK: %[[WG:.*]] = rocdl.workgroup.id.x : i32
// CHECK: %[[B:.*]] = arith.index_castui %[[WG]] : i32 to index
// CHECK: %[[COMM:.*]] = arith.cmpi ult, %[[B]], %{{.*}} : index
// CHECK: scf.if %[[COMM]] {
// CHECK-NEXT: "test.use"(%[[B]], %{{.*}}) : (index, index) -> ()
// CHECK-NEXT: } else {
// CHECK: arith.subi %{{.*}}, %{{.*}} : index
// CHECK: llvm.amdgcn.dispatch.ptr
// CHECK: %[[GRID:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: arith.subi %[[GRID]], %{{.*}} : index
module attributes {tile.target = "gfx942"} {
  tile.kernel @block_roles(%n: index) launch(warpgroups = 1, grid = persistent) {
    tile.block_roles communicate(blocks = 4) (%b, %nb) {
      "test.use"(%b, %nb) : (index, index) -> ()
    } compute {
      tile.foreach_tile (%i) in (%n) {
        "test.use"(%i) : (index) -> ()
      }
    }
  }
}
