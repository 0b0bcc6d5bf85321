#!/usr/bin/env python3
"""Times tk_mlir's GEMM + reduce-scatter (the row-parallel linear layer)
and all-gather + GEMM (the column-parallel one) on every GPU of the node
against, in the same run:
(a) NCCL's collective and cuBLAS's matmul back to back;
(b) PyTorch's fused symmetric-memory ops
    (torch.ops.symm_mem.fused_matmul_reduce_scatter,
    fused_all_gather_matmul);
(c) the ideal overlap, max(matmul alone, collective alone).
Shapes: M tokens in {8192, 16384, 32768} x K = 8192 x N in {8192, 28672}:
GEMM + reduce-scatter over the whole N, each rank holding K / world of the
contraction; all-gather + GEMM with N / world columns per rank, each
holding M / world rows of A. bf16.

Timing as ../shared/peers/tp_baselines.py times its peers: CUDA events
around one call after a barrier, the median of the calls, the slowest rank
deciding; here the functions take turns in rounds so that clocks and
temperature drift alike for all. Prints ours and each peer in ms and the
ratios (a) / ours, (b) / ours, ours / (c), and the largest ours / (c) that
meets all three targets of 4 GPUs (>= 1.3x (a), >= 1.2x (b), <= 1.2 of
(c)) in that run; writes tensor-parallel-bench-<world>.json in --out.

With --graphs every function is captured in a CUDA graph of one call
(after a direct call) and timed as its replay, so that no host work
precedes the GPU's (the lent machines' hosts change speed from one minute
to the next, and a call timed alone waits for its host path): what the
GPUs do, for ours and the peers alike. A function whose capture fails is
timed as a direct call and named in the row's "direct". Writes
tensor-parallel-bench-<world>-graphs.json.

usage: torchrun --nproc-per-node N tensor_parallel.py [--out DIR]
        [--shapes M:K:N,...] [--rounds R] [--graphs]
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import tk_mlir.multi_device  # noqa: E402,F401  (multicast off first)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from tk_mlir.ops.tensor_parallel import (  # noqa: E402
    all_gather_gemm, gemm_reduce_scatter)

SHAPES = ("8192:8192:8192,16384:8192:8192,32768:8192:8192,"
          "8192:8192:28672,16384:8192:28672,32768:8192:28672")

# The targets on 4 GPUs: ours at least this many times faster than (a) and
# (b), and within this factor of (c).
OVER_SEQ, OVER_FUSED, WITHIN_IDEAL = 1.3, 1.2, 1.2


def time_once(fn):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    dist.barrier()
    torch.cuda.synchronize()
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def time_rounds(fns, rounds, per_round=5, warmup=3):
    """Median ms of each function (dict name -> fn), the functions taking
    turns in `rounds` rounds of `per_round` calls; the slowest rank's."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples = {name: [] for name in fns}
    for r in range(rounds):
        names = list(fns) if r % 2 == 0 else list(reversed(fns))
        for name in names:
            samples[name] += [time_once(fns[name]) for _ in range(per_round)]
    result = {}
    for name, times in samples.items():
        t = torch.tensor(statistics.median(times), device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        result[name] = t.item()
    return result


def replayed(fns):
    """The functions as replays of a CUDA graph of one call each (after a
    direct call, which makes the ops' state outside the capture), and the
    names of those whose capture failed on some rank (kept as direct calls
    on every rank, so that the ranks keep calling the same collectives)."""
    replays, direct = {}, []
    for name, fn in fns.items():
        fn()
        torch.cuda.synchronize()
        dist.barrier()
        graph, failure = torch.cuda.CUDAGraph(), None
        try:
            with torch.cuda.graph(graph):
                fn()
        except Exception as error:
            failure = error
        captured = torch.tensor(int(failure is None), device="cuda")
        dist.all_reduce(captured, op=dist.ReduceOp.MIN)
        if captured.item():
            replays[name] = graph.replay
            continue
        if dist.get_rank() == 0:
            print(f"{name}: not captured ({failure or 'on another rank'}); "
                  f"timed as direct calls", flush=True)
        replays[name] = fn
        direct.append(name)
    return replays, direct


def peers(op, M, K, N, world, group):
    """The functions timed for one op and shape: ours, cuBLAS alone, the
    collective alone, both back to back, PyTorch's fused op."""
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    if op == "ag_gemm":
        a = torch.randn(M // world, K, **bf16)
        b = torch.randn(K, N // world, **bf16)
        full = torch.empty(M, K, **bf16)
        product = torch.empty(M, N // world, **bf16)
        return {
            "ours": lambda: all_gather_gemm(a, b),
            "gemm": lambda: torch.matmul(full, b, out=product),
            "comm": lambda: dist.all_gather_into_tensor(full, a),
            "seq": lambda: (dist.all_gather_into_tensor(full, a),
                            torch.matmul(full, b, out=product)),
            "fused": lambda: torch.ops.symm_mem.fused_all_gather_matmul(
                a, [b], gather_dim=0, group_name=group.group_name),
        }
    a = torch.randn(M, K // world, **bf16)
    b = torch.randn(K // world, N, **bf16)
    part = torch.empty(M, N, **bf16)
    out = torch.empty(M // world, N, **bf16)
    return {
        "ours": lambda: gemm_reduce_scatter(a, b),
        "gemm": lambda: torch.matmul(a, b, out=part),
        "comm": lambda: dist.reduce_scatter_tensor(out, part),
        "seq": lambda: (torch.matmul(a, b, out=part),
                        dist.reduce_scatter_tensor(out, part)),
        "fused": lambda: torch.ops.symm_mem.fused_matmul_reduce_scatter(
            a, b, "sum", scatter_dim=0, group_name=group.group_name),
    }


def row_of(op, M, K, N, world, t):
    """One shape's row from its times `t` (ms by function name): the
    ratios, and `needed`, the largest ours / (c) that meets all three
    targets at once. Below 1 it asks for ours faster than the ideal overlap
    itself (the peers' own margin over (c) is smaller than the target's)."""
    ideal = max(t["gemm"], t["comm"])
    return dict(op=op, M=M, K=K, N=N, world=world, ours=t["ours"],
                seq=t["seq"], fused=t["fused"], gemm=t["gemm"],
                comm=t["comm"], ideal=ideal,
                seq_over_ours=t["seq"] / t["ours"],
                fused_over_ours=t["fused"] / t["ours"],
                ours_over_ideal=t["ours"] / ideal,
                needed=min(t["seq"] / ideal / OVER_SEQ,
                           t["fused"] / ideal / OVER_FUSED, WITHIN_IDEAL))


def write(out, world, rows, graphs):
    suffix = "-graphs" if graphs else ""
    with open(os.path.join(out, f"tensor-parallel-bench-{world}{suffix}"
                                f".json"), "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "world": world,
                   "torch": torch.__version__,
                   "mode": "graph replays" if graphs else "calls",
                   "rows": rows}, f, indent=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--graphs", action="store_true",
                        help="time replays of a CUDA graph of each call")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    if rank == 0:   # before the timing: a folder that cannot be made stops it
        os.makedirs(args.out, exist_ok=True)
    torch.cuda.set_device(rank)
    group = dist.group.WORLD
    rows = []
    for shape in args.shapes.split(","):
        M, K, N = (int(x) for x in shape.split(":"))
        for op in ("ag_gemm", "gemm_rs"):
            fns, direct = peers(op, M, K, N, world, group), []
            if args.graphs:
                fns, direct = replayed(fns)
            t = time_rounds(fns, args.rounds)
            row = row_of(op, M, K, N, world, t)
            if args.graphs:
                row["direct"] = direct
            rows.append(row)
            if rank == 0:
                print(f"{op} M={M:6d} K={K} N={N:6d} W={world}"
                      f"{' [graphs]' if args.graphs else ''}: ours "
                      f"{t['ours']:.3f} ms | (a) NCCL+cuBLAS {t['seq']:.3f} "
                      f"({row['seq_over_ours']:.2f}x) | (b) symm_mem fused "
                      f"{t['fused']:.3f} ({row['fused_over_ours']:.2f}x) | "
                      f"(c) ideal {row['ideal']:.3f} (gemm {t['gemm']:.3f}, "
                      f"comm {t['comm']:.3f}; ours/ideal "
                      f"{row['ours_over_ideal']:.2f}, the targets need "
                      f"<= {row['needed']:.2f})", flush=True)
            del fns
            torch.cuda.empty_cache()
            if rank == 0:   # after each row: a cut-off run keeps its rows
                write(args.out, world, rows, args.graphs)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
