#!/usr/bin/env python3
"""Checks tk_mlir.linear_attention on the GPU against a float64 torch
reference of the recurrence itself, one position at a time:

    elu1:  S_t = S_{t-1} + φ(k_t)ᵀ v_t,  z_t = z_{t-1} + φ(k_t),
           o_t = φ(q_t) S_t / (φ(q_t) · z_t),  φ = elu + 1
    decay: S_t = exp(-slope_h) S_{t-1} + k_tᵀ v_t,  o_t = q_t S_t
           (and the final state S_T)
    based: elu1's recurrence with φ(x) = [1, x, vec(x ⊗ x) / √2] (273
           features) and q / 4, normalised (+ 1e-6) or not; feature dim 16,
           value dim 64

on random inputs (normal bf16; the decayed form's q and k scaled by 1/4 so
|o| stays near 1; slopes in [0.01, 0.5]) at awkward shapes: sequence
lengths 1, 63, 65, 1000, 4097 and 16384, odd batch × heads, both layouts.
Tolerance: the largest error over the largest reference magnitude, at most
2e-2 (bf16 inputs and output; the state enters its MMAs as bf16). Also
checks that backward raises.

usage: linear_attention.py [--out DIR]   (artifacts from scripts/setup.sh)
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir.ops.linear_attention import based, linear_attention  # noqa: E402

TOLERANCE = 2e-2
# (batch, heads, seq, dim, layout); elu1 runs them at dims 64 and 128, the
# decayed form at 128.
SHAPES = [
    (2, 3, 64, 64, "bhsd"), (1, 1, 1, 64, "bhsd"), (3, 5, 63, 64, "bshd"),
    (1, 3, 65, 64, "bhsd"), (2, 1, 1000, 64, "bshd"),
    (1, 7, 1000, 64, "bhsd"), (3, 1, 4097, 64, "bhsd"),
    (1, 3, 4097, 64, "bshd"), (1, 2, 16384, 64, "bhsd"),
    (1, 1, 16384, 64, "bshd"), (5, 3, 200, 64, "bshd"),
    (16, 16, 128, 64, "bhsd"),
]


def recurrence(q, k, v, feature_map, normalize, slopes=None):
    """o and the final state for [batch, heads, seq, dim] tensors, in
    float64, step by step."""
    q, k, v = q.double(), k.double(), v.double()
    if feature_map == "elu1":
        q, k = F.elu(q) + 1, F.elu(k) + 1
    if feature_map == "taylor":
        def taylor(x):
            ones = torch.ones_like(x[..., :1])
            xx = (x[..., :, None] * x[..., None, :]).flatten(-2) / 2 ** 0.5
            return torch.cat([ones, x, xx], dim=-1)
        q, k = taylor(q / 4), taylor(k)
    b, h, n, d = q.shape
    state = torch.zeros(b, h, d, v.shape[-1], dtype=torch.float64,
                        device=q.device)
    z = torch.zeros(b, h, d, dtype=torch.float64, device=q.device)
    keep = None
    if slopes is not None:
        keep = torch.exp(-slopes.double())[None, :, None, None]
    out = torch.empty(b, h, n, v.shape[-1], dtype=torch.float64,
                      device=q.device)
    for t in range(n):
        if keep is not None:
            state *= keep
        state += k[:, :, t, :, None] * v[:, :, t, None, :]
        z += k[:, :, t]
        o = torch.einsum("bhd,bhde->bhe", q[:, :, t], state)
        if normalize:
            o = o / ((q[:, :, t] * z).sum(-1, keepdim=True) +
                     (1e-6 if feature_map == "taylor" else 0))
        out[:, :, t] = o
    return out, state


def check(rows, form, batch, heads, seq, dim, layout, with_state=False):
    q, k, v = (torch.randn(batch, heads, seq, dim, device="cuda",
                           dtype=torch.bfloat16) for _ in range(3))
    options = {"feature_map": "elu1", "normalize": True}
    slopes = None
    if form.startswith("based"):
        q, k = (torch.randn(batch, heads, seq, 16, device="cuda",
                            dtype=torch.bfloat16) for _ in range(2))
        options = {"feature_map": "taylor",
                   "normalize": form == "based_norm"}
    if form == "decay":
        q, k = (t * 0.25 for t in (q, k))
        slopes = torch.rand(heads, device="cuda") * 0.49 + 0.01
        options = {"feature_map": None, "normalize": False, "decay": slopes,
                   "return_state": with_state}
    want, want_state = recurrence(q, k, v, options["feature_map"],
                                  options["normalize"], slopes)
    if layout == "bshd":
        q, k, v = (t.transpose(1, 2).contiguous() for t in (q, k, v))
    if form.startswith("based"):
        got = based(q, k, v, normalize=options["normalize"], layout=layout)
    else:
        got = linear_attention(q, k, v, layout=layout, **options)
    got_state = None
    if with_state:
        got, got_state = got
    torch.cuda.synchronize()
    if layout == "bshd":
        got = got.transpose(1, 2)
    results = [("o", got, want)]
    if with_state:
        results.append(("state", got_state, want_state))
    for what, g, w in results:
        err = (g.double() - w).abs().max().item()
        scale = w.abs().max().item()
        ok = err <= TOLERANCE * scale
        rows.append({"program": form, "output": what, "batch": batch,
                     "heads": heads, "seq": seq, "dim": dim,
                     "layout": layout, "max_abs_error": err,
                     "max_abs_reference": scale, "ok": ok})
        print(f"linear_attention {form:>10} {what:>5} B={batch} H={heads} "
              f"T={seq:>5} D={dim} {layout}: max |err| {err:.3g} of "
              f"{scale:.3g} {'ok' if ok else 'FAIL'}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    torch.manual_seed(0)
    rows = []
    for dim in (64, 128):
        for batch, heads, seq, _, layout in SHAPES:
            check(rows, "elu1", batch, heads, seq, dim, layout)
    for i, (batch, heads, seq, _, layout) in enumerate(SHAPES):
        check(rows, "decay", batch, heads, seq, 128, layout,
              with_state=i % 2 == 0)
    for form in ("based_norm", "based"):
        for batch, heads, seq, _, layout in SHAPES:
            check(rows, form, batch, heads, seq, 64, layout)
    # Forward only: backward raises.
    q, k, v = (torch.randn(1, 1, 64, 64, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    try:
        linear_attention(q, k, v).sum().backward()
        raised = False
    except NotImplementedError:
        raised = True
    rows.append({"program": "elu1", "backward_raises": raised, "ok": raised})
    print(f"linear_attention backward raises: {raised}")
    return finish(args.out, "linear_attention.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
