// Head dim 64: the naive program with 64-column Q, K, V and O and 192-query
// tiles: a producer and three consumer warpgroups (512 threads, 24 / 160
// registers); the output MMA is m64n64 and each K/V stage is two 16 KB
// tiles. Q is read into registers once per tile (Q Kᵀ's A operand). Each
// consumer skips the key tiles its own rows do not need (tile.part_rows),
// and causal, takes a half step (Q Kᵀ and P V over the key tile's first 64
// keys: m64n64 MMAs, Q still from registers) where its rows end before the
// tile's second half; with four MMAs in the key loop tile-overlap-mma does
// not take it (it rotates loops of two). The warpgroup index the branches test is lane 0's
// (shfl.sync.idx), so ptxas keeps it warp-uniform. Its running maximum lags by
// up to 8 (exp2 units): a compare with the slack keeps it, and threads whose
// two rescaling factors are both 1.0 branch around O's 32 multiplies.
// RUN: rm -rf %t && tk-opt %kernels/attention/attention_naive_d64.mlir -tile-to-nvidia="out=%t cubin=false producer-registers=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t/attention_naive_d64.ptx
// RUN: FileCheck %s --check-prefix=LAZY < %t/attention_naive_d64.ptx
// RUN: FileCheck %s --check-prefix=QREG < %t/attention_naive_d64.ptx
// RUN: FileCheck %s --check-prefix=HALF < %t/attention_naive_d64.ptx
// RUN: not grep -q "wgmma.wait_group.sync.aligned 	1;" %t/attention_naive_d64.ptx
// Compiled for causal = false (`bind`, as tk_mlir.attention's non-causal
// variant): the half step folds away (8 m64n64 MMAs, P V's, not 16) and the
// manifest records the bound value.
// RUN: tk-opt %kernels/attention/attention_naive_d64.mlir -tile-to-nvidia="out=%t/nc cubin=false producer-registers=24 bind=6=false" -o /dev/null 2>/dev/null
// RUN: grep -c m64n64k16 %t/attention_naive_d64.ptx | FileCheck %s --check-prefix=BOTH
// RUN: grep -c m64n64k16 %t/nc/attention_naive_d64.ptx | FileCheck %s --check-prefix=NC
// RUN: FileCheck %s --check-prefix=NCJSON < %t/nc/attention_naive_d64.json
// BOTH: {{^}}16{{$}}
// NC: {{^}}8{{$}}
// NCJSON: "dtype": "i1",
// NCJSON-NEXT: "kind": "scalar",
// NCJSON-NEXT: "value": false
// The program's tile.stagger: consumer i starts 1200·i cycles late.
// RUN: FileCheck %s --check-prefix=STAGGER < %t/attention_naive_d64.ptx
// STAGGER: setmaxnreg.inc.sync.aligned.u32 160;
// STAGGER-NEXT: mad.lo.s64 [[CYCLES:%rd[0-9]+]], %rd{{[0-9]+}}, 1200, -1200;
// STAGGER: TK_STAGGER:
// STAGGER: setp.lt.u64 p, t1, [[CYCLES]];

// REMARK-NOT: MMAs not overlapped
// REMARK: remark: layout conversion inserted for operand #0: #tile.mma_acc to #tile.row
// REMARK-NEXT: %o_new = tile.mma AB %p16, %v_h, %o_scaled
// REMARK: remark: layout conversion inserted for operand #0: #tile.mma_acc to #tile.row
// REMARK-NEXT: %o_new = tile.mma AB %p16, %v, %o_scaled

// QREG: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[Q0:%r[0-9]+]],
// QREG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}}, {[[Q0]], %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd

// The half step's Q Kᵀ: 64 keys, A (Q) from the same registers.
// HALF: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[Q0:%r[0-9]+]],
// HALF: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}}, {[[Q0]], %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd
// HALF-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// HALF: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}}, {[[Q0]], %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd

// CHECK: .entry attention_naive_d64
// CHECK: .maxntid 512, 1, 1
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 160
// CHECK-DAG: shfl.sync.idx.b32 	%r{{[0-9]+}}, %r{{[0-9]+}}, 0, 31, -1;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// LAZY: setp.gt.f32 	%p{{[0-9]+}}, %r{{[0-9]+}}, %r[[SLACK:[0-9]+]];
// LAZY: setp.gt.f32 	%p{{[0-9]+}}, %r{{[0-9]+}}, %r[[SLACK]];
// LAZY: setp.eq.f32 	%p[[E0:[0-9]+]], %r{{[0-9]+}}, 0f3F800000;
// LAZY-NEXT: setp.eq.f32 	%p[[E1:[0-9]+]], %r{{[0-9]+}}, 0f3F800000;
// LAZY-NEXT: and.pred 	%p[[SKIP:[0-9]+]], %p[[E0]], %p[[E1]];
// LAZY-NEXT: @%p[[SKIP]] bra
// LAZY-COUNT-32: mul.f32
