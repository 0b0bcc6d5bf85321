#!/usr/bin/env python3
"""Checks kernels/attention_fwd.mlir against a float32 torch reference and
times it next to torch SDPA (its flash and cuDNN backends) in the same run.

usage: attention_fwd.py --manifest build/artifacts/attention_fwd/attention_fwd.json

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
from tk_mlir import Kernel  # noqa: E402
from timing import time_ms  # noqa: E402

D = 128
CHECKS = [  # batch, heads, seq, causal
    (1, 1, 1, False), (1, 2, 17, True), (2, 3, 128, False),
    (1, 2, 1000, True), (1, 2, 1000, False), (2, 2, 4097, True),
    (1, 4, 384, False), (2, 1, 257, True),
]
BENCH = [(4, 16, 4096), (1, 16, 16384)]


def reference(q, k, v, scale, causal):
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    if causal:
        n = q.shape[2]
        mask = torch.ones(n, n, device=q.device, dtype=torch.bool).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    return torch.softmax(s, dim=-1) @ v.float(), torch.logsumexp(s, dim=-1)


def run(kernel, q, k, v, scale, causal):
    b, h, n, _ = q.shape
    o = torch.full_like(q, float("nan"))
    lse = torch.full((b, h, n), float("nan"), device="cuda")
    kernel(q, k, v, o, lse, scale, causal)
    return o, lse




def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    kernel = Kernel(args.manifest,
                    names=["Q", "K", "V", "O", "L", "scale", "causal"])
    result = {"device": torch.cuda.get_device_name(), "check": [],
              "bench": []}
    scale = 1 / math.sqrt(D)
    for b, h, n, causal in CHECKS:
        q, k, v = (torch.randn(b, h, n, D, device="cuda").to(torch.bfloat16)
                   for _ in range(3))
        o, lse = run(kernel, q, k, v, scale, causal)
        torch.cuda.synchronize()
        ref_o, ref_lse = reference(q, k, v, scale, causal)
        err = ((o.float() - ref_o).norm() / ref_o.norm()).item()
        lse_err = (lse - ref_lse).abs().max().item()
        ok = (err < 2e-2 and lse_err < 2e-2 and not o.isnan().any().item()
              and not lse.isnan().any().item())
        result["check"].append({"batch": b, "heads": h, "seq": n,
                                "causal": causal, "rel_err": err,
                                "lse_max_abs_err": lse_err, "ok": ok})
        print(f"check b={b} h={h} n={n:>5} causal={causal!s:5}: O rel err "
              f"{err:.2e}, LSE max err {lse_err:.2e} "
              f"{'ok' if ok else 'FAIL'}", flush=True)
    for b, h, n in BENCH:
        for causal in (False, True):
            q, k, v = (torch.randn(b, h, n, D, device="cuda")
                       .to(torch.bfloat16) for _ in range(3))
            o = torch.empty_like(q)
            lse = torch.empty(b, h, n, device="cuda")
            ours = time_ms(lambda: kernel(q, k, v, o, lse, scale, causal),
                           warmup=5, batches=5, per_batch=10)
            flops = 4 * b * h * n * n * D / (2 if causal else 1)
            row = {"batch": b, "heads": h, "seq": n, "causal": causal,
                   "tk_tflops": flops / ours / 1e9}
            for name, backend in (
                    ("flash", torch.nn.attention.SDPBackend.FLASH_ATTENTION),
                    ("cudnn",
                     torch.nn.attention.SDPBackend.CUDNN_ATTENTION)):
                try:
                    with torch.nn.attention.sdpa_kernel(backend):
                        t = time_ms(lambda: torch.nn.functional
                                    .scaled_dot_product_attention(
                                        q, k, v, is_causal=causal,
                                        scale=scale), warmup=5, batches=5, per_batch=10)
                    row[f"{name}_tflops"] = flops / t / 1e9
                except RuntimeError as e:
                    row[f"{name}_error"] = str(e)[:200]
            result["bench"].append(row)
            print("bench " + json.dumps(row), flush=True)
    with open(os.path.join(args.out, "attention_fwd.json"), "w") as f:
        json.dump(result, f, indent=2)
    failed = sum(not r["ok"] for r in result["check"])
    print(f"{len(result['check']) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
