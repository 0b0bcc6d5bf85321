// tile-pipeline on AMD targets (no TMA, no mbarriers): a loop's copies are
// split into a global → register load of the next iteration's tile at the
// top of the iteration (it overlaps the MFMAs) and a register → LDS store
// at its end between two block barriers; the first iteration's tiles are
// loaded and stored before the loop. The staged tile is `#tile.chunks`
// (16-byte runs per thread, the kernel's waves). Loops it must not touch
// are left alone with a remark; tile.stages = 1 (or stages=1) keeps the
// copies synchronous.
// With two warpgroups (8 waves) and LDS for three stages of every copied
// buffer (gfx950), the loop becomes HipKittens' 8-wave ping-pong instead.
// RUN: tk-opt %s -split-input-file -tile-pipeline -verify-diagnostics | FileCheck %s
// RUN: tk-opt %s -split-input-file -tile-pipeline=stages=1 2>/dev/null | FileCheck %s --check-prefix=ONE
// Other positive counts pipeline as the default does (the AMD forms fix
// their own LDS stages); counts the option does not allow are errors.
// RUN: tk-opt %s -split-input-file -tile-pipeline=stages=3 2>/dev/null | FileCheck %s
// RUN: not tk-opt %s -split-input-file -tile-pipeline=stages=-1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not tk-opt %s -split-input-file -tile-pipeline=stages=16385 2>&1 | FileCheck %s --check-prefix=BIG
// NEG: error: the 'stages' option must be 0 (automatic) or positive, got -1
// BIG: error: the 'stages' option must be at most 16384 (the largest ring), got 16385

// CHECK-LABEL: tile.kernel @gemm_steps
// CHECK:       tile.foreach_tile (%[[M:.*]], %[[N:.*]]) in
// CHECK:         %[[A0:.*]] = tile.load %arg0[%[[M]], %[[C0:.*]]] : !tile.gl<?x?xbf16> -> !tile.rt<128x64xbf16, block, #tile.chunks<lanes = 64, warps = 8, run = 8>>
// CHECK:         %[[B0:.*]] = tile.load %arg1[%[[C0]], %[[N]]] : !tile.gl<?x?xbf16> -> !tile.rt<64x256xbf16, block, #tile.chunks<lanes = 64, warps = 8, run = 8>>
// CHECK-NEXT:    tile.barrier block
// CHECK-NEXT:    tile.store %[[A0]], %[[A:.*]] :
// CHECK-NEXT:    tile.store %[[B0]], %[[B:.*]] :
// CHECK-NEXT:    tile.barrier block
// CHECK:         scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK-NEXT:      %[[K1:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK-NEXT:      %[[AN:.*]] = tile.load %arg0[%[[M]], %[[K1]]]
// CHECK-NEXT:      %[[BN:.*]] = tile.load %arg1[%[[K1]], %[[N]]]
// CHECK-NEXT:      tile.mma AB %[[A]], %[[B]]
// CHECK-NEXT:      tile.barrier block
// CHECK-NEXT:      tile.store %[[AN]], %[[A]]
// CHECK-NEXT:      tile.store %[[BN]], %[[B]]
// CHECK-NEXT:      tile.barrier block
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NOT:   tile.copy
// ONE-LABEL: tile.kernel @gemm_steps
// ONE: tile.copy %arg0
// ONE: tile.copy %arg1
module attributes {tile.target = "gfx942"} {
  tile.kernel @gemm_steps(%A: !tile.gl<?x?xbf16>, %B: !tile.gl<?x?xbf16>, %C: !tile.gl<?x?xbf16>, %tm: index, %tn: index, %tk: index) launch(warpgroups = 2) {
    %a = tile.alloc : !tile.st<128x64xbf16>
    %b = tile.alloc : !tile.st<64x256xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.foreach_tile (%m, %n) in (%tm, %tn) {
      %zero = tile.fill 0.0 : !tile.rt<128x256xf32, block>
      %acc = scf.for %k = %c0 to %tk step %c1 iter_args(%x = %zero) -> (!tile.rt<128x256xf32, block>) {
        tile.copy %A[%m, %k] -> %a : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
        tile.copy %B[%k, %n] -> %b : !tile.gl<?x?xbf16>, !tile.st<64x256xbf16>
        %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !tile.rt<128x256xf32, block>
        scf.yield %y : !tile.rt<128x256xf32, block>
      }
      %out = tile.cast %acc : !tile.rt<128x256xf32, block> to !tile.rt<128x256xbf16, block>
      tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !tile.gl<?x?xbf16>
    }
  }
}

// -----

// Coordinates computed in the body are recomputed for the next iteration
// (here: the key tile of an attention-like loop, from the induction variable
// and a 4-d view); copies outside loops stay synchronous. With one
// warpgroup (one wave per SIMD) the loop is marked for the 4-wave
// interleave, which the lowering carries out.
// CHECK-LABEL: tile.kernel @computed_coords
// CHECK:       tile.copy %arg0
// CHECK:       scf.for %[[J:.*]] =
// CHECK-NEXT:    %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[J1]], %{{.*}} : index
// CHECK-NEXT:    tile.load %arg1[%{{.*}}, %{{.*}}, %[[R]], %{{.*}}] : !tile.gl<?x?x?x64xbf16> -> !tile.rt<64x64xbf16, block, #tile.chunks<lanes = 64, warps = 4, run = 8>>
// CHECK:         } {tile.interleave}
module attributes {tile.target = "gfx950"} {
  tile.kernel @computed_coords(%Q: !tile.gl<?x?x?x64xbf16>, %K: !tile.gl<?x?x?x64xbf16>, %n: index, %off: index) launch(warpgroups = 1) {
    %q = tile.alloc : !tile.st<64x64xbf16>
    %k = tile.alloc : !tile.st<64x64xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.copy %Q[%c0, %c0, %c0, %c0] -> %q : !tile.gl<?x?x?x64xbf16>, !tile.st<64x64xbf16>
    scf.for %j = %c0 to %n step %c1 {
      %row = arith.addi %j, %off : index
      tile.copy %K[%c0, %c0, %row, %c0] -> %k : !tile.gl<?x?x?x64xbf16>, !tile.st<64x64xbf16>
      %s = tile.mma ABt %q, %k : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, block>
    }
  }
}

// -----

// The copied buffer is read after the loop: the last iteration's store of
// a tile past the end would overwrite it.
// CHECK-LABEL: tile.kernel @used_after
// CHECK: tile.copy
module attributes {tile.target = "gfx942"} {
  tile.kernel @used_after(%A: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x64xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-remark @+1 {{not pipelined: a copied buffer is used outside the loop}}
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %A[%c0, %k] -> %a : !tile.gl<?x?xbf16>, !tile.st<64x64xbf16>
    }
    %s = tile.mma ABt %a, %a : !tile.st<64x64xbf16>, !tile.st<64x64xbf16> -> !tile.rt<64x64xf32, block>
  }
}

// -----

// A tile that does not spread over the kernel's threads in 16-byte runs.
// CHECK-LABEL: tile.kernel @ragged_runs
// CHECK: tile.copy
module attributes {tile.target = "gfx942"} {
  tile.kernel @ragged_runs(%A: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 2) {
    %a = tile.alloc : !tile.st<16x64xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-remark @+1 {{not pipelined: the staged tile does not fit: layout #tile.chunks<lanes = 64, warps = 8, run = 8> does not fit this block-scope register tile: a 16x64 tile in runs of 8 does not spread evenly over 512 threads}}
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %A[%c0, %k] -> %a : !tile.gl<?x?xbf16>, !tile.st<16x64xbf16>
      %s = tile.mma ABt %a, %a : !tile.st<16x64xbf16>, !tile.st<16x64xbf16> -> !tile.rt<16x16xf32, block>
    }
  }
}

// -----

// A copy into a shared vector has no staged form.
// CHECK-LABEL: tile.kernel @vector_copy
// CHECK: tile.copy
module attributes {tile.target = "gfx942"} {
  tile.kernel @vector_copy(%A: !tile.gl<?xf32>, %n: index) launch(warpgroups = 1) {
    %v = tile.alloc : !tile.sv<64xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-remark @+1 {{not pipelined: a copy fills a shared vector, which has no staged form}}
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %A[%k] -> %v : !tile.gl<?xf32>, !tile.sv<64xf32>
    }
  }
}

// -----

// The 8-wave ping-pong on gfx950: three stages per buffer, tile 0 copied
// into stage 0 by the whole block, then warpgroup 1 falls one barrier
// behind; each iteration is a memory phase (this thread's runs of the next
// tiles into stage (k + 1) mod 3) and a compute phase (stage k mod 3), each
// ended by a block barrier, so the warpgroups alternate; warpgroup 0 makes
// up the extra barrier after the loop.
// CHECK-LABEL: tile.kernel @ping_pong
// CHECK-DAG:   %[[RA:.*]] = tile.alloc : !tile.st<3x128x64xbf16>
// CHECK-DAG:   %[[RB:.*]] = tile.alloc : !tile.st<3x64x256xbf16>
// CHECK:       %[[S0:.*]] = tile.slot %[[RA]][%[[ZERO:.*]]]
// CHECK-NEXT:  tile.copy %arg0[{{.*}}] -> %[[S0]]
// CHECK:       tile.copy %arg1
// CHECK-NEXT:  %[[WG:.*]] = tile.warpgroup_id
// CHECK-NEXT:  %[[LATE:.*]] = arith.cmpi eq, %[[WG]], %[[C1:.*]] : index
// CHECK-NEXT:  scf.if %[[LATE]] {
// CHECK-NEXT:    tile.barrier block
// CHECK:       scf.for
// CHECK:         %[[CUR:.*]] = arith.remui %[[K:.*]], %[[THREE:.*]] : index
// CHECK:         %[[NEXT:.*]] = arith.remui %{{.*}}, %[[THREE]] : index
// CHECK:         %[[AN:.*]] = tile.load %arg0{{.*}} -> !tile.rt<128x64xbf16, block, #tile.chunks<lanes = 64, warps = 8, run = 8>>
// CHECK-NEXT:    %[[SA:.*]] = tile.slot %[[RA]][%[[NEXT]]]
// CHECK-NEXT:    tile.store %[[AN]], %[[SA]]
// CHECK:         tile.barrier block
// CHECK-NEXT:    %[[CA:.*]] = tile.slot %[[RA]][%[[CUR]]]
// CHECK-NEXT:    %[[CB:.*]] = tile.slot %[[RB]][%[[CUR]]]
// CHECK-NEXT:    tile.mma AB %[[CA]], %[[CB]]
// CHECK-NEXT:    tile.barrier block
// CHECK-NEXT:    scf.yield
// CHECK:       %[[EARLY:.*]] = arith.cmpi eq, %[[WG]], %[[ZERO]] : index
// CHECK-NEXT:  scf.if %[[EARLY]] {
// CHECK-NEXT:    tile.barrier block
module attributes {tile.target = "gfx950"} {
  tile.kernel @ping_pong(%A: !tile.gl<?x?xbf16>, %B: !tile.gl<?x?xbf16>, %C: !tile.gl<?x?xbf16>, %tm: index, %tn: index, %tk: index) launch(warpgroups = 2) {
    %a = tile.alloc : !tile.st<128x64xbf16>
    %b = tile.alloc : !tile.st<64x256xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.foreach_tile (%m, %n) in (%tm, %tn) {
      %zero = tile.fill 0.0 : !tile.rt<128x256xf32, block>
      %acc = scf.for %k = %c0 to %tk step %c1 iter_args(%x = %zero) -> (!tile.rt<128x256xf32, block>) {
        tile.copy %A[%m, %k] -> %a : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
        tile.copy %B[%k, %n] -> %b : !tile.gl<?x?xbf16>, !tile.st<64x256xbf16>
        %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !tile.rt<128x256xf32, block>
        scf.yield %y : !tile.rt<128x256xf32, block>
      }
      %out = tile.cast %acc : !tile.rt<128x256xf32, block> to !tile.rt<128x256xbf16, block>
      tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !tile.gl<?x?xbf16>
    }
  }
}

// -----

// Over the LDS budget (gfx942: 64 KiB; here 3 x 32 KiB): the tile copied
// once before the loop and read there only as the mma's A operand is kept
// in registers -- copied through the buffer of a same-typed tile only the
// loop uses, loaded once -- and its buffer is freed; the loop is then
// pipelined as usual (that buffer's use before the loop is fine).
// CHECK-LABEL: tile.kernel @a_in_registers
// CHECK-NOT:   tile.alloc : !tile.st<128x128xbf16>{{$}}
// CHECK:       %[[K:.*]] = tile.alloc : !tile.st<128x128xbf16>
// CHECK:       %[[V:.*]] = tile.alloc : !tile.st<128x128xbf16>
// CHECK-NOT:   tile.alloc
// CHECK:       tile.copy %arg0[{{.*}}] -> %[[K]]
// CHECK-NEXT:  %[[Q:.*]] = tile.load %[[K]] : !tile.st<128x128xbf16> -> !tile.rt<128x128xbf16, block>
// CHECK:       scf.for
// CHECK:         tile.mma ABt %[[Q]], %[[K]]
module attributes {tile.target = "gfx942"} {
  tile.kernel @a_in_registers(%Q: !tile.gl<?x?xbf16>, %K: !tile.gl<?x?xbf16>, %V: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 2) {
    %q = tile.alloc : !tile.st<128x128xbf16>
    %k = tile.alloc : !tile.st<128x128xbf16>
    %v = tile.alloc : !tile.st<128x128xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = tile.fill 0.0 : !tile.rt<128x128xf32, block>
    // expected-remark @+1 {{the copied tile is kept in registers (the kernel's shared tiles exceed gfx942's 65536 bytes of LDS): it is copied through a buffer the loop refills and loaded once}}
    tile.copy %Q[%c0, %c0] -> %q : !tile.gl<?x?xbf16>, !tile.st<128x128xbf16>
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!tile.rt<128x128xf32, block>) {
      tile.copy %K[%j, %c0] -> %k : !tile.gl<?x?xbf16>, !tile.st<128x128xbf16>
      tile.copy %V[%j, %c0] -> %v : !tile.gl<?x?xbf16>, !tile.st<128x128xbf16>
      %s = tile.mma ABt %q, %k : !tile.st<128x128xbf16>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
      %p = tile.cast %s : !tile.rt<128x128xf32, block> to !tile.rt<128x128xbf16, block>
      %y = tile.mma AB %p, %v, %acc : !tile.rt<128x128xbf16, block>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
      scf.yield %y : !tile.rt<128x128xf32, block>
    }
  }
}

// -----

// The same over budget, with the program loading Q into registers itself
// before the loop: the copy goes through K's buffer and the load reads it
// there; Q's buffer is freed.
// CHECK-LABEL: tile.kernel @loaded_by_program
// CHECK-NOT:   tile.alloc : !tile.st<128x128xbf16>{{$}}
// CHECK:       %[[K:.*]] = tile.alloc : !tile.st<128x128xbf16>
// CHECK:       %[[V:.*]] = tile.alloc : !tile.st<128x128xbf16>
// CHECK-NOT:   tile.alloc
// CHECK:       tile.copy %arg0[{{.*}}] -> %[[K]]
// CHECK-NEXT:  %[[Q:.*]] = tile.load %[[K]] : !tile.st<128x128xbf16> -> !tile.rt<128x128xbf16, block>
// CHECK:       scf.for
// CHECK:         tile.mma ABt %[[Q]], %[[K]]
module attributes {tile.target = "gfx942"} {
  tile.kernel @loaded_by_program(%Q: !tile.gl<?x?xbf16>, %K: !tile.gl<?x?xbf16>, %V: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 2) {
    %q = tile.alloc : !tile.st<128x128xbf16>
    %k = tile.alloc : !tile.st<128x128xbf16>
    %v = tile.alloc : !tile.st<128x128xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = tile.fill 0.0 : !tile.rt<128x128xf32, block>
    // expected-remark @+1 {{the copied tile is kept in registers (the kernel's shared tiles exceed gfx942's 65536 bytes of LDS): it is copied through a buffer the loop refills and loaded once}}
    tile.copy %Q[%c0, %c0] -> %q : !tile.gl<?x?xbf16>, !tile.st<128x128xbf16>
    %q_r = tile.load %q : !tile.st<128x128xbf16> -> !tile.rt<128x128xbf16, block>
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!tile.rt<128x128xf32, block>) {
      tile.copy %K[%j, %c0] -> %k : !tile.gl<?x?xbf16>, !tile.st<128x128xbf16>
      tile.copy %V[%j, %c0] -> %v : !tile.gl<?x?xbf16>, !tile.st<128x128xbf16>
      %s = tile.mma ABt %q_r, %k : !tile.rt<128x128xbf16, block>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
      %p = tile.cast %s : !tile.rt<128x128xf32, block> to !tile.rt<128x128xbf16, block>
      %y = tile.mma AB %p, %v, %acc : !tile.rt<128x128xbf16, block>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
      scf.yield %y : !tile.rt<128x128xf32, block>
    }
  }
}

// -----

// Left alone: Q is loaded twice, so it keeps its own buffer (the kernel
// stays over the budget, which the lowering reports).
// CHECK-LABEL: tile.kernel @loaded_twice
// CHECK:       %[[Q:.*]] = tile.alloc : !tile.st<128x128xbf16>
// CHECK:       tile.copy %arg0[{{.*}}] -> %[[Q]]
// CHECK-NEXT:  tile.load %[[Q]] : !tile.st<128x128xbf16> -> !tile.rt<128x128xbf16, block>
// CHECK-NEXT:  tile.load %[[Q]] : !tile.st<128x128xbf16> -> !tile.rt<128x128xbf16, block>
module attributes {tile.target = "gfx942"} {
  tile.kernel @loaded_twice(%Q: !tile.gl<?x?xbf16>, %K: !tile.gl<?x?xbf16>, %V: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 2) {
    %q = tile.alloc : !tile.st<128x128xbf16>
    %k = tile.alloc : !tile.st<128x128xbf16>
    %v = tile.alloc : !tile.st<128x128xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = tile.fill 0.0 : !tile.rt<128x128xf32, block>
    tile.copy %Q[%c0, %c0] -> %q : !tile.gl<?x?xbf16>, !tile.st<128x128xbf16>
    %q_r = tile.load %q : !tile.st<128x128xbf16> -> !tile.rt<128x128xbf16, block>
    %q_again = tile.load %q : !tile.st<128x128xbf16> -> !tile.rt<128x128xbf16, block>
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!tile.rt<128x128xf32, block>) {
      tile.copy %K[%j, %c0] -> %k : !tile.gl<?x?xbf16>, !tile.st<128x128xbf16>
      tile.copy %V[%j, %c0] -> %v : !tile.gl<?x?xbf16>, !tile.st<128x128xbf16>
      %s = tile.mma ABt %q_r, %k : !tile.rt<128x128xbf16, block>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
      %p = tile.cast %s : !tile.rt<128x128xf32, block> to !tile.rt<128x128xbf16, block>
      %y = tile.mma AB %p, %v, %acc : !tile.rt<128x128xbf16, block>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
      %y2 = tile.mma AB %q_again, %v, %y : !tile.rt<128x128xbf16, block>, !tile.st<128x128xbf16> -> !tile.rt<128x128xf32, block>
      scf.yield %y2 : !tile.rt<128x128xf32, block>
    }
  }
}

// -----

// A persistent grid asked for by the program is not scheduled on AMD yet:
// one tile per block, with a remark.
// CHECK-LABEL: tile.kernel @persistent_on_amd
// CHECK-SAME: launch(warpgroups = 1)
// CHECK-NOT: persistent
module attributes {tile.target = "gfx942"} {
  // expected-remark @+1 {{one tile per block on AMD: persistent grids are not scheduled there yet}}
  tile.kernel @persistent_on_amd(%n: index) launch(warpgroups = 1, grid = persistent) {
    tile.foreach_tile (%t) in (%n) {
    }
  }
}
