#!/usr/bin/env python3
"""Times what tk_mlir.attention() runs -- the forward program it picks per
head dim, length and mask (`forward_kernel`, launched as it launches it)
and the backward form and program it picks (`attention_backward` with its
defaults, including the Δ kernel, zeroing and converting the f32 dQ
accumulator) -- next to torch SDPA's cuDNN and flash backends in one run
(python/benchmarks/timing.py): ours against each peer head to head, the two
interleaved (timing.time_pairs), one pair after the other.

usage: TK_MLIR_ARTIFACTS=DIR attention.py [--out DIR] [--part fwd|bwd|both]
                                          [--dims 128,64] [--seqs 512,...]
                                          [--rounds N] [--set | --sustained S]

Shapes follow the FlashAttention-3 paper: 16k tokens in total (batch =
16384 / seq), hidden 2048 (heads = 2048 / head dim), seq 512 … 16384;
TFLOP/s = 4 · batch · heads · seq² · dim, halved for causal, the backward
counted as 2.5 × the forward. "vs_cudnn" is ours / cuDNN, both from their
pair ("tk_tflops" is ours in that pair); "vs_flash" ours / flash from
theirs ("tk_tflops_flash_pair" ours there). --set interleaves all three in
one set (timing.time_interleaved; not the default: with flash in the
set, ours / cuDNN read 1.3-5.5% lower than head to head on an H100,
docs/performance.md). --sustained S times each function in windows of S
seconds of back-to-back calls (timing.time_sustained: its own steady state
under the GPU's power limit).

Every timed point is also a check, on its own random bf16 inputs: ours
against cuDNN's output (forward: relative Frobenius error of O below 2e-2)
or gradients (backward, loss = sum(O ∘ dO) with random dO: dQ, dK, dV below
3e-2). Both sides round to bf16, so this checks that the timed call
computes attention; the float32-reference checks on awkward shapes are
attention_fwd.py, attention_bwd.py and gpu_checks/attention_api.py.
Exit status 1 when a check fails.
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir.ops.attention import (attention_backward, attention_forward,  # noqa: E402
                               forward_kernel, fused_program, uses_fused)
from peers import sdpa_backward, sdpa_forward  # noqa: E402
from timing import time_interleaved, time_pairs, time_sustained  # noqa: E402

SEQS = (512, 1024, 2048, 4096, 8192, 16384)
FORWARD_TOLERANCE = 2e-2
BACKWARD_TOLERANCE = 3e-2
PEERS = ("cudnn", "flash")


def rel_err(got, want):
    return ((got.float() - want.float()).norm() / want.float().norm()).item()


def point(part, dim, seq, causal, rounds, timing="pairs", sustained=0.0):
    """One benchmark point: the timing row and its check row. timing:
    "pairs", "set" or "sustained" (windows of `sustained` seconds)."""
    batch, heads = 16384 // seq, 2048 // dim
    scale = 1 / math.sqrt(dim)
    q, k, v, do = (torch.randn(batch, heads, seq, dim, device="cuda")
                   .to(torch.bfloat16) for _ in range(4))
    flops = 4 * batch * heads * seq * seq * dim / (2 if causal else 1)
    row = {"part": part, "batch": batch, "heads": heads, "seq": seq,
           "dim": dim, "causal": causal}
    fns = {}
    if part == "fwd":
        row["program"] = forward_kernel(dim, seq, causal)
        fns["tk"] = lambda: attention_forward(q, k, v, causal, scale)
        for name in PEERS:
            fns[name] = sdpa_forward(name, q, k, v, causal, scale)
        errs = {"o": rel_err(fns["tk"]()[0], fns["cudnn"]())}
        tolerance = FORWARD_TOLERANCE
    else:
        flops *= 2.5
        row["form"] = "fused" if uses_fused(dim, seq) else "split"
        if row["form"] == "fused":
            row["program"] = fused_program(dim, seq, causal)
        o, lse = attention_forward(q, k, v, causal, scale)
        fns["tk"] = lambda: attention_backward(q, k, v, o, lse, do, causal,
                                               scale)
        for name in PEERS:
            fns[name] = sdpa_backward(name, q, k, v, do, causal, scale)
        errs = {g: rel_err(mine, want) for g, mine, want in
                zip(("dq", "dk", "dv"), fns["tk"](), fns["cudnn"]())}
        tolerance = BACKWARD_TOLERANCE
    ok = all(e < tolerance for e in errs.values())
    check = {**row, "vs_cudnn_rel_err": errs, "tolerance": tolerance,
             "ok": ok}
    if timing == "sustained":
        times = time_sustained(fns, seconds=sustained, windows=3, per_batch=5)
        row["timing"] = f"sustained {sustained:g} s x 3 windows"
    elif timing == "set":
        times = time_interleaved(fns, warmup=3, rounds=rounds, per_batch=5)
        row["timing"] = "set"
    else:
        pairs = time_pairs(fns, "tk", warmup=3, rounds=rounds, per_batch=5)
        times = {name: pair[name] for name, pair in pairs.items()}
        times["tk"] = pairs["cudnn"]["tk"]
        row["tk_tflops_flash_pair"] = flops / pairs["flash"]["tk"] / 1e9
        row["timing"] = "pairs"
    for name, t in times.items():
        row[f"{name}_tflops"] = flops / t / 1e9
    row["vs_cudnn"] = row["tk_tflops"] / row["cudnn_tflops"]
    row["vs_flash"] = row.get("tk_tflops_flash_pair",
                              row["tk_tflops"]) / row["flash_tflops"]
    return row, check


def parse_args(argv=None):
    """The command line; args.timing is "pairs", "set" or "sustained"."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--part", choices=("fwd", "bwd", "both"),
                        default="both")
    parser.add_argument("--dims", default="128,64",
                        type=lambda x: [int(d) for d in x.split(",")])
    parser.add_argument("--seqs", default=SEQS,
                        type=lambda x: [int(n) for n in x.split(",")])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--name", default="attention.json")
    parser.add_argument("--set", action="store_true",
                        help="interleave ours and both peers in one set "
                        "(timing.time_interleaved) instead of ours against "
                        "each peer head to head (timing.time_pairs)")
    parser.add_argument("--sustained", type=float, default=0.0,
                        help="seconds per window: time each function in "
                        "windows of back-to-back calls at its own steady "
                        "state under the power limit (timing.time_sustained) "
                        "instead of interleaved batches; 0 (default): "
                        "interleaved, head to head or --set")
    args = parser.parse_args(argv)
    if args.sustained < 0:
        parser.error(f"--sustained: seconds must not be negative, not "
                     f"{args.sustained:g}")
    if args.set and args.sustained:
        parser.error("--set and --sustained are two timing methods: "
                     "give one")
    args.timing = ("sustained" if args.sustained else
                   "set" if args.set else "pairs")
    return args


def main():
    args = parse_args()
    parts = ("fwd", "bwd") if args.part == "both" else (args.part,)
    result = {"device": torch.cuda.get_device_name(), "check": [],
              "bench": []}
    for part in parts:
        for dim in args.dims:
            for seq in args.seqs:
                for causal in (False, True):
                    row, check = point(part, dim, seq, causal, args.rounds,
                                       args.timing, args.sustained)
                    result["bench"].append(row)
                    result["check"].append(check)
                    print(f"{part} d={dim} n={seq:>5} "
                          f"{'causal' if causal else 'full  '} "
                          f"tk {row['tk_tflops']:6.1f} cudnn "
                          f"{row['cudnn_tflops']:6.1f} flash "
                          f"{row['flash_tflops']:6.1f} vs cudnn "
                          f"{row['vs_cudnn']:.3f} "
                          f"{row.get('program', row.get('form'))} "
                          f"{'ok' if check['ok'] else 'FAIL'}", flush=True)
    return finish(args.out, args.name, result)


if __name__ == "__main__":
    sys.exit(main())
