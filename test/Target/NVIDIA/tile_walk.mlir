// The GPU check program for the persistent tile walk: before the loop, one
// magic number and shift per divided bound (clz) and the test that the tile
// space is below 2^31 tiles; in the loop, the coordinates as a multiply and
// a shift by a register per bound, the plain divisions only on the other
// branch.
// RUN: rm -rf %t && tk-opt %tk_src_root/python/gpu_checks/tile_walk.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/walk.ptx
// CHECK-LABEL: .entry walk(
// CHECK-COUNT-2: clz.b64
// CHECK: setp.gt.u64 %p{{[0-9]+}}, %rd{{[0-9]+}}, 2147483647;
// CHECK: mul.lo.s64
// CHECK-NEXT: shr.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: mul.lo.s64
// CHECK-NEXT: shr.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: div.u64
// CHECK-LABEL: .entry walk_snake(
// CHECK-COUNT-2: clz.b64

// The dynamic walk: thread 0 initialises the tile queue (4 full mbarriers of
// one arrival, 4 empty ones of one per warp: 4 warps) before a block
// barrier; each step it waits for the slot to be free, takes a tile with a
// relaxed device-scope add on the hidden counter and announces it; every
// thread waits, reads it, each warp frees the slot; after the loop thread 0
// counts its block out (acquire-release) and the last one zeroes both words.
// RUN: FileCheck %s --check-prefix=DYN < %t/walk.ptx
// RUN: FileCheck %s --check-prefix=ABI < %t/walk.json
// DYN-LABEL: .entry walk_dynamic(
// DYN: mov.b32 %r[[ONE:[0-9]+]], 1;
// DYN-COUNT-4: mbarrier.init.shared.b64 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], %r[[ONE]];
// DYN: mov.b32 %r[[WARPS:[0-9]+]], 4;
// DYN-COUNT-4: mbarrier.init.shared.b64 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], %r[[WARPS]];
// DYN: fence.mbarrier_init.release.cluster;
// DYN-NEXT: bar.sync 0;
// DYN: mbarrier.try_wait.parity.shared::cta.b64
// DYN: atom.relaxed.gpu.global.add.u32
// DYN: mbarrier.arrive.shared.b64
// DYN: mbarrier.try_wait.parity.shared::cta.b64
// DYN: bar.warp.sync -1;
// DYN: mbarrier.arrive.shared.b64
// DYN: atom.acq_rel.gpu.global.add.u32
// DYN: st.global.b32 [%rd[[C:[0-9]+]]], 0;
// DYN-NEXT: st.global.b32 [%rd[[C]]+4], 0;
// ABI: "walk_dynamic"
// ABI: "kind": "tile_counter"

// The table walk: the block's range from words blockIdx and blockIdx + 1 of
// the hidden table pointer, and the first ordinal at nctaid + 1 + start, by
// the read-only path before the loop; in the loop the next step's ordinal,
// then the coordinates of the current one. No atomics, no mbarriers.
// RUN: FileCheck %s --check-prefix=TAB < %t/walk.ptx
// RUN: FileCheck %s --check-prefix=TABI < %t/walk.json
// TAB-LABEL: .entry walk_table(
// TAB: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// TAB: ld.global.nc.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
// TAB-NEXT: ld.global.nc.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+4];
// TAB: mov.u32 %r{{[0-9]+}}, %nctaid.x;
// TAB: ld.global.nc.b32
// TAB: ld.global.nc.b32
// TAB-NOT: atom.
// TAB-NOT: mbarrier
// TAB-LABEL: .entry walk_dynamic(
// TABI: "walk_table"
// TABI: "kind": "tile_table"
