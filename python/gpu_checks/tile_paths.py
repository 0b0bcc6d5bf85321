#!/usr/bin/env python3
"""Runs python/gpu_checks/tile_paths.mlir (compiled by tk-opt) and checks
that each output equals 2X exactly (U and V: its first 56 and 61 columns;
F, G and H: f32 in fragment order, read back with from_fragments; T read
from global memory into registers; E and Q from the first 61 and 56
columns of X as matrices of their own, their last 3 and 8 columns zero),
for row counts that are and are not multiples of the 64-row tile; the
program prefetches 128-row boxes of X into L2 (tile i box i, past the
end for the later tiles), which must change nothing.

usage: tile_paths.py --manifest build/artifacts/tile_paths/tile_paths.json
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir import Kernel  # noqa: E402
from tk_mlir.runtime import from_fragments  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    kernel = Kernel(args.manifest,
                    names=["X", "Y", "Z", "W", "U", "V", "F", "G", "H", "Xn", "T",
                           "E", "Xq", "Q"])
    rows = []
    for n in (64, 4096, 1000, 1, 130):
        x = torch.randn(n, 64, device="cuda").to(torch.bfloat16)
        widths = (64, 64, 64, 56, 61)
        outs = [torch.full((n, w), float("nan"), device="cuda",
                           dtype=torch.bfloat16) for w in widths]
        padded = -(-n // 64) * 64
        frags = [torch.full((padded, 64), float("nan"), device="cuda")
                 for _ in "FG"]
        frags.append(torch.zeros(padded, 64, device="cuda"))
        narrow = x[:, :61].contiguous()
        aligned = x[:, :56].contiguous()
        loaded = [torch.full((n, 64), float("nan"), device="cuda",
                             dtype=torch.bfloat16) for _ in "TEQ"]
        t, e, q = loaded
        kernel(x, *outs, *frags, narrow, t, e, aligned, q)
        torch.cuda.synchronize()
        want = x * 2

        def first(columns):
            return torch.cat([want[:, :columns],
                              torch.zeros_like(want[:, columns:])], dim=1)

        outs += [from_fragments(f)[:n] for f in frags] + loaded
        widths += (64, 64, 64, 64, 64, 64)
        wants = [want] * 9 + [first(61), first(56)]
        for name, got, w, expect in zip("YZWUVFGHTEQ", outs, widths, wants):
            exact = torch.equal(got, expect[:, :w].to(got.dtype))
            rows.append({"n": n, "output": name, "exact": exact,
                         "ok": exact})
            print(f"tile_paths n={n:>5} {name}: "
                  f"{'exact' if exact else 'MISMATCH'}", flush=True)
    return finish(args.out, "tile_paths.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
