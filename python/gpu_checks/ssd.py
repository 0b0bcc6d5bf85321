#!/usr/bin/env python3
"""Checks tk_mlir.ssd_chunk_scan on the GPU against a float64 torch
reference of Mamba2's recurrence itself, one position at a time,

    dt_t = clamp(softplus?(dt_t + dt_bias), *dt_limit)
    h_t = exp(dt_t A) h_{t-1} + dt_t x_tᵀ B_t,  y_t = h_t C_t + D x_t,
    y_t = y_t · silu(z_t) when z is given

(and the final state h_T), and against mamba_ssm's
mamba_chunk_scan_combined (chunk 64) on the same inputs when --peers
holds it (without it, against the reference alone, and says so), at
awkward shapes: sequence lengths 1, 63, 64, 65, 130, 257, 1000 and 4097, odd
heads, groups 1, between and equal to the heads, head dims 64 and 128,
state dims 64 and 128, with and without D ([heads] and [heads, P]), z,
dt_bias with softplus, dt_limit, initial and final states, and enough
tiles that the sequence is cut into segments. Inputs are
random: x, B, C, z, initial states normal (bf16 where the kernel takes
bf16); dt uniform in [0.001, 0.1] (or normal − 3 before softplus);
A = −U(0.5, 8); D normal. Tolerance: the largest error over the largest
reference magnitude at most 2e-2 for y and the final state (bf16 inputs
and output; the decayed scores, x·w and the state enter their MMAs as
bf16), both against the reference and against mamba_ssm. Also checks that
backward raises and that unsupported arguments are rejected.

usage: ssd.py [--out DIR] [--peers DIR]
  (artifacts from scripts/setup.sh; --peers: the folder holding
  mamba_ssm's Triton ops, default .peers next to python/)
"""
import argparse
import math
import os
import sys

import torch

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, ROOT)
from report import finish, relative_error  # noqa: E402
from tk_mlir import ArgumentError, ssd_chunk_scan  # noqa: E402
from tk_mlir.ops.ssd import segments_for  # noqa: E402

TOLERANCE = 2e-2
# (batch, seq, heads, groups, P, N, options)
SHAPES = [
    (2, 1, 4, 1, 64, 64, ""),
    (2, 63, 4, 4, 64, 64, ""),
    (2, 64, 3, 1, 64, 64, "D"),
    (2, 65, 4, 2, 128, 64, "z"),
    (1, 130, 5, 5, 64, 128, "states"),
    (3, 257, 4, 4, 64, 128, "bias"),
    (1, 1000, 8, 1, 64, 128, "Dp z"),
    (1, 1000, 4, 2, 128, 128, "D z bias states"),
    (2, 300, 6, 3, 128, 64, "limit"),
    (1, 4097, 2, 1, 128, 128, "states"),
    (1, 4097, 4, 4, 64, 64, "Dp z bias states"),
    (4, 513, 16, 1, 64, 64, "states32"),
    (2, 200, 2, 2, 64, 64, "D z bias states limit"),
    # Enough tiles (batch · heads · P / 64) that the chunks are cut into
    # segments handed from block to block (on a 132-multiprocessor H100:
    # 640 tiles -> 2 segments; 270 tiles of 6 chunks -> 4 segments of 2,
    # the last empty).
    (8, 700, 40, 2, 128, 128, "D z states"),
    (3, 330, 90, 1, 64, 64, "states"),
]


def reference(x, dt, A, B, C, D=None, z=None, dt_bias=None,
              dt_softplus=False, dt_limit=(0.0, math.inf),
              initial_states=None):
    """y and the final state, float64, one position at a time."""
    batch, seq, heads, dim = x.shape
    groups = B.shape[2]
    x = x.double()
    B = B.double().repeat_interleave(heads // groups, dim=2)
    C = C.double().repeat_interleave(heads // groups, dim=2)
    dt = dt.double()
    if dt_bias is not None:
        dt = dt + dt_bias.double()
    if dt_softplus:
        dt = torch.where(dt <= 20, torch.log1p(torch.exp(dt)), dt)
    dt = dt.clamp(*dt_limit)
    decay = torch.exp(dt * A.double())
    h = (initial_states.double().clone() if initial_states is not None else
         torch.zeros(batch, heads, dim, B.shape[-1], dtype=torch.float64,
                     device=x.device))
    y = torch.empty_like(x)
    for t in range(seq):
        h = decay[:, t, :, None, None] * h + \
            (dt[:, t, :, None] * x[:, t])[..., None] * B[:, t, :, None, :]
        y[:, t] = (h * C[:, t, :, None, :]).sum(-1)
    if D is not None:
        d = D.double()
        y = y + x * (d[:, None] if d.dim() == 1 else d)
    if z is not None:
        zz = z.double()
        y = y * zz * torch.sigmoid(zz)
    return y, h


def inputs(batch, seq, heads, groups, dim, state, options, gen):
    def randn(*shape, dtype=torch.bfloat16):
        return torch.randn(*shape, generator=gen, device="cuda").to(dtype)

    opts = options.split()
    args = dict(
        x=randn(batch, seq, heads, dim),
        dt=torch.rand(batch, seq, heads, generator=gen, device="cuda")
        * 0.099 + 0.001,
        A=-(torch.rand(heads, generator=gen, device="cuda") * 7.5 + 0.5),
        B=randn(batch, seq, groups, state),
        C=randn(batch, seq, groups, state))
    kw = {}
    if "D" in opts:
        kw["D"] = randn(heads, dtype=torch.float32)
    if "Dp" in opts:
        kw["D"] = randn(heads, dim, dtype=torch.float32)
    if "z" in opts:
        kw["z"] = randn(batch, seq, heads, dim)
    if "bias" in opts:
        args["dt"] = randn(batch, seq, heads, dtype=torch.float32) - 3
        kw["dt_bias"] = randn(heads, dtype=torch.float32) * 0.5
        kw["dt_softplus"] = True
    if "limit" in opts:
        args["dt"] = args["dt"] * 2 - 0.05
        kw["dt_limit"] = (0.01, 0.15)
    if "states" in opts or "states32" in opts:
        kw["initial_states"] = randn(batch, heads, dim, state,
                                     dtype=torch.float32)
        kw["return_final_states"] = True
        if "states32" in opts:
            kw["state_dtype"] = torch.float32
    return args, kw


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--peers", default=os.path.join(ROOT, "..", ".peers"))
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(args.peers))
    try:
        from mamba_ssm.ops.triton.ssd_combined import \
            mamba_chunk_scan_combined
    except ImportError as error:
        # (The reference is the check; the peer is a second opinion.)
        mamba_chunk_scan_combined = None
        print(f"mamba_ssm not found ({error}): checking against the "
              "float64 reference only", flush=True)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    rows = []
    for shape in SHAPES:
        batch, seq, heads, groups, dim, state, options = shape
        pos, kw = inputs(*shape, gen)
        out = ssd_chunk_scan(**pos, chunk_size=64, **kw)
        ref_kw = {k: v for k, v in kw.items()
                  if k not in ("return_final_states", "state_dtype")}
        want_y, want_h = reference(**pos, **ref_kw)
        peer = (mamba_chunk_scan_combined(**pos, chunk_size=64, **kw)
                if mamba_chunk_scan_combined else None)
        torch.cuda.synchronize()
        y, h = out if isinstance(out, tuple) else (out, None)
        peer_y, peer_h = peer if isinstance(peer, tuple) else (peer, None)
        segments = segments_for(
            batch * heads * dim // 64, -(-seq // 64),
            torch.cuda.get_device_properties(0).multi_processor_count * 2)
        row = {"batch": batch, "seq": seq, "heads": heads, "groups": groups,
               "P": dim, "N": state, "options": options,
               "segments": segments,
               "y_err": relative_error(y, want_y)}
        ok = y.dtype == pos["x"].dtype and y.shape == pos["x"].shape
        ok = ok and row["y_err"] <= TOLERANCE
        if peer is not None:
            row["y_err_vs_mamba"] = relative_error(y, peer_y)
            row["mamba_y_err"] = relative_error(peer_y, want_y)
            ok = ok and row["y_err_vs_mamba"] <= TOLERANCE
        if h is not None:
            row["state_dtype"] = str(h.dtype)
            row["state_err"] = relative_error(h, want_h)
            # (float32 whatever state_dtype says, as mamba_ssm's.)
            ok = ok and h.dtype == torch.float32 and \
                h.shape == want_h.shape and row["state_err"] <= TOLERANCE
            if peer is not None:
                row["state_err_vs_mamba"] = relative_error(h, peer_h)
                ok = ok and h.dtype == peer_h.dtype and \
                    row["state_err_vs_mamba"] <= TOLERANCE
        row["ok"] = bool(ok)
        rows.append(row)
        versus = (f" (mamba {row['mamba_y_err']:.2e}, ours vs mamba "
                  f"{row['y_err_vs_mamba']:.2e})" if peer is not None else "")
        print(f"B={batch} T={seq:>5} H={heads:>2} G={groups} P={dim:>3} "
              f"N={state:>3} S={segments} [{options}]: "
              f"y {row['y_err']:.2e}{versus}"
              + (f", state {row['state_err']:.2e}" if h is not None else "")
              + ("" if ok else "  FAIL"), flush=True)

    # Forward only: backward raises.
    pos, kw = inputs(1, 70, 2, 1, 64, 64, "", gen)
    pos["x"].requires_grad_(True)
    try:
        ssd_chunk_scan(**pos).float().sum().backward()
        raised = False
    except NotImplementedError as e:
        raised = "forward only" in str(e)
    rows.append({"case": "backward raises", "ok": raised})
    print(f"backward raises: {raised}")
    # Rejected arguments name themselves.
    pos["x"] = pos["x"].detach()
    rejected = []
    for name, bad, error in (
            ("seq_idx", dict(seq_idx=torch.zeros(1, 70, device="cuda")),
             ValueError),
            ("x", dict(x=pos["x"].float()), ArgumentError),
            ("B", dict(B=torch.cat([pos["B"], pos["B"]], -1)[..., ::2]),
             ArgumentError),
            ("A", dict(A=pos["A"].cpu()), ArgumentError)):
        try:
            ssd_chunk_scan(**{**pos, **bad})
            rejected.append((name, False))
        except error as e:
            rejected.append((name, f"'{name}'" in str(e)))
    ok = all(r for _, r in rejected)
    rows.append({"case": "bad arguments named", "ok": ok,
                 "detail": rejected})
    print(f"bad arguments named: {rejected}")
    return finish(args.out, "ssd.json", {
        "check": rows,
        "peer": "mamba_ssm" if mamba_chunk_scan_combined else None})


if __name__ == "__main__":
    sys.exit(main())
