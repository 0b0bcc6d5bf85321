// The elu + 1 linear-attention program through the default pipeline: the
// chunk copies become a ring of TMA loads with a producer warpgroup
// (setmaxnreg: 216 registers for the consumer, two blocks per
// multiprocessor), the four products wgmma m64n64k16 and the normaliser's
// against ones m64n16k16 (its row maximum in lanes: butterflies); compiled
// once per layout (tile-bind), the manifest records the bound value. ptxas
// accepts both (ptxas.mlir).
// RUN: rm -rf %t && tk-opt %kernels/linear_attention/linear_attention.mlir -tile-to-nvidia="out=%t cubin=false bind=6=true" -o /dev/null
// RUN: FileCheck %s < %t/linear_attention.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/linear_attention.json
// RUN: rm -rf %t.bhsd && tk-opt %kernels/linear_attention/linear_attention.mlir -tile-to-nvidia="out=%t.bhsd cubin=false bind=6=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=BHSD < %t.bhsd/linear_attention.json
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: mbarrier.try_wait.parity.shared
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 216
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// CHECK-DAG: shfl.sync.bfly
// CHECK-DAG: bar.sync
// CHECK-DAG: ex2.approx.ftz.f32
// MANIFEST: "blocks_per_sm": 2
// MANIFEST: "dtype": "i1",
// MANIFEST-NEXT: "kind": "scalar",
// MANIFEST-NEXT: "value": true
// MANIFEST: "threads": 256
// BHSD: "value": false
