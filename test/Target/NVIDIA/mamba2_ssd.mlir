// The Mamba2 SSD programs through the default pipeline, in each variant
// tk_mlir.ssd compiles (gate and skip bound): TMA ring for X, B, C and the
// dt rows (shared vectors) with a producer warpgroup, wgmma m64n64k16 (and
// m64n128k16 for the state of the N = 128 program), the chunk's scans
// (shuffles and an exchange between the warpgroup's warps), exp on the
// special-function unit, the initial and final states' loads and stores,
// and the hand-over between segments of a tile's chunks (acquire poll of
// the tile's counter, release add).
// `blocks_per_sm = 2`: `.minnctapersm 2`, each of the 256 threads starts
// with 128 registers, the consumer gets 216 (2 x 128 x 128 registers per
// multiprocessor), and the manifest tells the launcher to start two
// persistent workers per multiprocessor. The N = 128 program's ring gets 2
// stages, which is what fits in half a multiprocessor's shared memory.
// ptxas accepts both (ptxas.mlir).
// RUN: rm -rf %t && tk-opt %kernels/ssm/mamba2_ssd.mlir -tile-to-nvidia="out=%t cubin=false bind=12=true,13=true" -o /dev/null
// RUN: FileCheck %s < %t/mamba2_ssd.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/mamba2_ssd.json
// RUN: rm -rf %t.n && tk-opt %kernels/ssm/mamba2_ssd_n128.mlir -tile-to-nvidia="out=%t.n cubin=false bind=12=false,13=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=N128 < %t.n/mamba2_ssd_n128.ptx
// RUN: tk-opt %kernels/ssm/mamba2_ssd_n128.mlir -tile-pipeline 2>&1 | FileCheck %s --check-prefix=RING
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 2
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 216
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-DAG: shfl.sync.idx.b32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: ld.acquire.gpu.global.b32
// CHECK-DAG: red.release.gpu.global.add.s32
// MANIFEST: "blocks_per_sm": 2
// MANIFEST: "threads": 256
// N128: .minnctapersm 2
// N128: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// RING: tile.alloc : !tile.st<2x64x128xbf16
// RING-NOT: tile.alloc : !tile.st<3x
