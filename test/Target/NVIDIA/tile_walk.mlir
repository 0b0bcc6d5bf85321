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
