#!/usr/bin/env python3
"""Runs python/gpu_checks/tile_paths.mlir (compiled by tk-opt) and checks
that each output equals 2X exactly (U and V: its first 56 and 61 columns),
for row counts that are and are not multiples of the 64-row tile.

usage: tile_paths.py --manifest build/artifacts/tile_paths/tile_paths.json
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir import Kernel  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    kernel = Kernel(args.manifest, names=["X", "Y", "Z", "W", "U", "V"])
    rows = []
    for n in (64, 4096, 1000, 1, 130):
        x = torch.randn(n, 64, device="cuda").to(torch.bfloat16)
        widths = (64, 64, 64, 56, 61)
        outs = [torch.full((n, w), float("nan"), device="cuda",
                           dtype=torch.bfloat16) for w in widths]
        kernel(x, *outs)
        torch.cuda.synchronize()
        want = x * 2
        for name, got, w in zip("YZWUV", outs, widths):
            exact = torch.equal(got, want[:, :w])
            rows.append({"n": n, "output": name, "exact": exact})
            print(f"tile_paths n={n:>5} {name}: "
                  f"{'exact' if exact else 'MISMATCH'}", flush=True)
    with open(os.path.join(args.out, "tile_paths.json"), "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "check": rows}, f,
                  indent=2)
    failed = sum(not r["exact"] for r in rows)
    print(f"{len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
