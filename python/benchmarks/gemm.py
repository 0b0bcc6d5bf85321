#!/usr/bin/env python3
"""Checks tk-mlir's GEMM against a float32 torch reference and times it next
to cuBLAS (torch.matmul) in the same run.

usage: gemm.py --manifest build/artifacts/gemm/gemm.json [--out DIR]
               [--check-only] [--bench-only] [--transpose-b]
               [--baseline OTHER.json] [--name NAME]

Correctness: random bf16 inputs (never zeros), output poisoned with NaN
before each launch, relative Frobenius error against float32 A @ B must be
below 1e-2. Timing: CUDA events around batches of back-to-back calls after a
warm-up, ours, cuBLAS and the baseline (if any) in alternation, at least
15 batches each, each kernel after each other one equally often, median
per kernel (timing.time_interleaved); inputs rotate over
several buffers so repeated calls do not all hit L2; TFLOP/s = 2 M N K /
time. With --baseline, a second kernel of ours (the hand-scheduled GEMM) is
timed in the same rounds, and the ratio to it is printed too.
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir import ArgumentError, Kernel  # noqa: E402
from tk_mlir.ops.gemm import StreamKGemm  # noqa: E402
from timing import time_interleaved  # noqa: E402

CHECK_SHAPES = [  # M, N, K
    (4096, 4096, 4096), (8192, 8192, 8192), (128, 4096, 4096),
    (128, 8192, 8192), (4000, 3000, 1000), (1, 8, 8), (129, 264, 72),
    (333, 520, 136), (2048, 1032, 2056), (1000, 1000, 1000),
    (64, 256, 64), (8192, 1024, 320), (1100, 4104, 776),
]
BENCH_SHAPES = [
    (4096, 4096, 4096), (8192, 8192, 8192), (8192, 28672, 8192),
    (8192, 8192, 28672), (8192, 10240, 8192),
]
TOLERANCE = 1e-2


TRANSPOSE_B = False  # set by --transpose-b: B is stored N x K


def random_inputs(m, n, k):
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    shape = (n, k) if TRANSPOSE_B else (k, n)
    b = torch.randn(*shape, device="cuda").to(torch.bfloat16)
    return a, b


def reference(a, b):
    return a.float() @ (b.float().t() if TRANSPOSE_B else b.float())


def check(kernel):
    rows = []
    for m, n, k in CHECK_SHAPES:
        a, b = random_inputs(m, n, k)
        c = torch.full((m, n), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        kernel(a, b, c)
        torch.cuda.synchronize()
        ref = reference(a, b)
        err = ((c.float() - ref).norm() / ref.norm()).item()
        ok = err < TOLERANCE and not torch.isnan(c).any().item()
        rows.append({"m": m, "n": n, "k": k, "rel_err": err, "ok": ok})
        print(f"check {m:>5} x {n:>5} x {k:>5}: rel err {err:.2e} "
              f"{'ok' if ok else 'FAIL'}", flush=True)
    return rows




def check_bad_arguments(kernel):
    """Wrong operands raise ArgumentError naming the argument, before any
    launch (the stream-K wrapper sizes its workspace from them first)."""
    a, b = random_inputs(256, 256, 64)
    c = torch.empty(256, 256, device="cuda", dtype=torch.bfloat16)
    cases = [("B", (a, [[1.0]], c)), ("B", (a, b.float(), c)),
             ("C", (a, b, c.cpu())), ("A", (a.cpu(), b, c))]
    ok = True
    for name, args in cases:
        try:
            kernel(*args)
            ok = False
            print(f"check bad argument {name}: no error FAIL", flush=True)
        except ArgumentError as e:
            named = f"'{name}'" in str(e)
            ok &= named
            print(f"check bad argument {name}: {e} "
                  f"{'ok' if named else 'FAIL'}", flush=True)
    return {"bad_arguments": True, "ok": ok}


def check_scratch_zero(kernel):
    """After the checks, the stream-K workspace and counters are zero again
    (what the next launch relies on)."""
    torch.cuda.synchronize()
    work, counters = kernel.scratch(torch.device("cuda", 0), 1)
    ok = (not work.any().item()) and (not counters.any().item())
    print(f"check stream-K scratch left zero: {'ok' if ok else 'FAIL'}",
          flush=True)
    return {"scratch_zero": True, "ok": ok}


def rotating(fn, sets):
    state = {"i": 0}

    def call():
        fn(*sets[state["i"] % len(sets)])
        state["i"] += 1
    return call


def bench(kernel, baseline=None):
    rows = []
    for m, n, k in BENCH_SHAPES:
        sets = []
        for _ in range(3):
            a, b = random_inputs(m, n, k)
            sets.append((a, b, torch.empty(m, n, device="cuda",
                                           dtype=torch.bfloat16)))
        flops = 2.0 * m * n * k
        # Timed in alternation (timing.time_interleaved): clock drift during
        # the run falls on ours, the baseline and cuBLAS alike.
        fns = {"tk": rotating(kernel, sets),
               "cublas": rotating(
                   lambda a, b, c: torch.matmul(
                       a, b.t() if TRANSPOSE_B else b, out=c), sets)}
        if baseline is not None:
            fns["baseline"] = rotating(baseline, sets)
        times = time_interleaved(fns, warmup=10, rounds=15, per_batch=20)
        ours, cublas = times["tk"], times["cublas"]
        base = times.get("baseline")
        row = {"m": m, "n": n, "k": k, "tk_ms": ours, "cublas_ms": cublas,
               "tk_tflops": flops / ours / 1e9,
               "cublas_tflops": flops / cublas / 1e9}
        row["ratio"] = row["tk_tflops"] / row["cublas_tflops"]
        line = (f"bench {m:>5} x {n:>5} x {k:>5}: tk-mlir "
                f"{row['tk_tflops']:7.1f} TFLOP/s, cuBLAS "
                f"{row['cublas_tflops']:7.1f} TFLOP/s, ratio "
                f"{row['ratio']:.3f}")
        if baseline is not None:
            row["baseline_ms"] = base
            row["baseline_tflops"] = flops / base / 1e9
            row["vs_baseline"] = base / ours
            line += (f"; baseline {row['baseline_tflops']:7.1f} TFLOP/s, "
                     f"ours/baseline {row['vs_baseline']:.3f}")
        rows.append(row)
        print(line, flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--check-only", action="store_true")
    parser.add_argument("--bench-only", action="store_true")
    parser.add_argument("--transpose-b", action="store_true",
                        help="the kernel computes A @ B.T with B stored N x K")
    parser.add_argument("--baseline",
                        help="manifest of a second kernel of ours to time "
                             "in the same run (e.g. the hand-scheduled GEMM)")
    parser.add_argument("--name", help="JSON file name (default gemm.json "
                                       "or gemm_abt.json)")
    parser.add_argument("--stream-k", action="store_true",
                        help="the kernel is stream-K (gemm_streamk.mlir: "
                             "takes a workspace and counters)")
    args = parser.parse_args()
    global TRANSPOSE_B
    TRANSPOSE_B = args.transpose_b
    if args.stream_k:
        kernel = StreamKGemm(args.manifest)
    else:
        kernel = Kernel(args.manifest, names=["A", "B", "C"])
    result = {"device": torch.cuda.get_device_name(),
              "torch": torch.__version__}
    if not args.bench_only:
        result["check"] = check(kernel)
        if args.stream_k:
            result["check"].append(check_scratch_zero(kernel))
            result["check"].append(check_bad_arguments(kernel))
    if not args.check_only:
        baseline = (Kernel(args.baseline, names=["A", "B", "C"])
                    if args.baseline else None)
        result["bench"] = bench(kernel, baseline)
        if args.baseline:
            result["baseline"] = args.baseline
    os.makedirs(args.out, exist_ok=True)
    result["form"] = "A @ B.T" if TRANSPOSE_B else "A @ B"
    name = args.name or ("gemm_abt.json" if TRANSPOSE_B else "gemm.json")
    with open(os.path.join(args.out, name), "w") as f:
        json.dump(result, f, indent=2)
    failed = [r for r in result.get("check", []) if not r["ok"]]
    print(f"{len(result.get('check', [])) - len(failed)} passed, "
          f"{len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
