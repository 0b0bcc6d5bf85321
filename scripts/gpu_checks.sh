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
# build/artifacts, runs every check that machine can run (the
# tensor-parallel ones under torchrun over all its GPUs: with one GPU only
# tensor_parallel, in a group of one; with two or more also the devices and
# wait-limit checks), or only
# the CHECKs named (an unknown name, or one this machine cannot run, stops
# it before any check runs). Each check runs under its own time limit; its
# JSON goes to DIR (default build/gpu-checks in the checkout) and its
# output to DIR/logs/CHECK.log. Prints one line per check, writes the same
# as DIR/gpu-checks.json (the GPU, its driver, the commit, the date, and
# per check its status, seconds and counts: the record docs/results keeps),
# and exits 1 when any check failed, crashed or ran out of time (2 for a
# usage error).
set -uo pipefail
caller=$PWD
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/gpu_checks.sh compile | run [--out DIR] [CHECK ...]" \
    >&2
  exit 2
}

A=build/artifacts
C=$A/checks
G=python/gpu_checks

compile() {
  set -e
  local tk=build/bin/tk-opt
  rm -rf "$C"
  for name in tile_paths tile_walk cross_warp carried_walk fma; do
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

# The checks this machine can run: NAME, seconds allowed, command (given
# --out when it runs), the ones that take one GPU first.
declare -a names limits commands
add() {
  names+=("$1")
  limits+=("$2")
  shift 2
  commands+=("$*")
}

checks() {
  add tile_paths 120 python3 $G/tile_paths.py \
    --manifest $C/tile_paths/tile_paths.json
  add fma 120 python3 $G/fma.py --manifest $C/fma/fma.json
  add cross_warp 120 python3 $G/cross_warp.py \
    --manifest $C/cross_warp/cross_warp.json
  add carried_walk 120 python3 $G/carried_walk.py \
    --manifest $C/carried_walk/carried_walk.json
  add tile_walk 120 python3 $G/tile_walk.py --manifest $C/tile_walk/walk.json
  add gemm_pipelined 120 python3 $G/gemm_pipelined.py \
    --manifest $C/gemm_pipelined/ws/gemm_pipelined.json \
    --manifest $C/gemm_pipelined/no_ws/gemm_pipelined.json
  add wait_timeout 240 python3 $G/wait_timeout.py \
    --manifest $C/wait_timeout/wait_timeout.json --limit-ms 200
  add attention_api 240 python3 $G/attention_api.py
  add attention_bwd_programs 300 python3 $G/attention_bwd_programs.py
  add ssd 300 python3 $G/ssd.py
  add linear_attention 300 python3 $G/linear_attention.py
  add torch_ops 400 python3 $G/torch_ops.py
  # The tensor-parallel ops over every GPU of the machine; with one, a
  # group of one process (what needs two processes is left out).
  local tp="torchrun --nproc-per-node $gpus"
  if [ "$gpus" -ge 1 ]; then
    add tensor_parallel 400 $tp $G/tensor_parallel.py
  fi
  if [ "$gpus" -ge 2 ]; then
    add devices 120 python3 $G/devices.py
    add tensor_parallel_timeout_rs 180 $tp $G/tensor_parallel_timeout.py \
      --op gemm_reduce_scatter
    add tensor_parallel_timeout_ag 180 $tp $G/tensor_parallel_timeout.py \
      --op all_gather_gemm
  fi
}

run() {
  local out=build/gpu-checks wanted=" " name
  while [ $# -gt 0 ]; do
    case $1 in
      --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
      --out=*) out=${1#--out=}; shift ;;
      -*) usage ;;
      *) [[ "$wanted" == *" $1 "* ]] || wanted+="$1 "; shift ;;
    esac
  done
  # (A relative DIR is the caller's.)
  [ -n "$out" ] || usage
  [[ "$out" == /* ]] || [ "$out" = build/gpu-checks ] || out=$caller/$out
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || gpus=0
  checks
  for name in $wanted; do
    if [[ " ${names[*]} " != *" $name "* ]]; then
      echo "unknown check, or one this machine cannot run ($gpus GPUs):" \
        "$name; checks: ${names[*]}" >&2
      return 1
    fi
  done
  mkdir -p "$out/logs" || return 1
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
    NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
  local i ran=0 bad=0 limit log start seconds rc status summary entries=""
  local passed failed began=$SECONDS
  for i in "${!names[@]}"; do
    name=${names[$i]}
    limit=${limits[$i]}
    if [ "$wanted" != " " ] && [[ "$wanted" != *" $name "* ]]; then
      continue
    fi
    ran=$((ran + 1))
    log=$out/logs/$name.log
    start=$SECONDS
    timeout -k 10 "$limit" ${commands[$i]} --out "$out" > "$log" 2>&1
    rc=$?
    seconds=$((SECONDS - start))
    case $rc in
      0) status=ok ;;
      124) status="TIMED OUT after $limit s" ;;
      137) if [ "$seconds" -ge "$limit" ]; then
             status="TIMED OUT after $limit s"
           else
             status="KILLED (signal 9)"
           fi ;;
      *) status="FAILED (exit $rc)" ;;
    esac
    [ $rc -eq 0 ] || bad=$((bad + 1))
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    printf '%-26s %-22s %4ss  %s\n' "$name" "$status" "$seconds" \
      "${summary:-(no result line; see $log)}"
    passed=null failed=null
    if [ -n "$summary" ]; then
      read -r passed _ failed _ <<< "${summary//,/}"
    fi
    entries+="${entries:+,}
  {\"check\": \"$name\", \"status\": \"$status\", \"seconds\": $seconds, \"passed\": $passed, \"failed\": $failed}"
  done
  echo "$ran checks, $bad not ok ($gpus GPUs; JSON in $out)"
  write_summary "$out/gpu-checks.json" "$gpus" $((SECONDS - began)) \
    "$entries"
  [ "$bad" -eq 0 ]
}

# DIR/gpu-checks.json: what the run printed, with the machine and commit.
write_summary() {
  local device driver commit
  device=$(nvidia-smi -L 2>/dev/null | sed -n '1s/^GPU 0: \(.*\) (UUID.*/\1/p')
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader \
    2>/dev/null | head -n 1)
  commit=$(git describe --always --dirty --abbrev=7 2>/dev/null) || commit=""
  cat > "$1" <<JSON
{"device": "${device:-unknown}", "gpus": $2, "driver": "${driver:-unknown}",
 "commit": "${commit:-unknown}", "date": "$(date -u +%Y-%m-%d)",
 "command": "scripts/gpu_checks.sh run", "total_seconds": $3,
 "checks": [$4
 ]}
JSON
}

case "${1:-}" in
  compile) compile ;;
  run) shift; run "$@" ;;
  *) usage ;;
esac
