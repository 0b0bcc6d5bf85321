"""Timing shared by the benchmark scripts."""
import statistics

import torch


def time_ms(fn, warmup=10, batches=7, per_batch=20):
    """Median over batches of back-to-back calls, per call: launches queue
    behind each other, so host-side launch cost overlaps the GPU's work as it
    does in real use (the same for every library timed this way)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(batches):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(per_batch):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / per_batch)
    return statistics.median(times)
