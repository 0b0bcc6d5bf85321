// The GPU check program for the exchanges between lanes and warps compiles
// to PTX with butterfly and indexed shuffles, warpgroup barriers around the
// shared-memory scratch, and ptxas accepts it when installed; the manifest
// counts the scratch (2 warpgroups, a slot each; the 64 x 64 transpose's
// takes 2 x 16 KiB of it).
// RUN: rm -rf %t && tk-opt %tk_src_root/python/gpu_checks/cross_warp.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/cross_warp.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/cross_warp.json
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: shfl.sync.idx.b32
// CHECK-DAG: bar.sync
// CHECK-DAG: st.shared.b32
// CHECK-DAG: ld.shared.b32
// MANIFEST: "shared_memory_bytes": 41472
// MANIFEST: "threads": 256
