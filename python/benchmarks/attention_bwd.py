#!/usr/bin/env python3
"""Checks tk_mlir.attention()'s gradients (the backward form it picks per
head dim; for [batch, heads, seq, dim] cases also the other form: the fused
kernels/attention/attention_bwd.mlir / attention_bwd_d64.mlir (`fused_program`), or the two kernels
attention_bwd_dq.mlir + attention_bwd_dkv.mlir and their _d64 twins) against
float32 torch autograd, and times both forms of the backward next to torch
SDPA's flash and cuDNN backends in the same run.

usage: TK_MLIR_ARTIFACTS=DIR attention_bwd.py [--out DIR] [--check-only]

Correctness: random bf16 inputs, loss = sum(O ∘ G) with random G; dQ, dK,
dV relative Frobenius error below 3e-2 against the float32 reference (P
and dS pass through bf16 for the MMAs), or, where the exact gradient is zero
(a single key), largest absolute error below 3e-2; GQA cases check that dK and dV sum
over the query heads sharing a kv head. Δ = rowsum(dO ∘ O) by kernels/attention/attention_bwd_delta.mlir
(_d64) against a float64 torch sum at awkward lengths, within 1e-5 relative
to Σ|dO ∘ O| per row, zeros in the padding. Timing: the backward alone (ours:
the Δ program plus the fused kernel, with zeroing the f32 dQ
accumulator and converting it to bf16 (kernels/attention/attention_bwd_dq_convert.mlir)
-- or plus the two kernels; "tk" is
the form attention() uses, "vs_cudnn" its ratio; SDPA:
torch.autograd.grad(o, (q, k, v), dO) on a retained graph, which returns the
gradients instead of adding them to the inputs' .grad); FA3-paper shapes
(16k tokens, hidden 2048: 16 heads of 128 or 32 of 64, seq 512 … 16384);
TFLOP/s = 2.5 · 4 · batch · heads · seq² · dim, halved for causal.
python/benchmarks/attention.py times attention()'s forward and backward
against the same peers.
"""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from reference import attention_reference  # noqa: E402
from report import finish  # noqa: E402
from tk_mlir import attention  # noqa: E402
from tk_mlir.ops.attention import (attention_backward, attention_forward,  # noqa: E402
                               backward_delta, fused_program, uses_fused)
from peers import sdpa_backward  # noqa: E402
from timing import time_interleaved  # noqa: E402

CASES = [  # batch, heads, kv heads, seq, dim, causal, layout
    (1, 2, 2, 1, 128, False, "bhsd"), (1, 2, 2, 17, 128, True, "bhsd"),
    (2, 4, 4, 128, 128, False, "bhsd"), (1, 2, 2, 1000, 128, True, "bhsd"),
    (1, 2, 2, 1000, 128, False, "bhsd"), (1, 8, 2, 300, 128, True, "bhsd"),
    (2, 4, 1, 513, 128, False, "bhsd"), (1, 2, 2, 4097, 128, True, "bhsd"),
    (1, 6, 3, 257, 128, True, "bshd"), (1, 4, 4, 640, 128, False, "bshd"),
    (1, 2, 2, 1, 64, True, "bhsd"), (2, 4, 2, 777, 64, True, "bhsd"),
    (1, 8, 1, 1024, 64, False, "bshd"), (1, 2, 2, 4097, 64, False, "bhsd"),
    (1, 2, 2, 17, 64, False, "bhsd"), (1, 4, 4, 1000, 64, True, "bshd"),
    (2, 2, 2, 129, 128, True, "bhsd"), (1, 4, 2, 2048, 128, False, "bshd"),
    (1, 2, 1, 4097, 128, False, "bhsd"), (1, 4, 1, 1, 128, True, "bhsd"),
]
DELTA_CASES = [  # batch, heads, seq, dim
    (1, 2, 1, 128), (2, 3, 17, 128), (1, 2, 1000, 64), (1, 1, 4097, 128),
    (2, 2, 63, 64), (1, 2, 65, 128), (3, 5, 4098, 64),
]
DELTA_TOLERANCE = 1e-5
SEQS = (512, 1024, 2048, 4096, 8192, 16384)
TOLERANCE = 3e-2


def reference_grads(q, k, v, g, scale, causal):
    qf, kf, vf = (t.detach().float().requires_grad_(True) for t in (q, k, v))
    o, _ = attention_reference(qf, kf, vf, scale, causal)
    (o * g.float()).sum().backward()
    return qf.grad, kf.grad, vf.grad


def compare(grads, ref, zero):
    """Relative Frobenius errors and largest absolute errors of `grads`
    against `ref`, and whether they pass. A gradient that is zero in exact
    arithmetic (one key: softmax is constant) has no relative error: there
    the largest absolute difference must be below the tolerance instead."""
    errs = [((got.float() - want).norm() / want.norm().clamp_min(1e-30))
            .item() for got, want in zip(grads, ref)]
    absolute = [(got.float() - want).abs().max().item()
                for got, want in zip(grads, ref)]
    ok = all((a < TOLERANCE) if z else (e < TOLERANCE)
             for e, a, z in zip(errs, absolute, zero)) and not any(
        t.isnan().any().item() for t in grads)
    return errs, absolute, ok


def check(rows):
    for b, h, hk, n, d, causal, layout in CASES:
        q = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
        k, v = (torch.randn(b, hk, n, d, device="cuda").to(torch.bfloat16)
                for _ in range(2))
        g = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
        scale = 1 / math.sqrt(d)
        ins = [(t.transpose(1, 2).contiguous() if layout == "bshd" else t)
               .detach().requires_grad_(True) for t in (q, k, v)]
        o = attention(*ins, causal=causal, layout=layout)
        go = g.transpose(1, 2) if layout == "bshd" else g
        (o.float() * go.float()).sum().backward()
        torch.cuda.synchronize()
        grads = [t.grad.transpose(1, 2) if layout == "bshd" else t.grad
                 for t in ins]
        ref = reference_grads(q, k, v, g, scale, causal)
        zero = [want.norm().item() < 1e-4 for want in ref]
        errs, absolute, ok = compare(grads, ref, zero)
        split = split_abs = None
        if layout == "bhsd":
            # The other form on the same inputs.
            o2, lse2 = attention_forward(q, k, v, causal, scale)
            got2 = attention_backward(q, k, v, o2, lse2, g, causal, scale,
                                      fused=not uses_fused(d, n))
            split, split_abs, split_ok = compare(got2, ref, zero)
            ok = ok and split_ok
        rows.append({"batch": b, "heads": h, "kv_heads": hk, "seq": n,
                     "dim": d, "causal": causal, "layout": layout,
                     "dq_rel_err": errs[0], "dk_rel_err": errs[1],
                     "dv_rel_err": errs[2], "max_abs_err": absolute,
                     "zero_reference": zero, "other_form_rel_errs": split,
                     "other_form_max_abs_err": split_abs,
                     "ok": ok})
        other = (describe(split, split_abs, zero) if split is not None
                 else "-")
        print(f"grad b={b} h={h} kv={hk} n={n:>5} d={d:>3} "
              f"causal={causal!s:5} "
              f"{layout}: {describe(errs, absolute, zero)} "
              f"other form {other} {'ok' if ok else 'FAIL'}", flush=True)


def describe(errs, absolute, zero):
    """dQ, dK, dV's errors as the check judges them: relative, or the
    largest absolute error where the exact gradient is zero (a relative
    error against zero is meaningless there)."""
    return " ".join(f"{name} abs {a:.2e}" if z else f"{name} {e:.2e}"
                    for name, e, a, z in zip(("dQ", "dK", "dV"), errs,
                                             absolute, zero))


def check_delta(rows):
    """The Δ program against a float64 sum; padding rows must be zero."""
    for b, h, n, d in DELTA_CASES:
        o, do = (torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
                 for _ in range(2))
        got = backward_delta(o, do)
        prod = o.double() * do.double()
        want, scale = prod.sum(-1), prod.abs().sum(-1)
        err = ((got[..., :n].double() - want).abs() / scale).max().item()
        pad = got[..., n:]
        ok = (err < DELTA_TOLERANCE and got.shape[-1] == n - n % -4
              and bool((pad == 0).all()))
        rows.append({"kind": "delta", "batch": b, "heads": h, "seq": n,
                     "dim": d, "rows": got.shape[-1], "max_rel_err": err, "ok": ok})
        print(f"delta b={b} h={h} n={n:>5} d={d:>3}: rows {got.shape[-1]} "
              f"err {err:.2e} {'ok' if ok else 'FAIL'}", flush=True)


def bench(rows, D, seqs=SEQS):
    scale = 1 / math.sqrt(D)
    for n in seqs:
        b, h = 16384 // n, 2048 // D
        for causal in (False, True):
            q, k, v, do = (torch.randn(b, h, n, D, device="cuda")
                           .to(torch.bfloat16) for _ in range(4))
            o, lse = attention_forward(q, k, v, causal, scale)
            flops = 2.5 * 4 * b * h * n * n * D / (2 if causal else 1)
            row = {"batch": b, "heads": h, "seq": n, "dim": D,
                   "causal": causal}
            fns = {key: (lambda fused=fused: attention_backward(
                q, k, v, o, lse, do, causal, scale, fused=fused))
                for key, fused in (("tk_fused", True), ("tk_split", False))}
            for name in ("flash", "cudnn"):
                try:
                    fns[name] = sdpa_backward(name, q, k, v, do, causal,
                                              scale)
                except RuntimeError as e:
                    row[f"{name}_error"] = str(e)[:200]
            for name, t in time_interleaved(fns, warmup=3, rounds=9,
                                            per_batch=5).items():
                row[f"{name}_tflops"] = flops / t / 1e9
            form = "fused" if uses_fused(D, n) else "split"
            row["tk_form"] = form
            row["tk_fused_program"] = fused_program(D, n, causal)
            row["tk_tflops"] = row[f"tk_{form}_tflops"]
            if "cudnn_tflops" in row:
                row["vs_cudnn"] = row["tk_tflops"] / row["cudnn_tflops"]
            rows.append(row)
            print("bench " + json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--check-only", action="store_true")
    parser.add_argument("--no-check", action="store_true",
                        help="time only (for experiments)")
    parser.add_argument("--seqs", type=lambda x: [int(n) for n in x.split(",")],
                        default=SEQS, help="sequence lengths to time "
                        "(comma-separated; default: the FA3 paper's)")
    args = parser.parse_args()
    result = {"device": torch.cuda.get_device_name(), "check": [],
              "bench": []}
    if not args.no_check:
        check_delta(result["check"])
        check(result["check"])
    if not args.check_only:
        for dim in (128, 64):
            bench(result["bench"], dim, args.seqs)
    return finish(args.out, "attention_bwd.json", result)


if __name__ == "__main__":
    sys.exit(main())
