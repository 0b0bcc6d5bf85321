"""Timing shared by the benchmark scripts."""
import statistics

import torch


def time_interleaved(fns, warmup=5, rounds=15, per_batch=10):
    """{name: ms per call} for several functions timed in alternation: each
    round times one batch of back-to-back calls of every function, starting
    with a different one each round, and each function's result is the
    median over rounds. Launches in a batch queue behind each other, so
    host-side launch cost overlaps the GPU's work as it does in real use (the
    same for every library timed this way). Clock and temperature drift
    during a run falls on all functions alike instead of on whichever ran
    last (timed one after the other, one kernel against itself differed by
    up to 10% on an H100)."""
    names = list(fns)
    for name in names:
        for _ in range(warmup):
            fns[name]()
    torch.cuda.synchronize()
    times = {name: [] for name in names}
    for r in range(rounds):
        for i in range(len(names)):
            name = names[(r + i) % len(names)]
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(per_batch):
                fns[name]()
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) / per_batch)
    return {name: statistics.median(t) for name, t in times.items()}
