// The 176-key attention program through -tile-to-nvidia: the same kernel
// as attention_naive.mlir with K and V tiles of 176 rows (wgmma n = 176 for
// Q Kᵀ, n = 128 with k = 176 for P V) and Q read from shared memory. Its
// rotated loop passes tile-overlap-mma's register check (S 88 + O 64 + P 44
// + 40 = 236 of 240: P is counted once), so Q Kᵀ of a step is issued with
// the previous step's P V and waited for alone. One Q buffer and two K/V
// stages take 209 KB of shared memory, too little room left for a
// shared-memory epilogue (32 KB): O is stored from registers.
// RUN: rm -rf %t && tk-opt %kernels/attention/attention_naive_kv176.mlir -tile-to-nvidia="out=%t cubin=false producer-registers=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=PTX < %t/attention_naive_kv176.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/attention_naive_kv176.json

// REMARK: remark: store not staged through shared memory: its buffer would bring the kernel to 245808 bytes, over the target's 231424
// REMARK-NOT: MMAs not overlapped

// PTX: .entry attention_naive_kv176
// PTX: .maxntid 384, 1, 1
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-DAG: wgmma.wait_group.sync.aligned 1;
// PTX-NOT: stmatrix

// MANIFEST: "grid_policy": "persistent",
// MANIFEST: "shared_memory_bytes": 214096,
// MANIFEST: "threads": 384,
