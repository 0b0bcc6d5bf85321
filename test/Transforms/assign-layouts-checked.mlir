// A register value that no layout fits (63 rows: a warpgroup's four warps
// take 16 rows each) keeps no layout, with a remark naming the reason, and
// the rest of the kernel is laid out as usual: the pass checks a type
// before it builds it (T::get would abort with assertions on and build an
// invalid type without). The whole NVIDIA pipeline then compiles the
// kernel, whose unlaid value is dead.
// RUN: tk-opt %s -tile-assign-layouts -verify-diagnostics | FileCheck %s
// RUN: rm -rf %t && tk-opt %s -tile-to-nvidia="out=%t cubin=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// CHECK: tile.fill {{.*}} : !tile.rt<63x64xf32, warpgroup>
// PIPELINE: remark: register layouts left open: layout #tile.row does not fit this warpgroup-scope register tile: rows (63) must be a multiple of 64
tile.kernel @k() launch(warpgroups = 1) {
  // expected-remark @+1 {{register layouts left open: layout #tile.row does not fit this warpgroup-scope register tile: rows (63) must be a multiple of 64 for #tile.row (16 per warp, 4 warps)}}
  %x = tile.fill 0.0 : !tile.rt<63x64xf32, warpgroup>
}
