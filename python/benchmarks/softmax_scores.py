#!/usr/bin/env python3
"""Checks kernels/alternatives/softmax_scores.mlir (row softmax of Q Kᵀ · scale on the
MMA accumulator) against a float32 torch reference on random inputs,
including row counts that are not a multiple of the 64-row tile.

usage: softmax_scores.py --manifest build/artifacts/softmax_scores/softmax_scores.json
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir import Kernel  # noqa: E402

TOLERANCE = 2e-2  # bf16 output, ex2.approx


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    kernel = Kernel(args.manifest, names=["Q", "K", "P", "scale"])
    rows = []
    for n, scale in [(64, 0.125), (4096, 0.125), (1000, 0.3), (1, 1.0),
                     (130, 0.05)]:
        q = torch.randn(n, 64, device="cuda").to(torch.bfloat16)
        k = torch.randn(128, 64, device="cuda").to(torch.bfloat16)
        p = torch.full((n, 128), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        kernel(q, k, p, scale)
        torch.cuda.synchronize()
        ref = torch.softmax((q.float() @ k.float().t()) * scale, dim=-1)
        err = ((p.float() - ref).norm() / ref.norm()).item()
        ok = err < TOLERANCE and not torch.isnan(p).any().item()
        rows.append({"n": n, "scale": scale, "rel_err": err, "ok": ok})
        print(f"softmax_scores n={n:>5} scale={scale}: rel err {err:.2e} "
              f"{'ok' if ok else 'FAIL'}", flush=True)
    return finish(args.out, "softmax_scores.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
