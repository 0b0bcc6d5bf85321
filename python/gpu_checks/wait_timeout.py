#!/usr/bin/env python3
"""Runs python/gpu_checks/wait_timeout.mlir compiled with
-tile-to-nvidia="wait-timeout-ms=LIMIT" and checks the wait time limit:

- with no block stuck, every timed wait completes and Y equals 2X exactly
  (n = 1, 64, 1000 and 4096 rows);
- with one block stuck on a semaphore nothing arrives on (in a child
  process, since a trap leaves the CUDA context unusable), the launch fails
  instead of hanging, no sooner than LIMIT ms and within 60 s, and the child's
  Kernel.wait_timeouts() reports the timed-out wait (read from host memory
  the kernel wrote before it trapped): the kernel, that block, a warp's
  first thread and the source line of the stuck `tile.sem_wait`; the next
  launch's error repeats the reports;
- the same with one block polling a counter nothing adds to
  (`tile.signal_wait ... at_least`): the report names the block, its first
  thread, the line of the poll and the value it waited for.

usage: wait_timeout.py --manifest DIR/wait_timeout.json --limit-ms LIMIT
"""
import argparse
import os
import re
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir import Kernel  # noqa: E402

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "wait_timeout.mlir")
STUCK_BLOCK = 3
STUCK_ROWS = 4096
CHILD_LIMIT_S = 60


NAMES = ["X", "Y", "stuck", "counters", "polled"]


def run(kernel, n, stuck, polled=None):
    x = torch.randn(n, 64, device="cuda").to(torch.bfloat16)
    y = torch.full((n, 64), float("nan"), device="cuda", dtype=torch.bfloat16)
    counters = torch.zeros(1, dtype=torch.int32, device="cuda")
    kernel(x, y, stuck, counters, n if polled is None else polled)
    torch.cuda.synchronize()
    return torch.equal(y, x * 2)


def line_of(text):
    with open(PROGRAM) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise RuntimeError(f"{PROGRAM} has no `{text}`")


def child(manifest, counter):
    """Launches with block STUCK_BLOCK stuck on the semaphore or, `counter`,
    polling the counter; prints the failure and the reports."""
    kernel = Kernel(manifest, names=NAMES)
    x = torch.randn(STUCK_ROWS, 64, device="cuda").to(torch.bfloat16)
    y = torch.empty_like(x)
    counters = torch.zeros(1, dtype=torch.int32, device="cuda")
    stuck, polled = ((STUCK_ROWS, STUCK_BLOCK) if counter
                     else (STUCK_BLOCK, STUCK_ROWS))
    try:
        kernel(x, y, stuck, counters, polled)
        torch.cuda.synchronize()
    except Exception as error:  # the launch's CUDA error
        print(f"child: launch failed: {error}", flush=True)
        for message in kernel.wait_timeouts():
            print(f"report: {message}", flush=True)
        try:  # the next launch's error names the timed-out waits
            kernel(x, y, stuck, counters, polled)
        except RuntimeError as again:
            print(f"child: next launch: {again}", flush=True)
        return 3
    print("child: launch finished", flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--limit-ms", type=int, required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--child", choices=["semaphore", "counter"],
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.manifest, args.child == "counter")

    rows = []
    kernel = Kernel(args.manifest, names=NAMES)
    for n in (1, 64, 1000, 4096):
        exact = run(kernel, n, stuck=n)  # no block has this index
        rows.append({"case": "no block stuck", "n": n, "exact": exact,
                     "ok": exact})
        print(f"wait_timeout n={n:>5}, no block stuck: "
              f"{'exact' if exact else 'MISMATCH'}", flush=True)

    # Closing unloads the module and frees the pinned report buffer; the
    # closed kernel refuses launches; a new Kernel of the manifest works.
    kernel.close()
    try:
        run(kernel, 64, stuck=64)
        refused = False
    except RuntimeError as error:
        refused = "is closed" in str(error)
    again = Kernel(args.manifest, names=NAMES)
    reloaded = run(again, 1000, stuck=1000)
    again.close()
    for what, ok in (("closed kernel refuses a launch", refused),
                     ("a kernel loaded after close is exact", reloaded)):
        rows.append({"case": what, "ok": ok})
        print(f"wait_timeout {what}: {'ok' if ok else 'FAIL'}", flush=True)

    waited_for = {
        "semaphore": (line_of("tile.sem_wait %never"),
                      r"the phase of parity 0 of the semaphore at shared "
                      r"address 0x[0-9a-f]+"),
        "counter": (line_of("tile.signal_wait %counters"),
                    r"a counter in global memory \(address ending "
                    r"0x[0-9a-f]{8}\) to reach 1")}
    for kind, (line, what) in waited_for.items():
        start = time.monotonic()
        try:
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--manifest",
                 args.manifest, "--limit-ms", str(args.limit_ms), "--child",
                 kind], capture_output=True, text=True,
                timeout=CHILD_LIMIT_S)
            output, code = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as hung:
            output = ((hung.stdout or b"").decode() +
                      (hung.stderr or b"").decode())
            code = None
        elapsed = time.monotonic() - start
        print(output, end="")
        message = (r"kernel wait_timeout, block (\d+), thread (\d+): waited "
                   r"over (\d+) ms at \S*wait_timeout\.mlir:"
                   rf"{line}:\d+ for " + what)
        reports = re.findall("report: " + message, output)
        next_launch = re.search(r"child: next launch: .*waits that timed "
                                r"out: " + message, output)
        checks = {
            "the launch failed (no hang)": code == 3,
            "not before the limit": elapsed >= args.limit_ms / 1000,
            "a report": len(reports) > 0,
            "every report names the stuck block, a warp's first thread and "
            "the limit": all(int(b) == STUCK_BLOCK and int(t) % 32 == 0
                             and int(ms) == args.limit_ms
                             for b, t, ms in reports),
            "the next launch's error has the reports": next_launch is not None,
        }
        for check, ok in checks.items():
            rows.append({"case": f"block {STUCK_BLOCK} stuck on a {kind}: "
                                 f"{check}",
                         "exit": code, "seconds": round(elapsed, 2),
                         "reports": len(reports), "ok": ok})
            print(f"wait_timeout block {STUCK_BLOCK} stuck on a {kind}: "
                  f"{check}: {'ok' if ok else 'FAIL'}", flush=True)
    return finish(args.out, "wait_timeout.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
