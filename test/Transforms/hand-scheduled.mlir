// The scheduling passes leave hand-scheduled kernels alone: each bundled
// kernel that carries its own semaphores, roles and layouts comes out of
// tile-bind, tile-pipeline, tile-warp-specialize, tile-overlap-mma,
// tile-pingpong, tile-early-epilogue and tile-assign-layouts exactly as
// canonicalize and cse alone leave it, and without a remark.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for k in gemm/gemm gemm/gemm_abt alternatives/gemm_multicast alternatives/gemm_pingpong alternatives/gemm_streamk alternatives/attention_fwd alternatives/softmax_scores; do \
// RUN:   n=$(basename $k); \
// RUN:   tk-opt %kernels/$k.mlir --pass-pipeline="builtin.module(tile.kernel(tile-bind,tile-pipeline,tile-warp-specialize,tile-overlap-mma,tile-pingpong,tile-early-epilogue,tile-assign-layouts,canonicalize,cse))" -o %t/$n.scheduled.mlir 2> %t/$n.remarks && \
// RUN:   tk-opt %kernels/$k.mlir --pass-pipeline="builtin.module(tile.kernel(canonicalize,cse))" -o %t/$n.plain.mlir && \
// RUN:   diff %t/$n.scheduled.mlir %t/$n.plain.mlir && not test -s %t/$n.remarks && echo "unchanged $n" || echo "CHANGED $n"; \
// RUN: done | FileCheck %s

// CHECK: unchanged gemm
// CHECK-NEXT: unchanged gemm_abt
// CHECK-NEXT: unchanged gemm_multicast
// CHECK-NEXT: unchanged gemm_pingpong
// CHECK-NEXT: unchanged gemm_streamk
// CHECK-NEXT: unchanged attention_fwd
// CHECK-NEXT: unchanged softmax_scores
// CHECK-NOT: CHANGED
