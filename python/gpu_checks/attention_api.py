#!/usr/bin/env python3
"""Checks tk_mlir.attention() (the naive attention programs compiled through
the default pipeline) against a float32 torch reference: head dims 64 and
128, layouts bhsd and bshd, causal and not, GQA, awkward lengths
(gradients of a loss of O alone: benchmarks/attention_bwd.py). Tolerances
as in benchmarks/attention_fwd.py: O relative Frobenius error < 2e-2, LSE
max absolute error < 2e-2. Cases with a growth factor scale Q by 3 and the
keys by a ramp from 0.2 to it along the sequence, so the scores' maximum
keeps rising past the head-dim-64 program's lagging maximum (its slack) in
later key tiles and the rescaling it usually skips runs.

Gradients through the log-sum-exp (return_lse=True): a loss of the LSE
alone (sum(LSE ∘ W), random W), of O and the LSE (sum(O ∘ G) +
sum(LSE ∘ W)), and of O and sum(LSE) (a dLSE broadcast from one number),
causal and not, GQA and MQA, lengths that pad the rows of L and Δ, both
backward forms (the two kernels below 1024 queries at head dim 128 and 512
at 64, the fused kernel from there), against float64 torch autograd of the
plain math on the same bf16 inputs: dQ, dK, dV relative Frobenius error
< 3e-2 (benchmarks/attention_bwd.py's tolerance: P and dS pass through
bf16 for the MMAs), or, where the exact gradient is zero (dV of a loss of
the LSE alone), largest absolute error < 3e-2.

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
from tk_mlir.ops.attention import forward_kernel, uses_fused  # noqa: E402

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
GRAD_CASES = [  # batch, heads, kv heads, seq, dim, causal, layout, loss
    (1, 2, 2, 1, 64, False, "bhsd", "lse"),
    (2, 4, 2, 17, 64, True, "bhsd", "lse"),
    (2, 4, 4, 300, 128, False, "bhsd", "lse"),
    (1, 8, 2, 1001, 128, True, "bhsd", "o+lse"),
    (1, 4, 1, 1030, 128, False, "bshd", "o+lse"),
    (1, 6, 3, 777, 64, True, "bhsd", "o+lse"),
    (1, 4, 2, 257, 64, False, "bshd", "o+sum(lse)"),
    (1, 2, 2, 2049, 128, True, "bhsd", "lse"),
    (1, 4, 2, 514, 64, False, "bhsd", "lse"),
]
GRAD_TOLERANCE = 3e-2


def reference64(q, k, v, scale, causal):
    """O and the log-sum-exp of softmax(q kᵀ · scale) v in float64, for
    [batch, heads, seq, dim] tensors (k, v: GQA heads); differentiable."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    s = (q @ k.transpose(-1, -2)) * scale
    if causal:
        n = q.shape[2]
        s = s.masked_fill(torch.ones(n, n, device=q.device,
                                     dtype=torch.bool).triu(1), -math.inf)
    return torch.softmax(s, dim=-1) @ v, torch.logsumexp(s, dim=-1)


def loss_of(kind, o, lse, g, w):
    """The loss `kind` of O and the LSE ([batch, heads, seq, dim] and
    [batch, heads, seq]) with weights g (for O) and w (for the LSE)."""
    lse_part = lse.sum() if kind == "o+sum(lse)" else (lse * w).sum()
    return lse_part if kind == "lse" else (o * g).sum() + lse_part


def grad_case(b, h, hk, n, d, causal, layout, kind):
    """dQ, dK, dV of `kind` through attention(return_lse=True) and the
    float64 reference; (relative errors, largest absolute errors, zero
    references, ok)."""
    q = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
    k, v = (torch.randn(b, hk, n, d, device="cuda").to(torch.bfloat16)
            for _ in range(2))
    g = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
    w = torch.randn(b, h, n, device="cuda")
    scale = 1 / math.sqrt(d)
    ins = [(t.transpose(1, 2).contiguous() if layout == "bshd" else t)
           .detach().requires_grad_(True) for t in (q, k, v)]
    o, lse = attention(*ins, causal=causal, layout=layout, return_lse=True)
    if layout == "bshd":
        o = o.transpose(1, 2)
    loss_of(kind, o.float(), lse, g.float(), w).backward()
    torch.cuda.synchronize()
    got = [t.grad.transpose(1, 2) if layout == "bshd" else t.grad
           for t in ins]
    ref_in = [t.double().requires_grad_(True) for t in (q, k, v)]
    ref_o, ref_lse = reference64(*ref_in, scale, causal)
    loss_of(kind, ref_o, ref_lse, g.double(), w.double()).backward()
    # (A loss of the LSE alone leaves the reference's v without a grad.)
    want = [t.grad if t.grad is not None else torch.zeros_like(t)
            for t in ref_in]
    zero = [x.norm().item() == 0 for x in want]
    errs = [((x.double() - y).norm() / y.norm().clamp_min(1e-30)).item()
            for x, y in zip(got, want)]
    absolute = [(x.double() - y).abs().max().item()
                for x, y in zip(got, want)]
    ok = all((a < GRAD_TOLERANCE) if z else (e < GRAD_TOLERANCE)
             for e, a, z in zip(errs, absolute, zero)) and not any(
        x.isnan().any().item() for x in got)
    return errs, absolute, zero, ok


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
    for b, h, hk, n, d, causal, layout, kind in GRAD_CASES:
        torch.manual_seed(n)
        errs, absolute, zero, ok = grad_case(b, h, hk, n, d, causal, layout,
                                             kind)
        form = "fused" if uses_fused(d, n) else "two kernels"
        rows.append({"loss": kind, "batch": b, "heads": h, "kv_heads": hk,
                     "seq": n, "dim": d, "causal": causal, "layout": layout,
                     "backward": form, "rel_errs": errs,
                     "max_abs_err": absolute, "zero_reference": zero,
                     "ok": ok})
        print(f"grad of {kind:10} b={b} h={h} kv={hk} n={n:>5} d={d:>3} "
              f"causal={causal!s:5} {layout} ({form}): dQ/dK/dV "
              + " ".join(f"abs {a:.2e}" if z else f"{e:.2e}"
                         for e, a, z in zip(errs, absolute, zero))
              + (" ok" if ok else " FAIL"), flush=True)
    return finish(args.out, "attention_api.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
