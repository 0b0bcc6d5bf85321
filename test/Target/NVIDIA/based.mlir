// The Based program through the default pipeline, normalising (tile-bind):
// TMA ring and producer warpgroup; wgmma for the scores (n64), and for
// P V, the states, M and its product with qb (value columns in 32s: n32),
// the state MMAs left in flight while the scores become a; `tile.outer` as
// indexed shuffles inside each warp with its bf16 products two at a time.
// One consumer warpgroup with 216 registers and 95280 bytes of shared memory:
// two blocks per multiprocessor. The tile space is o's 32-column tiles by
// its rows. ptxas accepts it (ptxas.mlir).
// RUN: rm -rf %t && tk-opt %kernels/linear_attention/based.mlir -tile-to-nvidia="out=%t cubin=false bind=4=true" -o /dev/null
// RUN: FileCheck %s < %t/based.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/based.json
// RUN: FileCheck %s --check-prefix=PAIRED < %t/based.ptx
// Not normalising (the other shipped variant): no M MMAs, no reciprocal.
// RUN: tk-opt %kernels/linear_attention/based.mlir -tile-to-nvidia="out=%t/plain cubin=false bind=4=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAIN < %t/plain/based.ptx
// RUN: FileCheck %s --check-prefix=PLAINMANIFEST < %t/plain/based.json
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 216
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// CHECK-DAG: wgmma.wait_group.sync.aligned 6
// CHECK-DAG: shfl.sync.idx.b32
// CHECK-DAG: mul.bf16x2
// MANIFEST: "blocks_per_sm": 2
// MANIFEST: "value": true
// MANIFEST: "shared_memory_bytes": 95280
// MANIFEST: "threads": 256
// MANIFEST: "tiles": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "axis": 2,
// MANIFEST-NEXT: "divisor": 32,
// MANIFEST-NEXT: "param": 3
// PAIRED-NOT: mul.bf16{{[[:space:]]}}
// PLAIN-NOT: rcp
// PLAIN: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PLAIN-NOT: rcp
// PLAINMANIFEST: "value": false
