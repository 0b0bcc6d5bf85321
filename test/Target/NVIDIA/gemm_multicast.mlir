// The 2-block-cluster GEMM with TMA multicast of B: PTX for a [2, 1, 1]
// cluster that synchronises the pair, multicasts half of each B stage from
// each block, and releases stages in both blocks; the manifest records the
// cluster and B's 32-row multicast box.
// RUN: rm -rf %t && tk-opt %kernels/alternatives/gemm_multicast.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_multicast.ptx
// RUN: FileCheck %s --check-prefix=EXIT < %t/gemm_multicast.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gemm_multicast.json

// PTX: .entry gemm_multicast
// PTX: .reqnctapercluster 2, 1, 1
// PTX: fence.mbarrier_init.release.cluster
// PTX-NEXT: barrier.cluster.arrive.aligned
// PTX-NEXT: barrier.cluster.wait.aligned
// PTX: %cluster_ctarank
// PTX-DAG: mapa.shared::cluster.u64 {{.*}}, 0;
// PTX-DAG: mapa.shared::cluster.u64 {{.*}}, 1;
// PTX-DAG: mbarrier.arrive.shared::cluster.b64 _,
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// Both blocks leave together (LLVM may place the producer role after the
// exit, so the first pair is not always the last).
// EXIT: barrier.cluster.arrive.aligned
// EXIT-NEXT: barrier.cluster.wait.aligned
// EXIT: barrier.cluster.arrive.aligned
// EXIT-NEXT: barrier.cluster.wait.aligned
// EXIT-NEXT: ret;

// Tensor maps: A 128x64, B 32x64 (half a 64-row stage per block), C 64x64;
// the launcher hands out 256x256 tiles (pairs of 128-row tiles) to clusters.
// MANIFEST: "box": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 64
// MANIFEST: "box": [
// MANIFEST-NEXT: 32,
// MANIFEST-NEXT: 64
// MANIFEST: "cluster": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1
// MANIFEST: "tiles": [
// MANIFEST: "divisor": 256,
// MANIFEST: "divisor": 256,
