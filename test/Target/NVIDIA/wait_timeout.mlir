// The GPU check program for wait-timeout-ms compiles to PTX with the report
// global the host sets, timed try_wait and counter-poll loops, the record
// stores (reading the global by name) and a trap, and no call; the manifest
// lists the limit, the global, the record count and its three waits'
// source lines (two semaphores, a counter) by site. Without the option
// there is none of it.
//
// The limit changes nothing but the waits: the GEMM's PTX with and without
// it is the same once its inline assembly and the report global are taken
// out (on one H200 the timed GEMM ran at 0.996-1.005x the untimed one;
// docs/nvidia.md, "Finding a deadlock").
// RUN: rm -rf %t.gemm-on %t.gemm-off
// RUN: tk-opt %kernels/gemm/gemm.mlir -tile-to-nvidia="out=%t.gemm-on cubin=false wait-timeout-ms=1000" -o /dev/null
// RUN: tk-opt %kernels/gemm/gemm.mlir -tile-to-nvidia="out=%t.gemm-off cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=GEMM < %t.gemm-on/gemm.ptx
// RUN: sed '/begin inline asm/,/end inline asm/d; /__tk_wait_report;$/d' %t.gemm-on/gemm.ptx > %t.gemm-on.rest
// RUN: sed '/begin inline asm/,/end inline asm/d' %t.gemm-off/gemm.ptx > %t.gemm-off.rest
// RUN: diff %t.gemm-off.rest %t.gemm-on.rest
// The same for the reduce-scatter's kernel with the limit the tensor-parallel
// ops ship with (its counter polls timed too).
// RUN: rm -rf %t.rs-on %t.rs-off
// RUN: tk-opt %kernels/multi_gpu/gemm_reduce_scatter.mlir -tile-to-nvidia="out=%t.rs-on cubin=false wait-timeout-ms=600000" -o /dev/null
// RUN: tk-opt %kernels/multi_gpu/gemm_reduce_scatter.mlir -tile-to-nvidia="out=%t.rs-off cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=RS < %t.rs-on/gemm_reduce_scatter.ptx
// RUN: sed '/begin inline asm/,/end inline asm/d; /__tk_wait_report;$/d' %t.rs-on/gemm_reduce_scatter.ptx > %t.rs-on.rest
// RUN: sed '/begin inline asm/,/end inline asm/d' %t.rs-off/gemm_reduce_scatter.ptx > %t.rs-off.rest
// RUN: diff %t.rs-off.rest %t.rs-on.rest
// RS: ld.acquire.sys.global.b32 v
// RS: setp.lt.u64 p, t, 600000000000;
// GEMM: .visible .global .align 8 .u64 __tk_wait_report;
// GEMM-COUNT-2: setp.lt.u64 p, t, 1000000000;
// RUN: rm -rf %t && tk-opt %tk_src_root/python/gpu_checks/wait_timeout.mlir -tile-to-nvidia="out=%t cubin=false wait-timeout-ms=200" -o /dev/null
// RUN: FileCheck %s < %t/wait_timeout.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/wait_timeout.json
// RUN: rm -rf %t.off && tk-opt %tk_src_root/python/gpu_checks/wait_timeout.mlir -tile-to-nvidia="out=%t.off cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=OFF < %t.off/wait_timeout.ptx
// RUN: FileCheck %s --check-prefix=OFF-MANIFEST < %t.off/wait_timeout.json
// CHECK: .visible .global .align 8 .u64 __tk_wait_report;
// CHECK: mov.u64 t0, %globaltimer;
// CHECK: setp.lt.u64 p, t, 200000000;
// CHECK: ld.volatile.global.u64 buffer, [__tk_wait_report];
// CHECK: atom.global.add.u32 slot, [buffer], 1;
// CHECK: membar.sys;
// CHECK: trap;
// CHECK-NOT: call
// MANIFEST: "wait_timeout": {
// MANIFEST: "wait_timeout": {
// MANIFEST-NEXT: "ms": 200,
// MANIFEST-NEXT: "records": 64,
// MANIFEST-NEXT: "report": "__tk_wait_report",
// MANIFEST-NEXT: "sites": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "kind": "semaphore",
// MANIFEST-NEXT: "location": "{{.*}}python/gpu_checks/wait_timeout.mlir:34:7",
// MANIFEST-NEXT: "site": 0
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "kind": "counter",
// MANIFEST-NEXT: "location": "{{.*}}python/gpu_checks/wait_timeout.mlir:38:7",
// MANIFEST-NEXT: "site": 1
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "kind": "semaphore",
// MANIFEST-NEXT: "location": "{{.*}}python/gpu_checks/wait_timeout.mlir:42:5",
// MANIFEST-NEXT: "site": 2
// OFF-NOT: __tk_wait_report
// OFF-NOT: globaltimer
// OFF-NOT: trap;
// OFF-MANIFEST: "wait_timeout": {
// OFF-MANIFEST-NOT: "wait_timeout"
