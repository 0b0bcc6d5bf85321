#!/usr/bin/env python3
"""Checks tk_mlir.attention() (the naive attention programs compiled through
the default pipeline) against a float32 torch reference: head dims 64 and
128, layouts bhsd and bshd, causal and not, GQA, awkward lengths; (gradients: benchmarks/attention_bwd.py). Tolerances as in
benchmarks/attention_fwd.py: O relative Frobenius error < 2e-2, LSE max
absolute error < 2e-2. Cases with a growth factor scale Q by 3 and the keys
by a ramp from 0.2 to it along the sequence, so the scores' maximum keeps
rising past the head-dim-64 program's lagging maximum (its slack) in later
key tiles and the rescaling it usually skips runs.

usage: TK_MLIR_ARTIFACTS=DIR attention_api.py [--out DIR]
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from reference import attention_reference  # noqa: E402
from report import finish  # noqa: E402
from tk_mlir import attention  # noqa: E402
from tk_mlir.ops.attention import forward_kernel  # noqa: E402

CASES = [  # batch, heads, kv heads, seq, dim, causal, layout[, growth]
    (1, 2, 2, 1, 64, False, "bhsd"), (2, 4, 4, 17, 64, True, "bhsd"),
    (1, 8, 2, 1000, 64, True, "bshd"), (2, 4, 1, 4097, 64, False, "bhsd"),
    (1, 2, 2, 300, 128, True, "bshd"), (2, 6, 3, 513, 128, False, "bshd"),
    (1, 4, 4, 128, 64, False, "bshd"), (1, 3, 1, 257, 128, True, "bhsd"),
    # Long sequences (up to 16385 queries, GQA and MQA).
    (1, 4, 2, 8200, 128, False, "bshd"), (1, 2, 1, 16385, 128, True, "bhsd"),
    # Causal head dim 64 on both sides of the 128-query program's bound.
    (1, 4, 2, 2047, 64, True, "bhsd"), (1, 4, 4, 2049, 64, True, "bshd"),
    # Rising scores (see above).
    (1, 4, 2, 3000, 64, False, "bhsd", 6.0),
    (1, 4, 4, 2500, 64, True, "bshd", 6.0),
    (1, 2, 2, 1500, 128, False, "bhsd", 6.0),
    # The 176-key head-dim-128 program (non-causal from 8192 queries): MQA,
    # a 25-key last key tile, rising scores.
    (2, 4, 1, 9001, 128, False, "bhsd", 6.0),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    rows = []
    for b, h, hk, n, d, causal, layout, *growth in CASES:
        q = torch.randn(b, h, n, d, device="cuda")
        k, v = (torch.randn(b, hk, n, d, device="cuda") for _ in range(2))
        if growth:
            q = 3 * q
            k = k * torch.linspace(0.2, growth[0], n,
                                   device="cuda").view(1, 1, n, 1)
        q, k, v = (t.to(torch.bfloat16) for t in (q, k, v))
        scale = 1 / math.sqrt(d)
        ins = [t.transpose(1, 2).contiguous() if layout == "bshd" else t
               for t in (q, k, v)]
        o, lse = attention(*ins, causal=causal, layout=layout,
                           return_lse=True)
        torch.cuda.synchronize()
        if layout == "bshd":
            o = o.transpose(1, 2)
        ref_o, ref_lse = attention_reference(q, k, v, scale, causal)
        err = ((o.float() - ref_o).norm() / ref_o.norm()).item()
        lse_err = (lse - ref_lse).abs().max().item()
        ok = err < 2e-2 and lse_err < 2e-2
        rows.append({"batch": b, "heads": h, "kv_heads": hk, "seq": n,
                     "dim": d, "causal": causal, "layout": layout,
                     "growth": growth[0] if growth else None,
                     "kernel": forward_kernel(d, n, causal),
                     "rel_err": err, "lse_max_abs_err": lse_err, "ok": ok})
        print(f"attention b={b} h={h} kv={hk} n={n:>5} d={d:>3} "
              f"causal={causal!s:5} {layout} {forward_kernel(d, n, causal)}:"
              f" O rel err {err:.2e}, LSE max "
              f"err {lse_err:.2e} {'ok' if ok else 'FAIL'}", flush=True)
    return finish(args.out, "attention_api.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
