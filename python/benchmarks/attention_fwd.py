#!/usr/bin/env python3
"""Checks kernels/alternatives/attention_fwd.mlir against a float32 torch reference and
times it next to torch SDPA (its flash and cuDNN backends) in the same run.

usage: attention_fwd.py --manifest build/artifacts/attention_fwd/attention_fwd.json
                        [--gqa] [--baseline OTHER.json] [--name NAME]
                        [--check-only]

--gqa adds checks where K and V have fewer heads than Q (for kernels that
take them); --baseline times a second kernel of ours in the same run.
Benchmark shapes follow the FlashAttention-3 paper: 16k tokens in total
(batch = 16384 / seq), hidden 2048 (heads = 2048 / head dim), seq 512 …
16384; TFLOP/s = 4 · batch · heads · seq² · dim, halved for causal. The
head dim comes from the manifest (Q's last dimension).

Inputs [batch, heads, seq, 128] bf16, random normal (never zeros); outputs
poisoned with NaN before each launch. O: relative Frobenius error below
2e-2 against softmax(Q Kᵀ scale) V in float32 (P is rounded to bf16 for
the second MMA, and exp2 runs on the special-function unit); LSE: largest
absolute error below 2e-2 against float32 logsumexp.
"""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from reference import attention_reference  # noqa: E402
from report import finish  # noqa: E402
from tk_mlir import Kernel  # noqa: E402
from tk_mlir.ops.attention import one_tile_per_block  # noqa: E402
from peers import sdpa_forward  # noqa: E402
from timing import time_interleaved  # noqa: E402

D = 128  # head dim: set from the manifest in main()
CHECKS = [  # batch, heads, seq, causal
    (1, 1, 1, False), (1, 2, 17, True), (2, 3, 128, False),
    (1, 2, 1000, True), (1, 2, 1000, False), (2, 2, 4097, True),
    (1, 4, 384, False), (2, 1, 257, True), (1, 1, 1, True),
    (1, 2, 17, False), (2, 2, 4097, False), (1, 3, 640, True),
]
GQA_CHECKS = [  # batch, heads, kv heads, seq, causal
    (1, 4, 1, 300, False), (2, 8, 2, 1000, True), (1, 6, 3, 129, True),
    (1, 4, 2, 4097, False), (1, 8, 1, 17, True), (2, 4, 4, 512, True),
]
SEQS = (512, 1024, 2048, 4096, 8192, 16384)


def run(kernel, q, k, v, scale, causal, one_tile):
    b, h, n, _ = q.shape
    o = torch.full_like(q, float("nan"))
    lse = torch.full((b, h, n), float("nan"), device="cuda")
    kernel(q, k, v, o, lse, scale, causal, one_tile_per_block=one_tile)
    return o, lse




def check(kernel, result, b, h, hk, n, causal, scale):
    q = torch.randn(b, h, n, D, device="cuda").to(torch.bfloat16)
    k, v = (torch.randn(b, hk, n, D, device="cuda").to(torch.bfloat16)
            for _ in range(2))
    ref_o, ref_lse = attention_reference(q, k, v, scale, causal)
    # A persistent kernel is checked both ways it can be launched: a static
    # order of several tiles per block (the running ring position across
    # tiles of different lengths) and one tile per block.
    launches = ([False, True] if kernel.spec.grid_policy == "persistent"
                else [False])
    for one in launches:
        o, lse = run(kernel, q, k, v, scale, causal, one)
        torch.cuda.synchronize()
        err = ((o.float() - ref_o).norm() / ref_o.norm()).item()
        lse_err = (lse - ref_lse).abs().max().item()
        ok = (err < 2e-2 and lse_err < 2e-2 and not o.isnan().any().item()
              and not lse.isnan().any().item())
        result["check"].append({"batch": b, "heads": h, "kv_heads": hk,
                                "seq": n, "causal": causal,
                                "one_tile_per_block": one, "rel_err": err,
                                "lse_max_abs_err": lse_err, "ok": ok})
        print(f"check b={b} h={h} kv={hk} n={n:>5} causal={causal!s:5} "
              f"{'one tile per block' if one else 'grid as compiled'}: O "
              f"rel err {err:.2e}, LSE max err {lse_err:.2e} "
              f"{'ok' if ok else 'FAIL'}", flush=True)


def bench(kernel, baseline, result, scale, causal_as_compiled=False):
    # 16k tokens, hidden 2048 (FA3 paper).
    for b, h, n in [(16384 // n, 2048 // D, n) for n in SEQS]:
        for causal in (False, True):
            q, k, v = (torch.randn(b, h, n, D, device="cuda")
                       .to(torch.bfloat16) for _ in range(3))
            o = torch.empty_like(q)
            lse = torch.empty(b, h, n, device="cuda")
            flops = 4 * b * h * n * n * D / (2 if causal else 1)
            row = {"batch": b, "heads": h, "seq": n, "causal": causal}
            # As tk_mlir.attention() launches it (one_tile_per_block), or
            # with --causal-as-compiled always the grid as compiled.
            one = (not causal_as_compiled
                   and one_tile_per_block(D, n, causal))
            ours = {"tk": kernel, "baseline": baseline}
            fns = {name: (lambda fn=fn: fn(q, k, v, o, lse, scale, causal,
                                           one_tile_per_block=one))
                   for name, fn in ours.items() if fn is not None}
            for name in ("flash", "cudnn"):
                sdpa = sdpa_forward(name, q, k, v, causal, scale)
                try:
                    sdpa()
                    fns[name] = sdpa
                except RuntimeError as e:
                    row[f"{name}_error"] = str(e)[:200]
            for name, t in time_interleaved(fns).items():
                row[f"{name}_tflops"] = flops / t / 1e9
            if "cudnn_tflops" in row:
                row["vs_cudnn"] = row["tk_tflops"] / row["cudnn_tflops"]
            if "baseline_tflops" in row:
                row["vs_baseline"] = row["tk_tflops"] / row["baseline_tflops"]
            result["bench"].append(row)
            print("bench " + json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--gqa", action="store_true")
    parser.add_argument("--baseline")
    parser.add_argument("--name", default="attention_fwd.json")
    parser.add_argument("--check-only", action="store_true")
    parser.add_argument("--causal-as-compiled", action="store_true",
                        help="time every call with the grid the kernel was "
                        "compiled for (persistent kernels: a static order), "
                        "also where attention() launches one tile per block")
    args = parser.parse_args()
    names = ["Q", "K", "V", "O", "L", "scale", "causal"]
    kernel = Kernel(args.manifest, names=names)
    global D
    D = kernel.spec.params[0]["shape"][-1]
    baseline = Kernel(args.baseline, names=names) if args.baseline else None
    result = {"device": torch.cuda.get_device_name(), "check": [],
              "bench": [], "manifest": args.manifest,
              "baseline": args.baseline}
    scale = 1 / math.sqrt(D)
    for b, h, n, causal in CHECKS:
        check(kernel, result, b, h, h, n, causal, scale)
    if args.gqa:
        for b, h, hk, n, causal in GQA_CHECKS:
            check(kernel, result, b, h, hk, n, causal, scale)
    if not args.check_only:
        bench(kernel, baseline, result, scale, args.causal_as_compiled)
    return finish(args.out, args.name, result)


if __name__ == "__main__":
    sys.exit(main())
