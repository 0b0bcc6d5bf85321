// The 160-key attention program through -tile-to-nvidia: the same kernel
// as attention_naive.mlir with K and V tiles of 160 rows (wgmma n = 160 for
// both Q Kᵀ and P V). Its rotated loop passes tile-overlap-mma's register
// check (S 80 + O 64 + P 40 + 40 = 224 of 240: P is counted once), so Q Kᵀ
// of a step is issued with the previous step's P V and waited for alone.
// Two Q buffers and two K/V stages fill 230 KB of shared memory, leaving no
// room for a shared-memory epilogue: O is stored from registers.
// RUN: rm -rf %t && tk-opt %kernels/attention_naive_kv160.mlir -tile-to-nvidia="out=%t cubin=false producer-registers=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=PTX < %t/attention_naive_kv160.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/attention_naive_kv160.json

// REMARK-NOT: MMAs not overlapped

// PTX: .entry attention_naive_kv160
// PTX: .maxntid 384, 1, 1
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-DAG: wgmma.wait_group.sync.aligned 1;
// PTX-NOT: stmatrix

// MANIFEST: "grid_policy": "persistent",
// MANIFEST: "shared_memory_bytes": 230496,
// MANIFEST: "threads": 384,
