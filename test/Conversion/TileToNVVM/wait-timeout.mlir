// wait-timeout-ms (default 0, off): every mbarrier wait (tile.sem_wait, the
// tile queue's) and every counter poll (tile.signal_wait,
// tile.device_barrier) tries once, then reads %globaltimer between tries and gives
// up after the limit; the warp's first lane that gave up records (site,
// block, thread, parity, semaphore address) in the buffer the host put in
// @__tk_wait_report, and every lane that gave up traps. No call (a vprintf
// would serialize the kernel's wgmmas). Each kernel's ABI lists its timed
// waits' source locations by site. Off: the plain try_wait loop and none of
// this. A kernel without waits gets no report global and no entry.
// RUN: tk-opt %s -split-input-file -convert-tile-to-nvvm=wait-timeout-ms=250 | FileCheck %s
// RUN: tk-opt %s -split-input-file -convert-tile-to-nvvm | FileCheck %s --check-prefix=OFF
// RUN: not tk-opt %s -convert-tile-to-nvvm=wait-timeout-ms=-1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not tk-opt %s -tile-to-nvidia="wait-timeout-ms=soon out=%t" 2>&1 | FileCheck %s --check-prefix=WORD

// NEG: for the --wait-timeout-ms option: '-1' value invalid for uint argument!
// WORD: for the --wait-timeout-ms option: 'soon' is not a non-negative integer

// CHECK: sems = {{{.*}}wait_timeout = {ms = 250 : i64, records = 64 : i64, report = "__tk_wait_report", sites = [{kind = "semaphore", location = "{{.*}}wait-timeout.mlir:[[@LINE+35]]:3", site = 0 : i64}, {kind = "semaphore", location = "{{.*}}wait-timeout.mlir:[[@LINE+39]]:5", site = 1 : i64}]}
// CHECK: llvm.mlir.global external @__tk_wait_report(0 : i64) {addr_space = 1 : i32, alignment = 8 : i64} : i64
// CHECK-LABEL: llvm.func @sems
// CHECK: %[[LIMIT:.*]] = arith.constant 250000000 : i64
// CHECK: %[[STATUS:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "{{.*}}mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\0A@p bra TK_WAIT_DONE;\0Amov.u64 t0, %globaltimer;\0ATK_WAIT:{{.*}}setp.lt.u64 p, t, $3;\0A@p bra TK_WAIT;\0Aactivemask.b32 m;{{.*}}selp.u32 $0, 1, 2, p;\0ATK_WAIT_DONE:\0A}", "=r,r,r,l" %{{.*}}, %{{.*}}, %[[LIMIT]] : (i32, i32, i64) -> i32
// CHECK: %[[GAVE_UP:.*]] = arith.cmpi ne, %[[STATUS]], %{{.*}} : i32
// CHECK: scf.if %[[GAVE_UP]] {
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[STATUS]], %{{.*}} : i32
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[SITE:.*]] = arith.constant 0 : i32
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.mlir.addressof @__tk_wait_report : !llvm.ptr<1>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{{.*}}ld.volatile.global.u64 buffer, [$5];{{.*}}atom.global.add.u32 slot, [buffer], 1;\0Asetp.ge.u32 p, slot, 64;{{.*}}st.volatile.global.v4.u32 [at+32], {$0, $1, $2, $3};\0Ast.volatile.global.u32 [at+48], $4;\0Amembar.sys;\0Ast.volatile.global.u32 [at+52], 1;\0Amembar.sys;{{.*}}", "r,r,r,r,r,l" %[[SITE]],
// CHECK: }
// CHECK-NEXT: llvm.intr.trap
// CHECK: arith.constant 1 : i32
// CHECK-NOT: llvm.call
// OFF-NOT: wait_timeout
// OFF-NOT: __tk_wait_report
// OFF-NOT: globaltimer
// OFF: mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\0A@!p bra TK_WAIT;
// OFF-NOT: globaltimer
// OFF-NOT: llvm.intr.trap
tile.kernel @sems(%A: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  %s = tile.alloc : !tile.sem
  tile.sem_init %s, 1 : !tile.sem
  tile.fence sem_init
  tile.barrier block
  %c0 = arith.constant 0 : index
  %p = arith.constant 0 : i32
  %q = arith.constant 1 : i32
  tile.sem_expect %s, %a : !tile.st<128x64xbf16, #tile.swizzle<128>>
  tile.load_async %A[%c0, %n] -> %a, %s : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16, #tile.swizzle<128>>
  tile.sem_wait %s, %p
  tile.sem_arrive %s
  %more = arith.cmpi ugt, %n, %c0 : index
  scf.if %more {
    tile.sem_wait %s, %q
  }
}

// -----

// The dynamic tile loop's queue waits (for a free slot, for the next tile)
// are timed too; both name the loop.
// CHECK: queue = {{{.*}}wait_timeout = {ms = 250 : i64, records = 64 : i64, report = "__tk_wait_report", sites = [{kind = "semaphore", location = "{{.*}}wait-timeout.mlir:[[@LINE+5]]:3", site = 0 : i64}, {kind = "semaphore", location = "{{.*}}wait-timeout.mlir:[[@LINE+5]]:3", site = 1 : i64}]}
// CHECK-LABEL: llvm.func @queue
// CHECK-COUNT-2: llvm.intr.trap
// OFF-NOT: globaltimer
tile.kernel @queue(%n: index) launch(warpgroups = 1, grid = persistent) {
  tile.foreach_tile (%i) in (%n) dynamic {
  }
}

// -----

// CHECK-NOT: wait_timeout
// CHECK-NOT: __tk_wait_report
// CHECK-LABEL: llvm.func @no_waits
// CHECK-NOT: globaltimer
tile.kernel @no_waits(%A: !tile.gl<?x?xbf16>) launch(warpgroups = 1) {
  tile.barrier block
}

// -----

// A counter poll (here a device barrier's) under the limit: one try, then
// %globaltimer between tries; past the limit the polling thread records
// (site, block, thread, the value waited for, the low 32 bits of the
// counter's address) and traps. The site's kind says it was a counter.
// CHECK: barrier = {{{.*}}wait_timeout = {{{.*}}sites = [{kind = "counter", location = "{{.*}}wait-timeout.mlir:[[@LINE+13]]:3", site = {{[0-9]+}} : i64}]}
// CHECK-LABEL: llvm.func @barrier
// CHECK: red.release.sys.global.add.s32
// CHECK: %[[STATUS:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "{{.*}}mov.u32 $0, 0;\0Ald.acquire.sys.global.b32 v, [$1];\0Asub.s32 d, v, $2;{{.*}}mov.u64 t0, %globaltimer;\0ATK_SIGNAL:{{.*}}setp.lt.u64 p, t, $3;\0A@p bra TK_SIGNAL;\0Amov.u32 $0, 1;\0ATK_SIGNAL_DONE:\0A}", "=r,l,r,l"
// CHECK: %[[LOW:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i32
// CHECK: arith.cmpi ne, %[[STATUS]], %{{.*}} : i32
// CHECK: st.volatile.global.v4.u32 [at+32]
// CHECK: llvm.intr.trap
// OFF-LABEL: llvm.func @barrier
// OFF-NOT: globaltimer
// OFF: ld.acquire.sys.global.b32 v, [$0];
// OFF-NOT: llvm.intr.trap
tile.kernel @barrier(%F: !tile.gl<?xi32, devices = 2>, %i: index, %v: i32) launch(warpgroups = 1) {
  tile.device_barrier %F[%i], %v : !tile.gl<?xi32, devices = 2>
}
