// wait-timeout-ms (default 0, off): every mbarrier wait (tile.sem_wait, the
// tile queue's) and every counter poll (tile.signal_wait,
// tile.device_barrier) tries once, then reads %globaltimer between tries and gives
// up after the limit; the warp's first lane that gave up records (site,
// block, thread, parity, semaphore address) in the buffer the host put in
// __tk_wait_report, and every lane that gave up traps. All of it is inside
// the wait's one inline assembly, which has no result: nothing after the
// wait branches on how it ended, so the fast path compiles as the unlimited
// wait does. No call (a vprintf would serialize the kernel's wgmmas). Each
// kernel's ABI lists its timed waits' source locations by site. Off: the
// plain try_wait loop and none of this. A kernel without waits gets no
// report global and no entry.
// RUN: tk-opt %s -split-input-file -convert-tile-to-nvvm=wait-timeout-ms=250 | FileCheck %s
// RUN: tk-opt %s -split-input-file -convert-tile-to-nvvm | FileCheck %s --check-prefix=OFF
// RUN: not tk-opt %s -convert-tile-to-nvvm=wait-timeout-ms=-1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not tk-opt %s -tile-to-nvidia="wait-timeout-ms=soon out=%t" 2>&1 | FileCheck %s --check-prefix=WORD

// NEG: for the --wait-timeout-ms option: '-1' value invalid for uint argument!
// WORD: for the --wait-timeout-ms option: 'soon' is not a non-negative integer

// CHECK: sems = {{{.*}}wait_timeout = {ms = 250 : i64, records = 64 : i64, report = "__tk_wait_report", sites = [{kind = "semaphore", location = "{{.*}}wait-timeout.mlir:[[@LINE+27]]:3", site = 0 : i64}, {kind = "semaphore", location = "{{.*}}wait-timeout.mlir:[[@LINE+31]]:5", site = 1 : i64}]}
// CHECK: llvm.mlir.global external @__tk_wait_report(0 : i64) {addr_space = 1 : i32, alignment = 8 : i64} : i64
// CHECK-LABEL: llvm.func @sems
// CHECK-NOT: llvm.intr.trap
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0A.reg .u64 t0, t;\0Ambarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\0A@p bra TK_WAIT_DONE;\0Amov.u64 t0, %globaltimer;\0ATK_WAIT:\0Ambarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\0A@p bra TK_WAIT_DONE;\0Amov.u64 t, %globaltimer;\0Asub.u64 t, t, t0;\0Asetp.lt.u64 p, t, 250000000;\0A@p bra TK_WAIT;\0A{\0A.reg .pred q;{{.*}}activemask.b32 m;\0Amov.u32 lt, %lanemask_lt;\0Aand.b32 m, m, lt;\0Asetp.ne.u32 q, m, 0;\0A@q bra TK_GIVE_UP;\0Ald.volatile.global.u64 buffer, [__tk_wait_report];\0Asetp.eq.u64 q, buffer, 0;\0A@q bra TK_GIVE_UP;\0Aatom.global.add.u32 slot, [buffer], 1;\0Asetp.ge.u32 q, slot, 64;\0A@q bra TK_GIVE_UP;\0Amul.wide.u32 at, slot, 32;\0Aadd.u64 at, at, buffer;\0Amov.u32 site, 0;\0Amov.u32 blk, %ctaid.x;\0Amov.u32 thr, %tid.x;\0Amov.u32 lo, $0;\0Ast.volatile.global.v4.u32 [at+32], {site, blk, thr, $1};\0Ast.volatile.global.u32 [at+48], lo;\0Amembar.sys;\0Ast.volatile.global.u32 [at+52], 1;\0Amembar.sys;\0ATK_GIVE_UP:\0Atrap;\0A}\0ATK_WAIT_DONE:\0A}", "r,r" %{{.*}}, %{{.*}} : (i32, i32) -> ()
// CHECK-NOT: scf.if
// CHECK-NOT: llvm.intr.trap
// CHECK: scf.if
// CHECK: mov.u32 site, 1;
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
// CHECK: queue = {{{.*}}wait_timeout = {ms = 250 : i64, records = 64 : i64, report = "__tk_wait_report", sites = [{kind = "semaphore", location = "{{.*}}wait-timeout.mlir:[[@LINE+6]]:3", site = 0 : i64}, {kind = "semaphore", location = "{{.*}}wait-timeout.mlir:[[@LINE+6]]:3", site = 1 : i64}]}
// CHECK-LABEL: llvm.func @queue
// CHECK: mov.u32 site, 0;{{.*}}trap;
// CHECK: mov.u32 site, 1;{{.*}}trap;
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
// CHECK: barrier = {{{.*}}wait_timeout = {{{.*}}sites = [{kind = "counter", location = "{{.*}}wait-timeout.mlir:[[@LINE+9]]:3", site = {{[0-9]+}} : i64}]}
// CHECK-LABEL: llvm.func @barrier
// CHECK: red.release.sys.global.add.s32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0A.reg .b32 v;\0A.reg .s32 d;\0A.reg .u64 t0, t;\0Ald.acquire.sys.global.b32 v, [$0];\0Asub.s32 d, v, $1;{{.*}}mov.u64 t0, %globaltimer;\0ATK_WAIT:{{.*}}setp.lt.u64 p, t, 250000000;\0A@p bra TK_WAIT;\0A{{.*}}ld.volatile.global.u64 buffer, [__tk_wait_report];{{.*}}cvt.u32.u64 lo, $0;\0Ast.volatile.global.v4.u32 [at+32], {site, blk, thr, $1};\0Ast.volatile.global.u32 [at+48], lo;{{.*}}TK_GIVE_UP:\0Atrap;\0A}\0ATK_WAIT_DONE:\0A}", "l,r"
// OFF-LABEL: llvm.func @barrier
// OFF-NOT: globaltimer
// OFF: ld.acquire.sys.global.b32 v, [$0];
// OFF-NOT: llvm.intr.trap
tile.kernel @barrier(%F: !tile.gl<?xi32, devices = 2>, %i: index, %v: i32) launch(warpgroups = 1) {
  tile.device_barrier %F[%i], %v : !tile.gl<?xi32, devices = 2>
}
