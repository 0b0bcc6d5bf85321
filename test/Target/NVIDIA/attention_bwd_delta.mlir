// The backward's Δ = rowsum(dO ∘ O) program (attention_bwd_delta.mlir, and
// its head-dim-64 twin) through -tile-to-nvidia: tile-pipeline turns the two
// per-tile copies into TMA loads that are both issued before the first wait;
// the product and row sum stay in registers (ldmatrix, quad shuffles); each
// row's sum is one 4-byte global store. No MMA, no global loads.
// And the fused backward's dQ conversion (attention_bwd_dq_convert.mlir):
// per 64x64 tile of the accumulator (fragment order), eight 16-byte loads
// per thread, the conversion to bf16 and four 16-byte row-major stores
// (element stores where a tile crosses the sequence's end); no shared
// memory, no TMA, no MMA.
// RUN: rm -rf %t.cv && tk-opt %kernels/attention/attention_bwd_dq_convert.mlir -tile-to-nvidia="out=%t.cv cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=CONVERT --implicit-check-not=cp.async.bulk --implicit-check-not=wgmma --implicit-check-not=.shared < %t.cv/attention_bwd_dq_convert.ptx
// RUN: tk-opt %kernels/attention/attention_bwd_delta.mlir -tile-pipeline | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && tk-opt %kernels/attention/attention_bwd_delta.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --implicit-check-not=ld.global --implicit-check-not=wgmma < %t/attention_bwd_delta.ptx
// RUN: rm -rf %t.d64 && tk-opt %kernels/attention/attention_bwd_delta_d64.mlir -tile-to-nvidia="out=%t.d64 cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=D64 --implicit-check-not=ld.global < %t.d64/attention_bwd_delta_d64.ptx

// IR:      tile.foreach_tile
// IR:        tile.load_async %arg0{{.*}} -> %[[O:[^,]*]], %[[FO:[^ ]*]] :
// IR-NOT:    tile.sem_wait %[[FO]]
// IR:        tile.load_async %arg1{{.*}} -> %[[DO:[^,]*]], %[[FDO:[^ ]*]] :
// IR:        tile.sem_wait %[[FO]]
// IR-NEXT:   tile.load %[[O]]
// IR:        tile.sem_wait %[[FDO]]
// IR-NEXT:   tile.load %[[DO]]
// IR:        tile.row_sum
// IR:        tile.store {{.*}} : !tile.rv<64xf32, warpgroup>, !tile.gl<?x?x?xf32>

// PTX:       .entry attention_bwd_delta(
// PTX:       .maxntid 128, 1, 1
// Two 64-column TMA boxes of O, the wait for dO's buffer to be free, two
// boxes of dO, and only then the wait for O and its ldmatrix.
// PTX-COUNT-2: cp.async.bulk.tensor.4d
// PTX:       mbarrier.try_wait
// PTX:       cp.async.bulk.tensor.4d
// PTX:       cp.async.bulk.tensor.4d
// PTX-NOT:   cp.async.bulk
// PTX:       mbarrier.try_wait
// PTX-NOT:   cp.async.bulk
// PTX-COUNT-8: ldmatrix.sync.aligned.m8n8.x4
// PTX:       mbarrier.try_wait
// PTX-COUNT-8: ldmatrix.sync.aligned.m8n8.x4
// PTX-COUNT-4: shfl.sync.bfly.b32
// PTX-COUNT-2: st.global.b32

// D64:       .entry attention_bwd_delta_d64(
// D64-COUNT-2: cp.async.bulk.tensor.4d
// D64-COUNT-4: ldmatrix.sync.aligned.m8n8.x4
// D64:       shfl.sync.bfly.b32
// D64:       st.global.b32

// CONVERT:       .entry attention_bwd_dq_convert(
// CONVERT:       .maxntid 128, 1, 1
// CONVERT-COUNT-8: ld.global.v4.b32
// CONVERT-NOT:   ld.global
// CONVERT:       cvt.rn.bf16x2.f32
// CONVERT:       st.global.v4.b32
// CONVERT:       st.global.b16
