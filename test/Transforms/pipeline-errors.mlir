// tile-pipeline's errors: a stage count that does not fit in shared memory
// (from the attribute or the option), a negative option, an option past
// the largest ring (whose byte count would overflow).
// RUN: tk-opt %s -split-input-file -tile-pipeline -verify-diagnostics
// RUN: not tk-opt %s -split-input-file -tile-pipeline=stages=-1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not tk-opt %s -split-input-file -tile-pipeline=stages=5 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tk-opt %s -split-input-file -tile-pipeline=stages=2305843009213693952 2>&1 | FileCheck %s --check-prefix=BIG

// NEG: error: the 'stages' option must be 0 (automatic) or positive, got -1
// BIG: error: the 'stages' option must be at most 16384 (the largest ring), got 2305843009213693952
// OPT: error: 5 stages (from the 'stages' option) need 755792 bytes of shared memory; sm_90a allows 231424, which does not fit even one stage

!view = !tile.gl<?x?xbf16>

tile.kernel @too_many_stages(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<128x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{8 stages (from 'tile.stages') need 524416 bytes of shared memory; sm_90a allows 231424, which fits at most 3 stages}}
  scf.for %k = %c0 to %c1 step %c1 {
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<128x256xbf16>
  } {tile.stages = 8}
}

// -----

!view = !tile.gl<?x?xbf16>

// The buffers fill shared memory exactly (sm_90a: 227 KiB less the 1 KiB kept
// for aligning the base): not even the semaphores fit.
tile.kernel @no_room(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<256x256xbf16>
  %other = tile.alloc : !tile.st<196x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{cannot pipeline: even one stage needs 231440 bytes of shared memory; sm_90a allows 231424}}
  scf.for %k = %c0 to %c1 step %c1 {
    tile.copy %A[%c0, %k] -> %a : !view, !tile.st<256x256xbf16>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// A per-tile copy needs two semaphores; shared memory is already full.
tile.kernel @no_room_per_tile(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<256x256xbf16>
  %other = tile.alloc : !tile.st<196x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%t) in (%c1) {
    // expected-error @+1 {{1 buffer(s) of the copy and their semaphores need 231440 bytes of shared memory; sm_90a allows 231424}}
    tile.copy %A[%t, %c0] -> %a : !view, !tile.st<256x256xbf16>
  }
}

// -----

!view = !tile.gl<?x?xbf16>

// A second buffer for a per-tile copy (tile.stages = 2) must fit too.
tile.kernel @no_room_second_buffer(%A: !view) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<256x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.foreach_tile (%t) in (%c1) {
    // expected-error @+1 {{2 buffer(s) of the copy and their semaphores need 262176 bytes of shared memory; sm_90a allows 231424}}
    tile.copy %A[%t, %c0] -> %a {tile.stages = 2} : !view, !tile.st<256x256xbf16>
  }
}
