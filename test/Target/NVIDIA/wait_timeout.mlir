// The GPU check program for wait-timeout-ms compiles to PTX with the report
// global the host sets, timed try_wait and counter-poll loops, the record
// stores and a trap, and no call; the manifest lists the limit, the global,
// the record count and its three waits' source lines (two semaphores, a
// counter) by site. Without the option there is none of it.
// RUN: rm -rf %t && tk-opt %tk_src_root/python/gpu_checks/wait_timeout.mlir -tile-to-nvidia="out=%t cubin=false wait-timeout-ms=200" -o /dev/null
// RUN: FileCheck %s < %t/wait_timeout.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/wait_timeout.json
// RUN: rm -rf %t.off && tk-opt %tk_src_root/python/gpu_checks/wait_timeout.mlir -tile-to-nvidia="out=%t.off cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=OFF < %t.off/wait_timeout.ptx
// RUN: FileCheck %s --check-prefix=OFF-MANIFEST < %t.off/wait_timeout.json
// CHECK: .visible .global .align 8 .u64 __tk_wait_report;
// CHECK: mov.b64 %[[LIMIT:rd[0-9]+]], 200000000;
// CHECK: mov.u64 t0, %globaltimer;
// CHECK: setp.lt.u64 p, t, %[[LIMIT]];
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
