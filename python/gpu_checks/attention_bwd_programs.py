#!/usr/bin/env python3
"""Checks the fused backward programs besides each head dim's default
(tk_mlir.ops.attention.FUSED_ALTERNATIVES, e.g. the 80-query
attention_bwd_q80, which attention() takes for no call: 0.89x the default
at 8192 and 1.00x at 16384 non-causal on H100, docs/performance.md)
against a float32 torch reference on awkward shapes (lengths 1 to 4097,
GQA and MQA, causal and not; tolerances as in
benchmarks/attention_bwd.py), and times each
against the default fused program (FUSED_BACKWARD) in the same run
(non-causal, 16k tokens, 2048 hidden; ratio = ours / default, not a peer
comparison).

usage: TK_MLIR_ARTIFACTS=DIR attention_bwd_programs.py [--out DIR]
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                "benchmarks"))
from attention_bwd import compare, reference_grads  # noqa: E402
from report import finish  # noqa: E402
from timing import time_interleaved  # noqa: E402
from tk_mlir.ops.attention import (FUSED_ALTERNATIVES, FUSED_BACKWARD,  # noqa: E402
                               attention_backward, attention_forward)

CASES = [  # batch, heads, kv heads, seq, causal
    (1, 2, 2, 1, False), (1, 2, 2, 17, False), (1, 8, 2, 300, False),
    (2, 2, 2, 1000, False), (1, 2, 1, 4097, False), (1, 4, 1, 2500, False),
    (2, 4, 4, 512, True), (1, 4, 2, 1001, True), (1, 2, 2, 81, True),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    rows, bench = [], []
    for d, programs in FUSED_ALTERNATIVES.items():
        scale = 1 / math.sqrt(d)
        for program in programs:
            for b, h, hk, n, causal in CASES:
                torch.manual_seed(n)
                q = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
                k, v = (torch.randn(b, hk, n, d, device="cuda")
                        .to(torch.bfloat16) for _ in range(2))
                g = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
                o, lse = attention_forward(q, k, v, causal, scale)
                got = attention_backward(q, k, v, o, lse, g, causal, scale,
                                         program=program)
                torch.cuda.synchronize()
                ref = reference_grads(q, k, v, g, scale, causal)
                zero = [want.norm().item() < 1e-4 for want in ref]
                errs, absolute, ok = compare(got, ref, zero)
                rows.append({"program": program, "batch": b, "heads": h,
                             "kv_heads": hk, "seq": n, "dim": d,
                             "causal": causal, "rel_errs": errs,
                             "max_abs_err": absolute, "zero_reference": zero,
                             "ok": ok})
                print(f"{program} b={b} h={h} kv={hk} n={n:>5} "
                      f"causal={causal!s:5}: dQ/dK/dV rel err "
                      + " ".join(f"{e:.2e}" for e in errs)
                      + (" ok" if ok else " FAIL"), flush=True)
            for n in (2048, 4096, 8192, 16384):
                b, h = 16384 // n, 2048 // d
                q, k, v, g = (torch.randn(b, h, n, d, device="cuda")
                              .to(torch.bfloat16) for _ in range(4))
                o, lse = attention_forward(q, k, v, False, scale)
                fns = {name: (lambda p=p: attention_backward(
                           q, k, v, o, lse, g, False, scale, fused=True,
                           program=p))
                       for name, p in (("default", FUSED_BACKWARD[d]),
                                       (program, program))}
                t = time_interleaved(fns, warmup=2, rounds=7, per_batch=4)
                flops = 2.5 * 4 * b * h * n * n * d
                row = {"program": program, "dim": d, "seq": n,
                       "default_tflops": flops / t["default"] / 1e9,
                       "program_tflops": flops / t[program] / 1e9,
                       "ratio": t["default"] / t[program]}
                bench.append(row)
                print(f"bench {program} d={d} n={n}: "
                      f"{row['program_tflops']:.1f} vs default "
                      f"{row['default_tflops']:.1f} TFLOP/s = "
                      f"{row['ratio']:.3f}", flush=True)
    return finish(args.out, "attention_bwd_programs.json",
                  {"check": rows, "bench": bench})


if __name__ == "__main__":
    sys.exit(main())
