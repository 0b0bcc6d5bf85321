#!/usr/bin/env python3
"""Checks the tensor-parallel ops' kernels compiled with a wait limit
($TK_MLIR_WAIT_TIMEOUT_MS): one process per GPU, every process makes a
correct first call of a shape, then process 0 alone calls the op again
while its peers do not. Without the limit its kernel would wait for the
peers forever; with it the launch fails within the limit (plus a margin),
and tensor_parallel.wait_timeouts() names the kernel, a block and the wait
it gave up on. A trap leaves process 0's CUDA context unusable, so each
op runs in its own torchrun (--op); the peers wait for process 0's
verdict in --out and exit.

usage: torchrun --nproc-per-node N tensor_parallel_timeout.py
           --op gemm_reduce_scatter|all_gather_gemm [--limit-ms MS]
           [--out DIR]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import tk_mlir.multi_device  # noqa: E402,F401  (multicast off first)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from report import finish, gathered, relative_error, scattered  # noqa: E402
from tk_mlir.ops import tensor_parallel  # noqa: E402

TOLERANCE = 2e-2
MARGIN_S = 30   # the failure comes within the limit plus this


def inputs(op, world):
    M, K, N = 2048, 1024, 1024
    if op == "gemm_reduce_scatter":
        a = torch.randn(M, K // world, device="cuda").bfloat16()
        b = torch.randn(K // world, N, device="cuda").bfloat16()
    else:
        a = torch.randn(M // world, K, device="cuda").bfloat16()
        b = torch.randn(K, N // world, device="cuda").bfloat16()
    return a, b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--op", required=True,
                        choices=["gemm_reduce_scatter", "all_gather_gemm"])
    parser.add_argument("--limit-ms", type=int, default=3000)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    os.environ["TK_MLIR_WAIT_TIMEOUT_MS"] = str(args.limit_ms)
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank)
    torch.manual_seed(1 + rank)
    op = getattr(tensor_parallel, args.op)
    verdict = os.path.join(args.out, f"tensor-parallel-timeout-{args.op}"
                                     f"-{world}.json")
    a, b = inputs(args.op, world)
    first = op(a, b)
    want = (scattered if args.op == "gemm_reduce_scatter" else gathered)(a, b)
    error = torch.tensor(relative_error(first, want), device="cuda")
    dist.all_reduce(error, op=dist.ReduceOp.MAX)
    first_error = error.item()   # (read before the context may fail)
    dist.barrier()
    if rank != 0:
        # The peers make no second call; they leave once process 0 has
        # written its verdict (or after the limit and the margin, twice).
        deadline = time.time() + 2 * (args.limit_ms / 1000 + MARGIN_S)
        while not os.path.exists(verdict) and time.time() < deadline:
            time.sleep(0.1)
        os._exit(0)
    start = time.time()
    failure = None
    try:
        op(a, b)
        torch.cuda.synchronize()
    except RuntimeError as e:
        failure = str(e)
    elapsed = time.time() - start
    messages = tensor_parallel.wait_timeouts()

    def named(message):
        # (Past the report's records, one line counts the waits left out.)
        return (message.startswith(f"kernel {args.op}, block ") and
                f"waited over {args.limit_ms} ms at " in message and
                f"{args.op}.mlir:" in message or
                message.endswith("more timed-out waits not recorded)"))
    rows = [
        {"case": f"{args.op} world={world}: a first call on every process",
         "ok": first_error <= TOLERANCE,
         "detail": f"relative error {first_error:.2e}"},
        {"case": f"{args.op} world={world}: a second call on process 0 "
                 f"alone fails instead of hanging",
         "ok": failure is not None and
         args.limit_ms / 1000 <= elapsed <= args.limit_ms / 1000 + MARGIN_S,
         "detail": f"after {elapsed:.1f} s: {failure}"},
        {"case": f"{args.op} world={world}: wait_timeouts() names the "
                 f"kernel and the wait",
         "ok": bool(messages) and all(named(m) for m in messages),
         "detail": f"{len(messages)} messages; first: "
                   f"{messages[0] if messages else None}",
         "messages": messages},
    ]
    for r in rows:
        print(f"{r['case']}: {'ok' if r['ok'] else 'FAILED'} {r['detail']}",
              flush=True)
    for m in messages:
        if not named(m):
            print(f"  not naming the kernel and the wait: {m}", flush=True)
    os.makedirs(args.out, exist_ok=True)
    # (Written whole under another name first: the peers wait for it.)
    status = finish(args.out, os.path.basename(verdict) + ".tmp",
                    {"world": world, "limit_ms": args.limit_ms,
                     "check": rows})
    sys.stdout.flush()
    os.replace(verdict + ".tmp", verdict)
    os._exit(status)


if __name__ == "__main__":
    main()
