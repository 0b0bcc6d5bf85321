// The GPU check program for every register path compiles to PTX with
// ldmatrix, stmatrix, 64-byte-swizzle TMA stores and plain shared accesses,
// stores in fragment order (16-byte shared stores and a bulk copy; atomic
// adds), 16-byte global loads into registers (and element loads where rows
// are not 16-byte aligned), TMA prefetches into L2, and ptxas accepts it
// when installed.
// RUN: rm -rf %t && tk-opt %tk_src_root/python/gpu_checks/tile_paths.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/tile_paths.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/tile_paths.json
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-DAG: ld.shared.b32
// CHECK-DAG: st.shared.v2.b32
// CHECK-DAG: shfl.sync.idx.b32
// CHECK-DAG: st.global.v4.b32
// CHECK-DAG: ld.global.v4.b32
// CHECK-DAG: ld.global.b16
// CHECK-DAG: st.shared.v4.b32
// CHECK-DAG: cp.async.bulk.global.shared::cta.bulk_group [%rd{{[0-9]+}}], [%r{{[0-9]+}}], 16384;
// CHECK-DAG: atom.global.add.f32
// CHECK-DAG: cp.async.bulk.prefetch.tensor.2d.L2.global.tile
// The views in fragment order take no tensor maps (X has two: its copy's
// and its prefetch's; Z one) and say their layout in the manifest.
// MANIFEST-COUNT-3: "kind": "tensor_map"
// MANIFEST-NOT: "kind": "tensor_map"
// MANIFEST-COUNT-3: "layout": "fragments"
