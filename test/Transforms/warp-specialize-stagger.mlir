// tile-warp-specialize's consumer stagger: the kernel's tile.stagger
// attribute, unless the `stagger` option (not negative) overrides it; the
// lowering holds consumer warpgroup i back i * stagger cycles after its
// register raise.
// RUN: tk-opt %s -tile-pipeline -tile-warp-specialize | FileCheck %s --check-prefix=ATTR
// RUN: tk-opt %s -tile-pipeline -tile-warp-specialize=stagger=300 | FileCheck %s --check-prefix=OPT
// RUN: tk-opt %s -tile-pipeline -tile-warp-specialize=stagger=0 | FileCheck %s --check-prefix=NONE
// RUN: not tk-opt %s -tile-pipeline -tile-warp-specialize=stagger=100001 2>&1 | FileCheck %s --check-prefix=BIG
// The target pipeline's option passes through to the pass.
// RUN: rm -rf %t && tk-opt %s -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/plain.ptx
// RUN: rm -rf %t && tk-opt %s -tile-to-nvidia="out=%t cubin=false stagger=0" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAIN < %t/plain.ptx

// ATTR-LABEL: tile.kernel @staggered
// ATTR: } consumer(warpgroups = 2, registers = 232, stagger = 1200) {
// ATTR-LABEL: tile.kernel @plain
// ATTR: } consumer(warpgroups = 2, registers = 232) {
// OPT-LABEL: tile.kernel @staggered
// OPT: } consumer(warpgroups = 2, registers = 232, stagger = 300) {
// OPT-LABEL: tile.kernel @plain
// OPT: } consumer(warpgroups = 2, registers = 232, stagger = 300) {
// NONE-LABEL: tile.kernel @staggered
// NONE: } consumer(warpgroups = 2, registers = 232) {
// BIG: error: consumer stagger must be in [0, 100000] cycles, got 100001

// Warpgroup w = thread / 128 (1 and 2 are the consumers) waits
// (w - 1) * 1200 cycles: the first consumer not at all. (Both kernels are
// in one PTX file, named after the last.)
// PTX: .entry staggered(
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX-NEXT: mad.lo.s64 [[CYCLES:%rd[0-9]+]], %rd{{[0-9]+}}, 1200, -1200;
// PTX: mov.u64 t0, %clock64;
// PTX-NEXT: TK_STAGGER:
// PTX-NEXT: mov.u64 t1, %clock64;
// PTX-NEXT: sub.u64 t1, t1, t0;
// PTX-NEXT: setp.lt.u64 p, t1, [[CYCLES]];
// PTX-NEXT: @p bra TK_STAGGER;
// PTX: .entry plain(
// PTX-NOT: %clock64
// PLAIN: .entry staggered(
// PLAIN-NOT: %clock64
// PLAIN: .entry plain(
// PLAIN-NOT: %clock64

!view = !tile.gl<?x?xbf16>
!acc = !tile.rt<128x256xf32, block>

tile.kernel @staggered(%A: !view, %B: !view, %C: !view) launch(warpgroups = 2)
    attributes {tile.stagger = 1200} {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  tile.foreach_tile (%m, %n) in (%M, %N) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !view
  }
}

tile.kernel @plain(%A: !view, %B: !view, %C: !view) launch(warpgroups = 2) {
  %a = tile.alloc : !tile.st<128x64xbf16>
  %b = tile.alloc : !tile.st<64x256xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = tile.dim %A[0] : !view
  %K = tile.dim %A[1] : !view
  %N = tile.dim %B[1] : !view
  tile.foreach_tile (%m, %n) in (%M, %N) {
    %zero = tile.fill 0.0 : !acc
    %acc = scf.for %k = %c0 to %K step %c1 iter_args(%x = %zero) -> (!acc) {
      tile.copy %A[%m, %k] -> %a : !view, !tile.st<128x64xbf16>
      tile.copy %B[%k, %n] -> %b : !view, !tile.st<64x256xbf16>
      %y = tile.mma AB %a, %b, %x : !tile.st<128x64xbf16>, !tile.st<64x256xbf16> -> !acc
      scf.yield %y : !acc
    }
    %out = tile.cast %acc : !acc to !tile.rt<128x256xbf16, block>
    tile.store %out, %C[%m, %n] : !tile.rt<128x256xbf16, block>, !view
  }
}
