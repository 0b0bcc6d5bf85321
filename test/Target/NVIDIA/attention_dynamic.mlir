// The head-dim-128 forward with its tile loop made `dynamic` (tiles taken
// from a counter as blocks ask; docs/performance.md): only the producer
// role's first warp walks the tiles, so the queue's empty mbarriers count
// 9 warps (8 consumer warps + 1), and the manifest asks for the tile
// counter. The program written with `dynamic` and the bundled one
// compiled with the pipeline's dynamic-tiles option (tile-dynamic-tiles)
// give the same PTX.
// RUN: rm -rf %t && mkdir -p %t && sed 's/ snake {/ dynamic {/' %tk_src_root/kernels/attention/attention_naive.mlir > %t/dynamic.mlir
// RUN: tk-opt %t/dynamic.mlir -tile-to-nvidia="out=%t/out cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: FileCheck %s < %t/out/attention_naive.ptx
// RUN: FileCheck %s --check-prefix=ABI < %t/out/attention_naive.json
// RUN: tk-opt %kernels/attention/attention_naive.mlir -tile-to-nvidia="out=%t/opt cubin=false producer-registers=24 dynamic-tiles=true" -o /dev/null 2>/dev/null
// RUN: cmp %t/out/attention_naive.ptx %t/opt/attention_naive.ptx
// CHECK-LABEL: .entry attention_naive(
// CHECK: mov.b32 %r[[WARPS:[0-9]+]], 9;
// CHECK-COUNT-4: mbarrier.init.shared.b64 [%rd{{[0-9]+}}+{{[0-9]+}}], %r[[WARPS]];
// CHECK: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK-NEXT: setp.gt.u32 %p{{[0-9]+}}, %r{{[0-9]+}}, 31;
// CHECK: atom.relaxed.gpu.global.add.u32
// ABI: "kind": "tile_counter"
