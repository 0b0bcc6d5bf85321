// tile-pipeline's override-stages: a positive `stages` option replaces the
// loops' tile.stages (one program compiled with another ring depth); without
// it, or with stages = 0, the attribute decides.
// RUN: tk-opt %s -tile-pipeline | FileCheck %s --check-prefix=ATTR
// RUN: tk-opt %s -tile-pipeline=stages=4 | FileCheck %s --check-prefix=ATTR
// RUN: tk-opt %s -tile-pipeline="override-stages=true" | FileCheck %s --check-prefix=ATTR
// RUN: tk-opt %s -tile-pipeline="stages=4 override-stages=true" | FileCheck %s --check-prefix=OVER
// RUN: not tk-opt %s -tile-pipeline="stages=16 override-stages=true" 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// The attention driver's option passes through to the pass.
// RUN: rm -rf %t && tk-opt %s -tile-to-nvidia="out=%t cubin=false stages=4 override-stages=true" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/ring.ptx

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<64x128xf32, warpgroup>

// ATTR-LABEL: tile.kernel @ring
// ATTR: tile.alloc : !tile.st<2x64x64xbf16>
// ATTR: tile.alloc : !tile.st<2x64x128xbf16>
// ATTR: } {tile.pipelined = 2 : i64}
// OVER-LABEL: tile.kernel @ring
// OVER: tile.alloc : !tile.st<4x64x64xbf16>
// OVER: tile.alloc : !tile.st<4x64x128xbf16>
// OVER: tile.sem_init %{{.*}}, 1 : !tile.sem<4>
// OVER: } {tile.pipelined = 4 : i64}
// TOO-MANY: error: 16 stages (from the 'stages' option) need {{[0-9]+}} bytes of shared memory; sm_90a allows 231424, which fits at most {{[0-9]+}} stages
// PTX: .entry ring
// PTX-COUNT-8: mbarrier.init.shared.b64
tile.kernel @ring(%A: !view, %B: !view, %C: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16>
  %b = tile.alloc : !tile.st<64x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %K = tile.dim %A[1] : !view
  tile.foreach_tile (%m, %n) in (%c1, %c1) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<64x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x128xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<64x64xbf16>, !tile.st<64x128xbf16> -> !acc
      scf.yield %y : !acc
    } {tile.stages = 2}
    tile.store %acc, %C[%m, %n] : !acc, !tile.gl<?x?xf32>
  }
}
