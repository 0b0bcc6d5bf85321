#!/usr/bin/env bash
# Every GPU check of python/gpu_checks/ in one command, with a summary.
#
#   scripts/gpu_checks.sh compile                  # where tk-opt is built
#   scripts/gpu_checks.sh run [--out DIR] [CHECK ...]   # on the GPU machine
#
# `compile` (after scripts/setup.sh) compiles the check programs into
# build/artifacts/checks/ and the tensor-parallel kernels with a 3000 ms
# wait limit into build/artifacts/<program>_wait3000. `run`, from the
# checkout root of a machine with python3 (torch, cuda-bindings) and
# build/artifacts, runs every check that machine can run (the multi-GPU
# ones under torchrun over all its GPUs when it has two or more), or only
# the CHECKs named. Each check runs under its own time limit; its JSON goes
# to DIR (default build/gpu-checks) and its output to DIR/logs/CHECK.log.
# Prints one line per check and exits 1 when any check failed, crashed or
# ran out of time.
set -uo pipefail
cd "$(dirname "$0")/.."

A=build/artifacts
C=$A/checks
G=python/gpu_checks

compile() {
  set -e
  local tk=build/bin/tk-opt
  rm -rf "$C"
  for name in tile_paths tile_walk cross_warp carried_walk; do
    "$tk" "$G/$name.mlir" -tile-to-nvidia="out=$C/$name" -o /dev/null
  done
  # The ring with and without tile-warp-specialize (gemm_pipelined.py).
  "$tk" $G/gemm_pipelined.mlir -tile-to-nvidia="out=$C/gemm_pipelined/ws" \
    -o /dev/null
  "$tk" $G/gemm_pipelined.mlir \
    -tile-to-nvidia="out=$C/gemm_pipelined/no_ws warp-specialize=false" \
    -o /dev/null
  "$tk" $G/wait_timeout.mlir \
    -tile-to-nvidia="out=$C/wait_timeout wait-timeout-ms=200" -o /dev/null
  # (tensor_parallel.py loads <program>_wait<ms> for TK_MLIR_WAIT_TIMEOUT_MS.)
  for program in gemm_reduce_scatter all_gather_gemm; do
    rm -rf "$A/${program}_wait3000"
    "$tk" kernels/multi_gpu/$program.mlir \
      -tile-to-nvidia="out=$A/${program}_wait3000 wait-timeout-ms=3000" \
      -o /dev/null
  done
  echo "compiled the check programs into $C"
}

# One check: NAME, seconds allowed, command (given --out). Skipped unless
# wanted; counts what ran and what was not ok.
check() {
  local name=$1 limit=$2
  shift 2
  if [ -n "$wanted" ] && [[ "$wanted" != *" $name "* ]]; then
    return 0
  fi
  ran=$((ran + 1))
  local log=$out/logs/$name.log start=$SECONDS status summary rc
  timeout -k 10 "$limit" "$@" --out "$out" > "$log" 2>&1
  rc=$?
  case $rc in
    0) status=ok ;;
    124|137) status="TIMED OUT after $limit s" ;;
    *) status="FAILED (exit $rc)" ;;
  esac
  [ $rc -eq 0 ] || bad=$((bad + 1))
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  printf '%-26s %-22s %4ss  %s\n' "$name" "$status" $((SECONDS - start)) \
    "${summary:-(no result line; see $log)}"
}

run() {
  out=build/gpu-checks
  if [ "${1:-}" = --out ]; then
    out=$2
    shift 2
  fi
  mkdir -p "$out/logs" || return 1
  wanted=${*:+ $* }
  ran=0
  bad=0
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
    NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
  local gpus
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || gpus=0
  check tile_paths 120 python3 $G/tile_paths.py \
    --manifest $C/tile_paths/tile_paths.json
  check cross_warp 120 python3 $G/cross_warp.py \
    --manifest $C/cross_warp/cross_warp.json
  check carried_walk 120 python3 $G/carried_walk.py \
    --manifest $C/carried_walk/carried_walk.json
  check tile_walk 120 python3 $G/tile_walk.py --manifest $C/tile_walk/walk.json
  check gemm_pipelined 120 python3 $G/gemm_pipelined.py \
    --manifest $C/gemm_pipelined/ws/gemm_pipelined.json \
    --manifest $C/gemm_pipelined/no_ws/gemm_pipelined.json
  check wait_timeout 240 python3 $G/wait_timeout.py \
    --manifest $C/wait_timeout/wait_timeout.json --limit-ms 200
  check attention_api 240 python3 $G/attention_api.py
  check attention_bwd_programs 300 python3 $G/attention_bwd_programs.py
  check ssd 300 python3 $G/ssd.py
  check linear_attention 300 python3 $G/linear_attention.py
  check torch_ops 400 python3 $G/torch_ops.py
  if [ "$gpus" -ge 2 ]; then
    local tp="torchrun --nproc-per-node $gpus"
    check devices 120 python3 $G/devices.py
    check tensor_parallel 400 $tp $G/tensor_parallel.py
    check tensor_parallel_timeout_rs 180 $tp $G/tensor_parallel_timeout.py \
      --op gemm_reduce_scatter
    check tensor_parallel_timeout_ag 180 $tp $G/tensor_parallel_timeout.py \
      --op all_gather_gemm
  fi
  if [ -n "$wanted" ] && [ "$ran" -ne $# ]; then
    echo "unknown or unavailable check among:$wanted(GPUs: $gpus)" >&2
    return 1
  fi
  echo "$ran checks, $bad not ok ($gpus GPUs; JSON in $out)"
  [ "$bad" -eq 0 ]
}

case "${1:-}" in
  compile) compile ;;
  run) shift; run "$@" ;;
  *) echo "usage: scripts/gpu_checks.sh compile | run [--out DIR] [CHECK ...]" \
       >&2
     exit 2 ;;
esac
