#!/usr/bin/env python3
"""Runs python/gpu_checks/gemm_pipelined.mlir compiled by tk-opt (one
manifest per compilation: with and without tile-warp-specialize) and checks
C = A[:, :64 steps] @ B[:64 steps, :] against float32 torch for k-loop trip
counts 0, 1, 2 (fewer than the 3 stages), 3, 5 and all of K, on shapes with
and without tails. Relative Frobenius error must be below 1e-2; with 0
steps C must be exactly zero.

usage: gemm_pipelined.py --manifest DIR/gemm_pipelined.json [--manifest ...]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir import Kernel  # noqa: E402

SHAPES = [(64, 128, 64), (200, 296, 520), (1000, 1000, 1000), (129, 264, 72),
          (4096, 4096, 4096)]
STEPS = [0, 1, 2, 3, 5, 1 << 20]
TOLERANCE = 1e-2


def check(path):
    kernel = Kernel(path, names=["A", "B", "C", "steps"])
    rows = []
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
        b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
        for steps in STEPS:
            c = torch.full((m, n), float("nan"), device="cuda",
                           dtype=torch.bfloat16)
            kernel(a, b, c, steps)
            torch.cuda.synchronize()
            kk = min(k, 64 * steps)
            ref = a[:, :kk].float() @ b[:kk, :].float()
            if kk == 0:
                err = 0.0 if torch.equal(c.float(), ref) else float("inf")
            else:
                err = ((c.float() - ref).norm() / ref.norm()).item()
            ok = err < TOLERANCE and not torch.isnan(c).any().item()
            rows.append({"manifest": path, "m": m, "n": n, "k": k,
                         "steps": steps, "rel_err": err, "ok": ok})
            print(f"{os.path.basename(os.path.dirname(path))} {m}x{n}x{k} "
                  f"steps={min(steps, -(-k // 64))}: rel err {err:.2e} "
                  f"{'ok' if ok else 'FAIL'}", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", action="append", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    rows = [row for path in args.manifest for row in check(path)]
    return finish(args.out, "gemm_pipelined.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
