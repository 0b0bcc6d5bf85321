// The fused attention backward with 80-query steps (attention_bwd_q80.mlir):
// Sᵀ, dPᵀ are 64x80 per warpgroup, dV and dK 80-deep contractions, and dQ's
// transpose is split by rows (each warpgroup its 64 head-dim rows, A = its
// 64 columns of K read transposed) and added to a transposed view in
// fragment order with dynamic columns: ten 16-byte shared stores per thread
// and one 20 KiB bulk reduction per warpgroup; the manifest asks the launch
// for whole 80-column tiles. (L and Δ, 80 floats, sit in rings whose slots
// are 384 bytes apart: test/Conversion/TileToNVVM/lowering.mlir.)
// RUN: rm -rf %t && tk-opt %kernels/alternatives/attention_bwd_q80.mlir -tile-to-nvidia="out=%t cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --implicit-check-not=ld.global < %t/attention_bwd_q80.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/attention_bwd_q80.json
// RUN: tk-opt %kernels/alternatives/attention_bwd_q80.mlir -tile-pipeline -tile-warp-specialize -tile-assign-layouts 2>/dev/null | FileCheck %s --check-prefix=IR

// CHECK: .entry attention_bwd_q80
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 240
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: bar.sync 15, 256
// CHECK-DAG: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd{{[0-9]+}}], [%r{{[0-9]+}}], 20480;
// CHECK-DAG: st.shared.v4.b32

// MANIFEST: "layout": "fragments",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: -1,
// MANIFEST-NEXT: -1,
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: -1
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "tile_cols": 80

// IR: %[[STAGE:.*]] = tile.alloc : !tile.sv<2x5120xf32>
// IR: consumer(warpgroups = 2
// IR: %[[WG:.*]] = tile.warpgroup_id
// IR: %[[KT:.*]] = tile.subtile %{{.*}}[%{{.*}}, %[[WG]]] : !tile.st<128x128xbf16, #tile.swizzle<128>> to !tile.st<128x64xbf16, #tile.swizzle<128>>
// IR: tile.mma_async AtB %[[KT]], %{{.*}} : !tile.st<128x64xbf16, #tile.swizzle<128>>, !tile.st<128x80xbf16, #tile.swizzle<32>> -> !tile.rt<64x80xf32, warpgroup, #tile.mma_acc>
// IR: tile.store_async %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] reduce add : !tile.sv<5120xf32>, !tile.gl<?x?x128x?xf32, fragments>
