#!/usr/bin/env python3
"""Runs python/gpu_checks/carried_walk.mlir (compiled by tk-opt) and checks
a warp-specialized persistent tile loop that carries values (iter_args):
C = A @ B against float32 torch (relative Frobenius error below 1e-2), and
for every tile t the tile its block ran before it (P[t] = t - W + 1, or 0
for a block's first tile) and each block's last tile after the loop
(L[t] = 1 exactly there), with W the blocks launched, and D: C's tile read
back through registers after the loop on each block's last tile, bit for
bit, and NaN (untouched) on every other tile; shapes from one tile to more
tiles than blocks, with tails.

usage: carried_walk.py --manifest build/artifacts/carried_walk/carried_walk.json
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir import Kernel  # noqa: E402

SHAPES = [(128, 128, 64), (200, 296, 520), (1000, 1000, 1000),
          (4096, 4096, 256), (129, 8200, 72)]
TOLERANCE = 1e-2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    kernel = Kernel(args.manifest, names=["A", "B", "C", "P", "L", "D"])
    rows = []
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
        b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
        c = torch.full((m, n), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        tiles = -(-m // 128) * -(-n // 128)
        p = torch.zeros(tiles, device="cuda", dtype=torch.int32)
        last = torch.zeros(tiles, device="cuda", dtype=torch.int32)
        d = torch.full_like(c, float("nan"))
        workers = kernel.grid(a, b, c, p, last, d)
        kernel(a, b, c, p, last, d)
        torch.cuda.synchronize()
        ref = a.float() @ b.float()
        err = ((c.float() - ref).norm() / ref.norm()).item()
        t = torch.arange(tiles, device="cuda", dtype=torch.int32)
        want_p = torch.where(t >= workers, t - workers + 1,
                             torch.zeros_like(t))
        want_last = (t + workers >= tiles).to(torch.int32)
        wrong_p = int((p != want_p).sum())
        wrong_last = int((last != want_last).sum())
        # D: C where the tile is a block's last, NaN elsewhere.
        tm, tn = -(-m // 128), -(-n // 128)
        mask = want_last.bool().view(tm, tn).repeat_interleave(
            128, 0).repeat_interleave(128, 1)[:m, :n]
        want_d = torch.where(mask, c, torch.full_like(c, float("nan")))
        wrong_d = int((~((d == want_d) | (d.isnan() & want_d.isnan())))
                      .sum())
        ok = err < TOLERANCE and not wrong_p and not wrong_last \
            and not wrong_d
        rows.append({"shape": [m, n, k], "tiles": tiles, "blocks": workers,
                     "rel_err": err, "wrong_previous": wrong_p,
                     "wrong_last": wrong_last, "wrong_read_back": wrong_d,
                     "ok": ok})
        print(f"carried_walk {m}x{n}x{k}: {tiles} tiles on {workers} blocks, "
              f"rel err {err:.2e}, previous tile wrong at {wrong_p}, last "
              f"tile wrong at {wrong_last}, read back wrong at {wrong_d} "
              f"elements: {'ok' if ok else 'FAIL'}",
              flush=True)
    return finish(args.out, "carried_walk.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
