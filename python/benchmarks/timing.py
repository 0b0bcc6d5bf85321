"""Timing shared by the benchmark scripts."""
import math
import os
import statistics

import torch

# Milliseconds of untimed calls of a function right before each of its timed
# batches (TK_MLIR_SETTLE_MS overrides; 0 times each batch right after the
# function before it, without settling). See time_interleaved.
SETTLE_MS = float(os.environ.get("TK_MLIR_SETTLE_MS", 200))


def _batch(fn, count):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(count):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / count


def balanced_order(count, rounds):
    """The order in which time_interleaved times `count` functions (by
    index): a closed walk through every ordered pair of distinct functions
    once (an Eulerian circuit of the complete directed graph; for 3:
    0 2 1 2 0 1), repeated until each function has `rounds` batches (at
    least), so each function is timed right after each other one equally
    often, the wrap-around included. A plain rotation (round r starts at
    function r) puts each function after the same one in most rounds: on
    an H100 the function timed after SDPA's flash backend (the slowest,
    least power-hungry one) measured 3-6% slower than when timed after
    cuDNN (docs/performance.md)."""
    if count < 2:
        return [0] * rounds * count
    unused = {a: [b for b in range(count) if b != a] for a in range(count)}
    stack, circuit = [0], []
    while stack:  # Hierholzer's algorithm
        if unused[stack[-1]]:
            stack.append(unused[stack[-1]].pop())
        else:
            circuit.append(stack.pop())
    circuit = circuit[::-1][:-1]  # closed: the last step returns to 0
    repeats = -(-rounds // (count - 1))
    return circuit * repeats


def time_interleaved(fns, warmup=5, rounds=15, per_batch=10, settle_ms=None):
    """{name: ms per call} for several functions timed in alternation: a
    batch of back-to-back calls of one function at a time, in
    balanced_order (each function right after each other one equally
    often), and each function's result is the median over its batches (at
    least `rounds`). Launches in a batch queue behind each other, so
    host-side launch cost overlaps the GPU's work as it does in real use (the
    same for every library timed this way). Clock and temperature drift
    during a run falls on all functions alike instead of on whichever ran
    last (timed one after the other, one kernel against itself differed by
    up to 10% on an H100).

    Each timed batch follows `settle_ms` (default SETTLE_MS) of untimed
    calls of the same function, so a batch measures the function in its own
    steady state, not in the state the function before it left the GPU in.
    Without it, whichever function followed a slower one measured
    5-12% faster on an H100 (the attention backward at 16384 tokens: ours
    548 TFLOP/s after cuDNN, 606 after SDPA's flash backend; cuDNN 538 after
    ours, 566 after flash); 10-80 ms of settling was not enough, 240 ms gave
    the same numbers in either order (docs/performance.md). Settling does
    not remove every trace of the function before (with it, the function
    after flash measured 3-6% slower, the opposite sign; see
    balanced_order), hence the balanced order."""
    settle_ms = SETTLE_MS if settle_ms is None else settle_ms
    names = list(fns)
    settle = {}
    for name in names:
        fns[name]()
        torch.cuda.synchronize()
        per_call = _batch(fns[name], max(warmup - 1, 1))
        settle[name] = math.ceil(settle_ms / max(per_call, 1e-3))
    times = {name: [] for name in names}
    for index in balanced_order(len(names), rounds):
        name = names[index]
        for _ in range(settle[name]):
            fns[name]()
        times[name].append(_batch(fns[name], per_batch))
    return {name: statistics.median(t) for name, t in times.items()}


def time_pairs(fns, base, interleave=None, **options):
    """{name: {base: ms, name: ms}} for every function but `base`: each one
    timed against `base` alone, head to head (time_interleaved over the two,
    `options` passed on), one pair after the other.

    A third function in one interleaved set moves the ratio of the other
    two: on an H100 at its 700 W limit, with SDPA's flash backend (the
    slowest, least power-hungry) in the set, ours / cuDNN read 1.3-5.5%
    lower than the two timed alone, at each of four attention points and in
    both repetitions (docs/performance.md). So each comparison is made
    between its two functions only.

    `interleave(fns, **options)` -> {name: ms} is time_interleaved unless
    given (tests pass a fake)."""
    if base not in fns:
        raise ValueError(f"base {base!r} is not one of {list(fns)}")
    interleave = interleave or time_interleaved
    return {name: interleave({base: fns[base], name: fn}, **options)
            for name, fn in fns.items() if name != base}


def time_sustained(fns, seconds=2.5, windows=3, per_batch=5, batch=None,
                   clock=None):
    """{name: ms per call} with each function run back to back for
    `seconds` at a time (a window), the windows in balanced_order (each
    function `windows` times, right after each other one equally often).
    Each function's result is the median of the batches (of `per_batch`
    calls) in the second half of its windows: by then the GPU is in that
    function's own steady state under its power limit.

    On an H100 at its 700 W limit the SM clock falls from 1980 MHz to
    1350-1700 MHz within about a second of attention kernels, and a
    kernel's throughput kept falling for more than a second after it
    started (docs/performance.md); the 200 ms of settling in
    time_interleaved leave each batch partly in the state the functions
    before it left. This is slower (seconds per function and
    window) and measures what a long run of one kernel sees.

    `batch(fn, count)` -> ms per call and `clock()` -> seconds are the CUDA
    event timing and time.monotonic unless given (tests pass fakes)."""
    import time
    if not seconds > 0:
        raise ValueError(f"seconds must be positive, not {seconds}")
    batch = batch or _batch
    clock = clock or time.monotonic
    names = list(fns)
    for name in names:
        fns[name]()
    samples = {name: [] for name in names}
    for index in balanced_order(len(names), windows):
        name = names[index]
        start, window = clock(), []
        while clock() - start < seconds:
            window.append(batch(fns[name], per_batch))
        samples[name].extend(window[len(window) // 2:])
    return {name: statistics.median(t) for name, t in samples.items()}


def copy_bandwidth(nbytes=1 << 30):
    """GB/s of a device-to-device copy (bytes read + written over time)."""
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = time_interleaved({"copy": lambda: dst.copy_(src)})["copy"]
    return 2 * nbytes / ms / 1e6
