#!/usr/bin/env python3
"""Runs python/gpu_checks/cross_warp.mlir (compiled by tk-opt) and checks
every output against a float64 torch reference of the math: with
integer-valued X (|x| <= 8) each must match exactly; with normal X within
1e-5 relative to the largest reference magnitude. Row counts that are and
are not multiples of the 64-row tile (rows past the end read as 0, so the
last tile's reductions see zeros there, as the reference pads them).
Transposes: each 64 x 64 tile (XT) and each 16 x 16 block of the first 16
columns (WT, WC), exact with either kind of X.

usage: cross_warp.py --manifest build/artifacts/cross_warp/cross_warp.json
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir import Kernel  # noqa: E402

NAMES = ["X", "CS", "CM", "RC", "RR", "VS", "VE", "TS", "TM", "D", "P", "A",
         "R", "XT", "WT", "WC"]
TILE_OUTPUTS = {"RC", "RR", "D", "P", "XT"}
# [n, 16]: each 16 x 16 block of X's first 16 columns, transposed.
BLOCK_OUTPUTS = {"WT", "WC"}
INPUTS = {"X", "A"}


def reference(x, a):
    """The outputs of the check program, in float64, for x: [n, 64] and
    a: [n, 16]."""
    n = x.shape[0]
    tiles = -(-n // 64)
    xp = torch.zeros(tiles * 64, 64, dtype=torch.float64, device=x.device)
    xp[:n] = x.double()
    t = xp.view(tiles, 64, 64)
    s = t.sum(2)                                   # row sums [tiles, 64]
    want = {
        "CS": t.sum(1),
        "CM": t.amax(1),
        "RC": t.cumsum(1),
        "RR": t.cumsum(2) - t,
        "VS": s.cumsum(1),
        "VE": s.cumsum(1) - s,
        "TS": s.sum(1, keepdim=True).expand(tiles, 64),
        "TM": t.amax((1, 2)).unsqueeze(1).expand(tiles, 64),
        "D": s.unsqueeze(1) - s.unsqueeze(2),
        "P": t,
        "XT": t.transpose(1, 2),
    }
    want = {k: (v.reshape(tiles * 64, 64)[:n] if k in TILE_OUTPUTS
                else v.reshape(-1)) for k, v in want.items()}
    a = a.double()
    want["R"] = (a[:, :, None] * a[:, None, :]).reshape(n, 256)
    blocks = xp[:, :16].reshape(tiles * 4, 16, 16).transpose(1, 2)
    for name in BLOCK_OUTPUTS:
        want[name] = blocks.reshape(tiles * 64, 16)[:n]
    return want


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    kernel = Kernel(args.manifest, names=NAMES)
    rows = []
    for n in (64, 128, 1000, 1, 130, 4097):
        for values in ("integers", "normal"):
            if values == "integers":
                x = torch.randint(-8, 9, (n, 64), device="cuda").float()
                a = torch.randint(-8, 9, (n, 16), device="cuda").float()
            else:
                x = torch.randn(n, 64, device="cuda")
                a = torch.randn(n, 16, device="cuda")
            want = reference(x, a)
            tiles = -(-n // 64)
            shapes = {k: ((n, 64) if k in TILE_OUTPUTS else (tiles * 64,))
                      for k in NAMES if k not in INPUTS}
            shapes["R"] = (n, 256)
            shapes.update({k: (n, 16) for k in BLOCK_OUTPUTS})
            outs = {k: torch.full(shape, float("nan"), device="cuda")
                    for k, shape in shapes.items()}
            kernel(x, *[outs[k] for k in NAMES[1:11]], a,
                   *[outs[k] for k in NAMES[12:]])
            torch.cuda.synchronize()
            for name, got in outs.items():
                ref = want[name]
                err = (got.double() - ref).abs().max().item()
                scale = max(ref.abs().max().item(), 1.0)
                if values == "integers":
                    ok = torch.equal(got.double(), ref)
                else:
                    ok = err <= 1e-5 * scale
                rows.append({"n": n, "values": values, "output": name,
                             "max_abs_error": err, "scale": scale, "ok": ok})
                print(f"cross_warp n={n:>5} {values:>8} {name:>2}: "
                      f"{'ok' if ok else 'MISMATCH'} (max |err| {err:.3g})",
                      flush=True)
    return finish(args.out, "cross_warp.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
