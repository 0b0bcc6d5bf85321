// ptxas -arch=sm_90a accepts the PTX of every bundled NVIDIA kernel, and
// the pipeline assembles a cubin itself when ptxas is installed.
// REQUIRES: ptxas
// RUN: rm -rf %t && tk-opt %kernels/gemm/gemm.mlir -tile-to-nvidia="out=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t/gemm.ptx -o %t/check.cubin
// RUN: test -s %t/gemm.cubin
// RUN: FileCheck %s < %t/gemm.json
// RUN: rm -rf %t.abt && tk-opt %kernels/gemm/gemm_abt.mlir -tile-to-nvidia="out=%t.abt" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.abt/gemm_abt.ptx -o %t.abt/check.cubin
// RUN: rm -rf %t.mc && tk-opt %kernels/alternatives/gemm_multicast.mlir -tile-to-nvidia="out=%t.mc cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.mc/gemm_multicast.ptx -o %t.mc/check.cubin
// RUN: rm -rf %t.sm && tk-opt %kernels/alternatives/softmax_scores.mlir -tile-to-nvidia="out=%t.sm cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.sm/softmax_scores.ptx -o %t.sm/check.cubin
// RUN: rm -rf %t.wt && tk-opt %kernels/gemm/gemm.mlir -tile-to-nvidia="out=%t.wt cubin=false wait-timeout-ms=1000" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.wt/gemm.ptx -o %t.wt/check.cubin 2>&1 | FileCheck %s --check-prefix=NOT-SERIALIZED
// RUN: rm -rf %t.tp && tk-opt %tk_src_root/python/gpu_checks/tile_paths.mlir -tile-to-nvidia="out=%t.tp cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.tp/tile_paths.ptx -o %t.tp/check.cubin
// RUN: rm -rf %t.cw && tk-opt %tk_src_root/python/gpu_checks/cross_warp.mlir -tile-to-nvidia="out=%t.cw cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.cw/cross_warp.ptx -o %t.cw/check.cubin
// RUN: rm -rf %t.la && tk-opt %kernels/linear_attention/linear_attention.mlir -tile-to-nvidia="out=%t.la cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.la/linear_attention.ptx -o %t.la/check.cubin
// RUN: rm -rf %t.ld && tk-opt %kernels/linear_attention/linear_attention_decay.mlir -tile-to-nvidia="out=%t.ld cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.ld/linear_attention_decay.ptx -o %t.ld/check.cubin
// RUN: rm -rf %t.l128 && tk-opt %kernels/linear_attention/linear_attention_d128.mlir -tile-to-nvidia="out=%t.l128 cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.l128/linear_attention_d128.ptx -o %t.l128/check.cubin
// RUN: rm -rf %t.bs && tk-opt %kernels/linear_attention/based.mlir -tile-to-nvidia="out=%t.bs cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.bs/based.ptx -o %t.bs/check.cubin
// RUN: rm -rf %t.ms && tk-opt %kernels/ssm/mamba2_ssd.mlir -tile-to-nvidia="out=%t.ms cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.ms/mamba2_ssd.ptx -o %t.ms/check.cubin
// RUN: rm -rf %t.ms2 && tk-opt %kernels/ssm/mamba2_ssd_n128.mlir -tile-to-nvidia="out=%t.ms2 cubin=false bind=12=true,13=true" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.ms2/mamba2_ssd_n128.ptx -o %t.ms2/check.cubin
// RUN: rm -rf %t.tw && tk-opt %tk_src_root/python/gpu_checks/tile_walk.mlir -tile-to-nvidia="out=%t.tw cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.tw/walk.ptx -o %t.tw/check.cubin
// RUN: rm -rf %t.at && tk-opt %kernels/alternatives/attention_fwd.mlir -tile-to-nvidia="out=%t.at cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.at/attention_fwd.ptx -o %t.at/check.cubin 2>&1 | FileCheck %s --check-prefix=NO-INJECTED-FENCE --allow-empty
// RUN: rm -rf %t.rs && tk-opt %kernels/multi_gpu/gemm_reduce_scatter.mlir -tile-to-nvidia="out=%t.rs cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.rs/gemm_reduce_scatter.ptx -o %t.rs/check.cubin
// RUN: rm -rf %t.pr && tk-opt %S/Inputs/peer_reduce.mlir -tile-to-nvidia="out=%t.pr cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.pr/peer_reduce.ptx -o %t.pr/check.cubin
// RUN: FileCheck %s --check-prefix=PEER-REDUCE < %t.pr/peer_reduce.ptx
// RUN: rm -rf %t.ag && tk-opt %kernels/multi_gpu/all_gather_gemm.mlir -tile-to-nvidia="out=%t.ag cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.ag/all_gather_gemm.ptx -o %t.ag/check.cubin
// RUN: rm -rf %t.agb && tk-opt %kernels/alternatives/all_gather_gemm_blocks.mlir -tile-to-nvidia="out=%t.agb cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.agb/all_gather_gemm_blocks.ptx -o %t.agb/check.cubin
// RUN: rm -rf %t.gn && tk-opt %kernels/gemm/gemm_naive.mlir -tile-to-nvidia="out=%t.gn cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.gn/gemm_naive.ptx -o %t.gn/check.cubin
// RUN: rm -rf %t.gp && tk-opt %tk_src_root/python/gpu_checks/gemm_pipelined.mlir -tile-to-nvidia="out=%t.gp cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.gp/gemm_pipelined.ptx -o %t.gp/check.cubin
// RUN: rm -rf %t.gq && tk-opt %tk_src_root/python/gpu_checks/gemm_pipelined.mlir -tile-to-nvidia="out=%t.gq cubin=false warp-specialize=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.gq/gemm_pipelined.ptx -o %t.gq/check.cubin
// RUN: rm -rf %t.cv && tk-opt %tk_src_root/python/gpu_checks/carried_walk.mlir -tile-to-nvidia="out=%t.cv cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.cv/carried_walk.ptx -o %t.cv/check.cubin
// RUN: rm -rf %t.sk && tk-opt %kernels/alternatives/gemm_streamk.mlir -tile-to-nvidia="out=%t.sk cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.sk/gemm_streamk.ptx -o %t.sk/check.cubin
// RUN: rm -rf %t.pp && tk-opt %kernels/alternatives/gemm_pingpong.mlir -tile-to-nvidia="out=%t.pp cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.pp/gemm_pingpong.ptx -o %t.pp/check.cubin
// RUN: rm -rf %t.an && tk-opt %kernels/attention/attention_naive.mlir -tile-to-nvidia="out=%t.an cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.an/attention_naive.ptx -o %t.an/check.cubin
// RUN: rm -rf %t.a6 && tk-opt %kernels/attention/attention_naive_d64.mlir -tile-to-nvidia="out=%t.a6 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.a6/attention_naive_d64.ptx -o %t.a6/check.cubin
// The short causal variant (tk_mlir.ops.attention.VARIANTS): a four-stage ring.
// RUN: rm -rf %t.r4 && tk-opt %kernels/attention/attention_naive_d64.mlir -tile-to-nvidia="out=%t.r4 cubin=false producer-registers=24 stages=4 override-stages=true" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.r4/attention_naive_d64.ptx -o %t.r4/check.cubin
// RUN: rm -rf %t.aq && tk-opt %kernels/alternatives/attention_naive_d64_q128.mlir -tile-to-nvidia="out=%t.aq cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.aq/attention_naive_d64_q128.ptx -o %t.aq/check.cubin
// RUN: rm -rf %t.ak && tk-opt %kernels/attention/attention_naive_kv176.mlir -tile-to-nvidia="out=%t.ak cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.ak/attention_naive_kv176.ptx -o %t.ak/check.cubin
// RUN: rm -rf %t.bq && tk-opt %kernels/attention/attention_bwd_dq.mlir -tile-to-nvidia="out=%t.bq cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.bq/attention_bwd_dq.ptx -o %t.bq/check.cubin
// RUN: rm -rf %t.bk && tk-opt %kernels/attention/attention_bwd_dkv.mlir -tile-to-nvidia="out=%t.bk cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.bk/attention_bwd_dkv.ptx -o %t.bk/check.cubin
// RUN: rm -rf %t.b6 && tk-opt %kernels/attention/attention_bwd_dq_d64.mlir -tile-to-nvidia="out=%t.b6 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.b6/attention_bwd_dq_d64.ptx -o %t.b6/check.cubin
// RUN: rm -rf %t.k6 && tk-opt %kernels/attention/attention_bwd_dkv_d64.mlir -tile-to-nvidia="out=%t.k6 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.k6/attention_bwd_dkv_d64.ptx -o %t.k6/check.cubin
// RUN: rm -rf %t.dl && tk-opt %kernels/attention/attention_bwd_delta.mlir -tile-to-nvidia="out=%t.dl cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.dl/attention_bwd_delta.ptx -o %t.dl/check.cubin
// RUN: rm -rf %t.d6 && tk-opt %kernels/attention/attention_bwd_delta_d64.mlir -tile-to-nvidia="out=%t.d6 cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.d6/attention_bwd_delta_d64.ptx -o %t.d6/check.cubin
// RUN: rm -rf %t.cv && tk-opt %kernels/attention/attention_bwd_dq_convert.mlir -tile-to-nvidia="out=%t.cv cubin=false" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.cv/attention_bwd_dq_convert.ptx -o %t.cv/check.cubin
// RUN: rm -rf %t.fb && tk-opt %kernels/attention/attention_bwd.mlir -tile-to-nvidia="out=%t.fb cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.fb/attention_bwd.ptx -o %t.fb/check.cubin 2>&1 | FileCheck %s --check-prefix=NO-INJECTED-FENCE --allow-empty
// RUN: rm -rf %t.f6 && tk-opt %kernels/attention/attention_bwd_d64.mlir -tile-to-nvidia="out=%t.f6 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.f6/attention_bwd_d64.ptx -o %t.f6/check.cubin 2>&1 | FileCheck %s --check-prefix=NO-INJECTED-FENCE --allow-empty
// RUN: rm -rf %t.q80 && tk-opt %kernels/alternatives/attention_bwd_q80.mlir -tile-to-nvidia="out=%t.q80 cubin=false producer-registers=24" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.q80/attention_bwd_q80.ptx -o %t.q80/check.cubin
// RUN: rm -rf %t.fc && tk-opt %kernels/attention/attention_bwd.mlir -tile-to-nvidia="out=%t.fc cubin=false producer-registers=24 mma-split=contraction stages=2" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.fc/attention_bwd.ptx -o %t.fc/check.cubin
// CHECK: "cubin": "gemm.cubin"

// The register-A wgmmas (attention's P V) get their operands packed before
// the fence: ptxas has no warpgroup.arrive to inject between them.
// NO-INJECTED-FENCE-NOT: C7519

// The GEMM with wait time limits (their record and trap, no call): ptxas
// keeps its wgmmas pipelined (a vprintf there made it serialize them).
// NOT-SERIALIZED-NOT: C7510
// NOT-SERIALIZED: Used {{[0-9]+}} registers

// Register tiles added into a peer's copy: relaxed adds at system scope,
// f16 and bf16 through 16-bit registers.
// PEER-REDUCE: red.relaxed.sys.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// PEER-REDUCE: red.relaxed.sys.global.add.noftz.f16 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
// PEER-REDUCE: red.relaxed.sys.global.add.noftz.bf16 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
