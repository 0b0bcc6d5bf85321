#!/usr/bin/env python3
"""Runs python/gpu_checks/fma.mlir (compiled by tk-opt) and checks tile.fma
on random inputs, f32 and bf16, for row counts that are and are not
multiples of the 64-row tile: every element of D must be a·b + c correctly
rounded (within half a unit in the last place of the float64 result, which
is exact for the product), none left unwritten (D starts as NaN), and for
the larger inputs some elements must differ from the product rounded
before the add (the operation is fused, not a multiply and an add).

usage: fma.py --manifest build/artifacts/checks/fma/fma.json
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir import Kernel  # noqa: E402

# Significand bits (with the implicit one) of each format.
BITS = {torch.float32: 24, torch.bfloat16: 8}


def half_ulp_error(got, exact, dtype):
    """|got - exact| in units of half an ulp of `got` (at most 1 when `got`
    is `exact` correctly rounded to `dtype`)."""
    got = got.double()
    _, exponent = torch.frexp(got)
    ulp = torch.ldexp(torch.ones_like(got), exponent - BITS[dtype])
    return (got - exact).abs() / (ulp / 2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    kernel = Kernel(args.manifest,
                    names=["A", "B", "C", "D", "A16", "B16", "C16", "D16"])
    torch.manual_seed(0)
    rows = []
    for n in (64, 4096, 1000, 1, 130):
        inputs = {dtype: [torch.randn(n, 64, device="cuda").to(dtype)
                          for _ in "abc"]
                  for dtype in (torch.float32, torch.bfloat16)}
        outs = {dtype: torch.full((n, 64), float("nan"), device="cuda",
                                  dtype=dtype) for dtype in inputs}
        kernel(*inputs[torch.float32], outs[torch.float32],
               *inputs[torch.bfloat16], outs[torch.bfloat16])
        torch.cuda.synchronize()
        for dtype, (a, b, c) in inputs.items():
            got = outs[dtype]
            exact = a.double() * b.double() + c.double()
            error = half_ulp_error(got, exact, dtype)
            worst = error.max().item()
            unfused = ((a * b) + c).to(dtype)
            differs = int((unfused != got).sum().item())
            written = not got.isnan().any().item()
            ok = written and worst <= 1.0 and (n < 1000 or differs > 0)
            name = str(dtype).replace("torch.", "")
            rows.append({"n": n, "dtype": name, "written": written,
                         "worst_half_ulps": worst,
                         "differs_from_unfused": differs, "ok": ok})
            print(f"fma n={n:>5} {name:>8}: worst {worst:.3f} half-ulps, "
                  f"{differs} of {got.numel()} differ from the unfused "
                  f"a*b+c, {'ok' if ok else 'FAIL'}", flush=True)
    return finish(args.out, "fma.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
