#!/usr/bin/env python3
"""Checks that kernels run on whichever GPU their tensors are on (needs two
or more GPUs):

- tk_mlir.gemm, attention (forward and backward) and ssd_chunk_scan on each
  device against a float32/float64 torch reference on that device, random
  inputs; PyTorch's current device is the same before and after;
- launches on two devices queued without a synchronisation between them,
  each on its device's current stream, and on a side stream of the second;
- a Kernel made while another device is current, called on device 0;
- inside `with torch.cuda.device(1)`, a launch on device-0 tensors;
- tensors of two devices in one call raise ArgumentError naming the
  argument; close() after launches on every device releases them all.

usage: devices.py [--out DIR]   (artifacts from scripts/setup.sh)
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish, relative_error  # noqa: E402
import tk_mlir  # noqa: E402
from tk_mlir.ops.attention import artifacts_dir  # noqa: E402

TOLERANCE = 2e-2  # bf16 inputs and outputs, f32 accumulation


def rand(*shape, device, dtype=torch.bfloat16):
    return torch.randn(*shape, device=device).to(dtype)


def gemm_case(device):
    a, b = rand(1000, 512, device=device), rand(512, 768, device=device)
    return relative_error(tk_mlir.gemm(a, b), a.float() @ b.float())


def attention_reference(q, k, v):
    s = (q.double() @ k.double().transpose(-1, -2)) / math.sqrt(q.shape[-1])
    mask = torch.ones(s.shape[-2:], dtype=torch.bool,
                      device=q.device).triu(1)
    return torch.softmax(s.masked_fill(mask, -math.inf), -1) @ v.double()


def attention_case(device):
    q, k, v = (rand(2, 3, 333, 64, device=device).requires_grad_()
               for _ in range(3))
    o = tk_mlir.attention(q, k, v, causal=True)
    do = rand(*o.shape, device=device)
    grads = torch.autograd.grad(o, (q, k, v), do)
    ref = [x.detach().double().requires_grad_() for x in (q, k, v)]
    want = attention_reference(*ref)
    want_grads = torch.autograd.grad(want, ref, do.double())
    return max([relative_error(o, want)] +
               [relative_error(g, w) for g, w in zip(grads, want_grads)])


def ssd_inputs(device, seq=700, heads=4, dim=64, state=64):
    gen = torch.Generator(device="cpu").manual_seed(7)

    def r(*shape):
        return torch.randn(*shape, generator=gen).to(device)
    x = r(1, seq, heads, dim).bfloat16()
    dt = torch.rand(1, seq, heads, generator=gen).to(device) * 0.1
    A = -torch.rand(heads, generator=gen).to(device)
    B, C = r(1, seq, 1, state).bfloat16(), r(1, seq, 1, state).bfloat16()
    return x, dt, A, B, C


def ssd_reference(x, dt, A, B, C):
    """h_t = exp(dt_t A) h_{t-1} + dt_t B_t x_t^T, y_t = C_t . h_t (float64,
    one group)."""
    x, dt, A, B, C = (t.double() for t in (x, dt, A, B, C))
    _, seq, heads, dim = x.shape
    h = torch.zeros(heads, dim, B.shape[-1], dtype=torch.float64,
                    device=x.device)
    ys = []
    for t in range(seq):
        decay = torch.exp(dt[0, t] * A)[:, None, None]
        h = decay * h + (dt[0, t][:, None, None] * x[0, t][:, :, None] *
                         B[0, t, 0][None, None, :])
        ys.append(h @ C[0, t, 0])
    return torch.stack(ys)[None]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    count = torch.cuda.device_count()
    if count < 2:
        print(f"needs two or more GPUs; this machine has {count}")
        return 2
    torch.manual_seed(0)
    devices = [torch.device("cuda", i) for i in range(count)]
    rows = []

    def row(case, ok, detail=""):
        rows.append({"case": case, "ok": bool(ok), "detail": str(detail)})
        print(f"{case}: {'ok' if ok else 'FAILED'} {detail}", flush=True)

    start = torch.cuda.current_device()
    for device in devices:
        for name, case in (("gemm", gemm_case), ("attention", attention_case)):
            error = case(device)
            row(f"{name} on {device}", error <= TOLERANCE,
                f"relative error {error:.2e}")
    ssd = [tk_mlir.ssd_chunk_scan(*ssd_inputs(d)) for d in devices]
    error = relative_error(ssd[0], ssd_reference(*ssd_inputs(devices[0])))
    row("ssd_chunk_scan on cuda:0 vs the float64 recurrence",
        error <= TOLERANCE, f"relative error {error:.2e}")
    for d, y in zip(devices[1:], ssd[1:]):
        same = torch.equal(y.cpu(), ssd[0].cpu())
        row(f"ssd_chunk_scan on {d} equals cuda:0's bit for bit", same)
    row("PyTorch's current device is unchanged",
        torch.cuda.current_device() == start,
        f"{start} -> {torch.cuda.current_device()}")

    # Queued on both devices with no synchronisation in between.
    pairs = [(rand(2048, 1024, device=d), rand(1024, 2048, device=d))
             for d in devices[:2]]
    side = torch.cuda.Stream(devices[1])
    outs = [tk_mlir.gemm(*pairs[0]), tk_mlir.gemm(*pairs[1])]
    side.wait_stream(torch.cuda.current_stream(devices[1]))
    with torch.cuda.stream(side):
        outs.append(tk_mlir.gemm(*pairs[1]))
    outs.append(tk_mlir.gemm(*pairs[0]))
    for d in devices[:2]:
        torch.cuda.synchronize(d)
    wants = [p[0].float() @ p[1].float() for p in pairs]
    errors = [relative_error(o, wants[i]) for o, i in zip(outs,
                                                          (0, 1, 1, 0))]
    row("gemm queued on two devices (and a side stream) without a sync",
        max(errors) <= TOLERANCE, errors)

    # A Kernel made while device 1 is current, then called on device 0.
    manifest = os.path.join(artifacts_dir(), "gemm", "gemm.json")
    with torch.cuda.device(1):
        kernel = tk_mlir.runtime.Kernel(manifest, names=["A", "B", "C"])
    a, b = pairs[0]
    c = torch.empty(a.shape[0], b.shape[1], device=a.device,
                    dtype=torch.bfloat16)
    kernel(a, b, c)
    error = relative_error(c, wants[0])
    row("a Kernel made on cuda:1 runs on cuda:0", error <= TOLERANCE,
        f"relative error {error:.2e}")
    with torch.cuda.device(1):
        c.zero_()
        kernel(a, b, c)
        inside = torch.cuda.current_device()
    error = relative_error(c, wants[0])
    row("inside torch.cuda.device(1), a launch on cuda:0 tensors",
        error <= TOLERANCE and inside == 1,
        f"relative error {error:.2e}, current device {inside}")

    try:
        kernel(a, pairs[1][1], c)
        row("tensors of two devices raise ArgumentError", False, "no error")
    except tk_mlir.ArgumentError as error:
        row("tensors of two devices raise ArgumentError",
            "argument 'B' (#1): on cuda:1, but argument 'A' (#0) is on "
            "cuda:0" in str(error), error)

    kernel(*pairs[1], torch.empty_like(c, device=devices[1]))
    kernel.close()
    try:
        kernel(a, b, c)
        ok, detail = False, "no error"
    except RuntimeError as error:
        ok, detail = "closed" in str(error), error
    torch.cuda.synchronize()
    row("close() after launches on two devices; later calls raise", ok,
        detail)
    return finish(args.out, "devices.json",
                  {"check": rows, "devices": count,
                   "names": [torch.cuda.get_device_name(d) for d in devices]})


if __name__ == "__main__":
    sys.exit(main())
