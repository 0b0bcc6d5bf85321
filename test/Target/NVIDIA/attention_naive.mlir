// The naive attention program becomes a warp-specialized kernel through
// -tile-to-nvidia's passes: a producer loading Q per tile and K/V through a
// ring, two consumers each owning 64 query rows with the online softmax on
// the wgmma accumulator, P fed back as a register A operand; a persistent
// grid (the program asks for it) whose ring position continues across
// tiles by a running sum of the K/V trip counts (which depend on the tile
// when causal), and two Q buffers, so the next tile's Q loads during this
// one. tile-overlap-mma then issues each step's Q Kᵀ together with the
// previous step's P V and waits for the first alone (wait_group 1), so the
// softmax runs under P V. Q is read into registers (ldmatrix) once per
// tile and is Q Kᵀ's A operand.
// RUN: rm -rf %t && tk-opt %kernels/attention/attention_naive.mlir -tile-to-nvidia="out=%t cubin=false producer-registers=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=PTX < %t/attention_naive.ptx
// RUN: FileCheck %s --check-prefix=QREG < %t/attention_naive.ptx
// RUN: not grep -q "sub.rn.f32" %t/attention_naive.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/attention_naive.json
// The program's tile.stagger: the second consumer starts 2400 cycles after
// the first.
// RUN: FileCheck %s --check-prefix=STAGGER < %t/attention_naive.ptx
// STAGGER: setmaxnreg.inc.sync.aligned.u32 240;
// STAGGER-NEXT: mad.lo.s64 [[CYCLES:%rd[0-9]+]], %rd{{[0-9]+}}, 2400, -2400;
// STAGGER: TK_STAGGER:
// STAGGER: setp.lt.u64 p, t1, [[CYCLES]];
// The program's tile.pingpong: the consumers take turns issuing their
// wgmmas on named barriers 10 and 11 (256 threads). The second consumer
// passes the first its first turn after the stagger; each issue phase syncs
// on the consumer's own barrier (warpgroup w = 1, 2: barrier w + 9) before
// its wgmmas and arrives on the other's after the commit, before the wait
// (the loop: Q Kᵀ and P V in one turn, then wait_group 1).
// RUN: FileCheck %s --check-prefix=PINGPONG < %t/attention_naive.ptx
// PINGPONG: TK_STAGGER
// PINGPONG: bar.arrive %r{{[0-9]+}}, 256;
// PINGPONG: add.s32 [[TAKE:%r[0-9]+]], %r{{[0-9]+}}, 9;
// PINGPONG-NEXT: bar.sync [[TAKE]], 256;
// PINGPONG: wgmma.fence.sync.aligned;
// PINGPONG: wgmma.commit_group.sync.aligned;
// PINGPONG: bar.arrive %r{{[0-9]+}}, 256;
// PINGPONG-NEXT: // end inline asm
// PINGPONG-NEXT: wgmma.wait_group.sync.aligned 0;
// PINGPONG: bar.sync %r{{[0-9]+}}, 256;
// PINGPONG: wgmma.commit_group.sync.aligned;
// PINGPONG-NOT: bar.
// PINGPONG: wgmma.commit_group.sync.aligned;
// PINGPONG: bar.arrive %r{{[0-9]+}}, 256;
// PINGPONG-NEXT: // end inline asm
// PINGPONG-NEXT: wgmma.wait_group.sync.aligned 1;
// After the role the first consumer takes the last pass.
// RUN: FileCheck %s --check-prefix=LASTTURN < %t/attention_naive.ptx
// LASTTURN: bar.sync 10, 256;
// LASTTURN-NEXT: $L__
// LASTTURN-NEXT: ret;
// The snake order survives warp specialization: producer and consumers walk
// the same tiles.
// RUN: tk-opt %kernels/attention/attention_naive.mlir -tile-pipeline -tile-warp-specialize 2>/dev/null | FileCheck %s --check-prefix=SNAKE
// SNAKE: tile.warp_specialize producer
// SNAKE: tile.foreach_tile ({{.*}}) in ({{.*}}) snake iteration(
// SNAKE: consumer(
// SNAKE: tile.foreach_tile ({{.*}}) in ({{.*}}) snake iteration(

// REMARK: remark: layout conversion inserted for operand #0: #tile.mma_acc to #tile.row

// QREG: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[Q0:%r[0-9]+]],
// QREG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}}, {[[Q0]], %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd

// PTX: .entry attention_naive
// PTX: .maxntid 384, 1, 1
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 24
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240
// PTX-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-DAG: ex2.approx
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: wgmma.wait_group.sync.aligned 1;
// The scaled score minus the scaled row max is one fma (fp-contract):
// PTX-DAG: fma.rn.f32

// MANIFEST: "grid_policy": "persistent",
// MANIFEST: "threads": 384,
