#!/usr/bin/env bash
# Sets tk-mlir up on Debian 12 and runs the main job: installs the packages it
# needs (when missing), builds tk-opt, then compiles the bundled GEMM program
# to PTX, cubin (when the CUDA toolkit's ptxas is present) and a launch
# manifest, and shows what came out; also compiles the A·Bᵀ GEMM, the
# attention programs that tk_mlir.attention() and tk_mlir.linear_attention()
# load, and the naive GEMM and
# attention programs for AMD (gfx942, gfx950: ISA + HSACO + manifest;
# compiled, not run here).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh tk-opt tk-compile TKCAPI

# kernels/<family>/<name>.mlir for a program name.
src() { ls kernels/*/"$1".mlir; }

# Runs build/bin/tk-opt. Its remarks (a layout conversion inserted, a store
# not staged through shared memory, no ptxas found) are left out: they
# describe choices the passes made, not problems. Its warnings (e.g. a
# ptxas release that can miscompile the kernel) go to standard error, with
# their source line and notes the first time a message comes and as one
# line after that. When tk-opt fails, everything it printed is shown and
# setup stops.
warnings_seen=$(mktemp)
trap 'rm -f "$warnings_seen"' EXIT
tk_opt() {
  local err
  err=$(mktemp)
  if ! build/bin/tk-opt "$@" 2> "$err"; then
    cat "$err" >&2
    rm -f "$err"
    echo "error: build/bin/tk-opt $* failed" >&2
    return 1
  fi
  # A diagnostic starts with "<location>: <severity>: " and runs until the
  # next one (the source line and caret, notes): shown after a warning or
  # an error, hidden after a remark.
  awk -v seen="$warnings_seen" '
    BEGIN { show = 1; while ((getline line < seen) > 0) known[line] = 1
            close(seen) }
    /(^|: )remark: / { show = 0; next }
    /(^|: )(warning|error): / {
      message = $0
      sub(/^.*(warning|error): /, "", message)
      print
      if (message in known) { show = 0; next }
      known[message] = 1
      print message >> seen
      show = 1
      next
    }
    show' "$err" >&2
  rm -f "$err"
}

kernel=kernels/gemm/gemm.mlir
out=build/artifacts/gemm
echo
echo "== tk-opt $kernel -tile-to-nvidia=out=$out"
rm -rf "$out"
tk_opt "$kernel" -tile-to-nvidia="out=$out" -o /dev/null
ls -l "$out"
echo
echo "== the instructions that make it fast, in $out/gemm.ptx"
grep -oE "wgmma.mma_async[a-z0-9._]*|cp.async.bulk.tensor[a-z0-9._:]*|mbarrier.try_wait[a-z0-9._]*|setmaxnreg[a-z0-9._]*" \
  "$out/gemm.ptx" | sort | uniq -c
echo
echo "== launch ABI ($out/gemm.json, abridged)"
/usr/bin/python3 - "$out/gemm.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
k = m["kernels"]["gemm"]
print(f"kernel gemm: {k['threads']} threads, {k['shared_memory_bytes']} B shared"
      f" memory, grid {k['grid_policy']}, target {k['target']}")
print("parameters:", ", ".join(f"{e['kind']}[{e['param']}]" for e in k["abi"]))
print("binaries:", m["ptx"], m.get("cubin", "(no ptxas: PTX only)"))
PY
# C = A · Bᵀ (gemm.py --transpose-b runs it).
rm -rf build/artifacts/gemm_abt
tk_opt kernels/gemm/gemm_abt.mlir -tile-to-nvidia="out=build/artifacts/gemm_abt" \
  -o /dev/null
for kernel in attention_naive attention_naive_d64 attention_naive_d64_q128 \
    attention_naive_kv176 attention_bwd \
    attention_bwd_d64 attention_bwd_dq attention_bwd_dkv attention_bwd_dq_d64 \
    attention_bwd_dkv_d64 attention_bwd_delta attention_bwd_delta_d64 \
    attention_bwd_q80 attention_bwd_dq_convert; do
  rm -rf "build/artifacts/$kernel"
  tk_opt "$(src "$kernel")" \
    -tile-to-nvidia="out=build/artifacts/$kernel producer-registers=24" \
    -o /dev/null
done
# Variants: a program compiled again with other options under its own name,
# as tk_mlir.ops.attention.VARIANTS lists them (the short causal head-dim-64
# forward's four-stage ring, and that forward compiled for causal = false;
# with the attention programs' producer budget), the linear-attention
# programs, one per layout (tk_mlir.ops.linear_attention.variants()), and the
# Mamba2 SSD programs, one per state dim with and without the gate and the
# skip (tk_mlir.ops.ssd.variants()).
PYTHONPATH=python python3 -c '
from tk_mlir.ops.attention import VARIANTS
from importlib import import_module
for name, (program, options) in VARIANTS.items():
    print(name, program, "producer-registers=24", options)
for module in ("linear_attention", "ssd", "tensor_parallel"):
    variants = import_module("tk_mlir.ops." + module).variants
    for name, (program, options) in variants().items():
        print(name, program, options)' |
while read -r name program options; do
  rm -rf "build/artifacts/$name"
  tk_opt "$(src "$program")" \
    -tile-to-nvidia="out=build/artifacts/$name $options" -o /dev/null
done
echo
echo "== attention kernels for tk_mlir.attention(): build/artifacts/attention_{naive,bwd,bwd_dq,bwd_dkv,bwd_delta}{,_d64}, attention_naive_kv176, attention_naive_d64_q128, attention_bwd_q80 (an alternative head-dim-128 fused backward), attention_bwd_dq_convert (the fused backward's dQ to bf16), attention_naive_d64_ring4 (attention_naive_d64 with a four-stage ring, for short causal calls), attention_naive_d64_nc (attention_naive_d64 compiled for causal = false, for non-causal calls)"
echo
echo "== linear-attention kernels for tk_mlir.linear_attention() and based(): build/artifacts/{linear_attention,linear_attention_d128,linear_attention_decay}_{bhsd,bshd} (one per layout), based{,_norm} (one per value of normalize; both layouts)"
echo
echo "== Mamba2 SSD kernels for tk_mlir.ssd_chunk_scan(): build/artifacts/mamba2_ssd{,_n128}{,_z}{,_d} (state dim 64, 128; with the z gate, the D skip)"
echo
echo "== tensor-parallel kernels for tk_mlir.ops.tensor_parallel (multi-GPU): build/artifacts/{gemm_reduce_scatter,all_gather_gemm,all_gather_gemm_blocks}"
echo
echo "== AMD: the same naive programs for gfx942 and gfx950 (build/artifacts/amd/)"
rm -rf build/artifacts/amd
for chip in gfx942 gfx950; do
  tk_opt kernels/gemm/gemm_naive.mlir \
    -tile-to-amdgpu="chip=$chip out=build/artifacts/amd/$chip" -o /dev/null
done
for chip in gfx942 gfx950; do
  for kernel in attention_naive attention_naive_d64; do
    tk_opt "$(src "$kernel")" \
      -tile-to-amdgpu="chip=$chip out=build/artifacts/amd/$chip" -o /dev/null
  done
done
/usr/bin/python3 - build/artifacts/amd <<'PY'
import glob, json, os, sys
for manifest in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.json"))):
    m = json.load(open(manifest))
    for name, k in m["kernels"].items():
        r = k["resources"]
        print(f"{k['target']} {name}: {m['hsaco']}, {k['threads']} threads, "
              f"{r['vgprs']} VGPRs, {r['sgprs']} SGPRs, "
              f"{k['shared_memory_bytes']} B LDS, "
              f"{r['scratch_bytes_per_lane']} B scratch per lane")
PY
echo
echo "Run it on a GPU: python3 python/benchmarks/gemm.py --manifest $out/gemm.json"
