// The naive GEMM (copies in a loop, block-scope tiles, no layouts) becomes
// the hand-scheduled kernel's shape through -tile-to-nvidia's passes: three
// warpgroups with register budgets, a TMA ring on mbarriers, m64n256 wgmma,
// a TMA-store epilogue, a persistent grid. The pipelined GPU check kernel
// compiles with and without warp specialization.
// RUN: rm -rf %t && tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_naive.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gemm_naive.json
// RUN: rm -rf %t.p && tk-opt %tk_src_root/python/gpu_checks/gemm_pipelined.mlir -tile-to-nvidia="out=%t.p cubin=false warp-specialize=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAIN < %t.p/gemm_pipelined.ptx
// RUN: FileCheck %s --check-prefix=PLAIN-MANIFEST < %t.p/gemm_pipelined.json

// PTX: .entry gemm_naive
// PTX: .maxntid 384, 1, 1
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG: mbarrier.try_wait.parity.shared::cta.b64
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// MANIFEST: "grid_policy": "persistent",
// MANIFEST: "shared_memory_bytes": 214064,
// MANIFEST: "threads": 384,

// Without warp specialization: one warpgroup loads and computes, no
// register budgets, one block per tile.
// PLAIN: .entry gemm_pipelined
// PLAIN: .maxntid 128, 1, 1
// PLAIN-NOT: setmaxnreg
// PLAIN: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PLAIN: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PLAIN-MANIFEST: "grid_policy": "tiles",
// PLAIN-MANIFEST: "threads": 128,
