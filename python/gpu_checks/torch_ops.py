#!/usr/bin/env python3
"""Checks the torch integration on the GPU:

- torch.library.opcheck on every tk_mlir op (schema, fake implementation,
  autograd registration, AOT dispatch), random inputs; attention_bwd with
  and without the gradient of the log-sum-exp;
- torch.compile(fullgraph=True) of a small model that calls tk_mlir.gemm,
  attention (forward, and backward through O and the log-sum-exp),
  linear_attention, based and ssd_chunk_scan: it compiles with no graph
  break and matches eager (max relative difference 1e-2; the same kernels
  run in both, so the difference is torch's own fused elementwise code
  around them), and, traced before any eager call, compiles once for two
  calls;
- the forward-only ops' backward raises (eager), gemm's included;
- torch.compile of a forward-only op (gemm) on an input that requires grad
  fails when it compiles, with the forward-only message (the backward
  AOTAutograd traces for such a graph raises; docs/embedding.md);
- the attention ops called directly with k shorter than q, or an LSE of
  the wrong shape, raise ArgumentError naming the argument;
- an eager call that wants no gradient, which skips the custom op
  (tracing.direct), gives exactly the op's result;
- an argument with a forward-mode AD tangent (torch.autograd.forward_ad,
  torch.func.jvp) raises NotImplementedError, through the public
  functions and the op; inside a dual level, arguments without tangents
  run.

usage: torch_ops.py [--out DIR]   (artifacts from scripts/setup.sh, or
  compiled on first use through the C API library)
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import compiles_once, finish, relative_error  # noqa: E402
import tk_mlir  # noqa: E402
from tk_mlir import tracing  # noqa: E402

TOLERANCE = 1e-2


def rand(*shape, dtype=torch.bfloat16, grad=False):
    t = torch.randn(*shape, device="cuda").to(dtype)
    return t.requires_grad_(grad)


def opchecks():
    ops = torch.ops.tk_mlir
    b, h, t = 2, 3, 200
    q, k, v = (rand(b, h, t, 64, grad=True) for _ in range(3))
    o, lse = ops.attention_fwd(q, k, v, True, 0.125)
    yield "attention_fwd", ops.attention_fwd.default, (q, k, v, True, 0.125)
    yield "attention_bwd", ops.attention_bwd.default, (
        q.detach(), k.detach(), v.detach(), o.detach(), lse.detach(),
        rand(b, h, t, 64), True, 0.125)
    yield "attention_bwd with dlse", ops.attention_bwd.default, (
        q.detach(), k.detach(), v.detach(), o.detach(), lse.detach(),
        rand(b, h, t, 64), True, 0.125, torch.randn(b, h, t, device="cuda"))
    yield "gemm", ops.gemm.default, (rand(300, 128), rand(128, 256))
    yield "linear_attention", ops.linear_attention.default, (
        rand(b, h, t, 64), rand(b, h, t, 64), rand(b, h, t, 64), "elu1",
        True, None, "bhsd", False)
    yield "based", ops.based.default, (rand(b, t, h, 16), rand(b, t, h, 16),
                                       rand(b, t, h, 64), True, "bshd")
    x = rand(2, 130, 4, 64)
    yield "ssd_chunk_scan", ops.ssd_chunk_scan.default, (
        x, torch.rand(2, 130, 4, device="cuda") * 0.1,
        -torch.rand(4, device="cuda"), rand(2, 130, 1, 64),
        rand(2, 130, 1, 64), 64, None, None, None, None, False, 0.0,
        float("inf"), True)


class Model(torch.nn.Module):
    def forward(self, x, w, q, k, v, fq, fk, fv, dt, A, B, C):
        y = tk_mlir.gemm(x, w)
        o, lse = tk_mlir.attention(q, k, v, causal=True, return_lse=True)
        # Forward-only ops on inputs that need no grad: with grads, the
        # compiled graph's backward would be traced through their raising
        # backward at compile time.
        la = tk_mlir.linear_attention(q.detach(), k.detach(), v.detach())
        bo = tk_mlir.based(fq, fk, fv)
        s = tk_mlir.ssd_chunk_scan(
            y.view(2, 150, 4, 64), dt, A, B, C)
        return y.float().sum(1), o, lse, la, bo, s


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    torch.manual_seed(0)
    rows = []
    for name, op, op_args in opchecks():
        try:
            result = torch.library.opcheck(op, op_args)
            ok = all(v == "SUCCESS" for v in result.values())
            detail = result
        except Exception as error:   # opcheck raises on the first failure
            ok, detail = False, f"{type(error).__name__}: {error}"
        rows.append({"case": f"opcheck {name}", "ok": ok,
                     "detail": str(detail)})
        print(f"opcheck {name}: {detail}", flush=True)

    inputs = (rand(300, 128), rand(128, 256), rand(2, 3, 200, 64, grad=True),
              rand(2, 3, 200, 64, grad=True), rand(2, 3, 200, 64, grad=True),
              rand(2, 3, 200, 16), rand(2, 3, 200, 16), rand(2, 3, 200, 64),
              torch.rand(2, 150, 4, device="cuda") * 0.1,
              -torch.rand(4, device="cuda"), rand(2, 150, 1, 64),
              rand(2, 150, 1, 64))
    model = Model()
    weights = torch.randn(2, 3, 200, device="cuda")

    def loss(outputs):   # through O and the log-sum-exp
        return outputs[1].float().sum() + (outputs[2] * weights).sum()
    eager = model(*inputs)
    grads_eager = torch.autograd.grad(loss(eager), inputs[2:5])
    try:
        compiled = torch.compile(model, fullgraph=True)
        got = compiled(*inputs)
        grads = torch.autograd.grad(loss(got), inputs[2:5])
        diffs = [relative_error(g, e) for g, e in zip(got, eager)] + \
            [relative_error(g, e) for g, e in zip(grads, grads_eager)]
        ok, detail = max(diffs) <= TOLERANCE, diffs
    except Exception as error:
        ok, detail = False, f"{type(error).__name__}: {error}"
    rows.append({"case": "torch.compile(fullgraph=True) matches eager",
                 "ok": ok, "detail": str(detail)})
    print(f"torch.compile fullgraph: {detail}", flush=True)
    # Traced before any direct call has filled tracing's lookups, called
    # again: one compiled frame, no recompilation.
    tracing._cached = None
    ok, detail = compiles_once(model, *inputs)
    rows.append({"case": "torch.compile traces the model once", "ok": ok,
                 "detail": detail})
    print(f"torch.compile traces the model once: {detail}", flush=True)

    for name, call in (
            ("gemm", lambda q, k, v: tk_mlir.gemm(q.reshape(1200, 64),
                                                  rand(64, 128))),
            ("linear_attention", lambda q, k, v: tk_mlir.linear_attention(
                q, k, v)),
            ("ssd_chunk_scan", lambda q, k, v: tk_mlir.ssd_chunk_scan(
                q.transpose(1, 2).contiguous(),
                torch.rand(2, 200, 3, device="cuda") * 0.1,
                -torch.rand(3, device="cuda"), rand(2, 200, 1, 64),
                rand(2, 200, 1, 64)))):
        q = rand(2, 3, 200, 64, grad=True)
        try:
            call(q, rand(2, 3, 200, 64), rand(2, 3, 200, 64)).float().sum() \
                .backward()
            ok = False
        except NotImplementedError as error:
            ok = "forward only" in str(error)
        rows.append({"case": f"{name} backward raises", "ok": ok})
        print(f"{name} backward raises: {ok}", flush=True)
    # A compiled graph whose inputs require grad gets its backward traced
    # when it compiles: a forward-only op's raising backward stops it there
    # (a forward-only call under torch.compile needs inputs that do not
    # require grad, or torch.no_grad()).
    torch._dynamo.reset()
    try:
        torch.compile(lambda a, b: tk_mlir.gemm(a, b), fullgraph=True)(
            rand(300, 128, grad=True), rand(128, 256))
        ok, detail = False, "compiled"
    except Exception as error:
        detail = f"{type(error).__name__}: {error}"
        ok = "tk_mlir.gemm is forward only" in detail
    rows.append({"case": "torch.compile of gemm on an input that requires "
                 "grad refuses when it compiles", "ok": ok,
                 "detail": detail[:2000]})
    print(f"torch.compile of gemm on an input that requires grad refuses "
          f"when it compiles: {ok} ({detail[:300]})", flush=True)
    # The ops called directly check their arguments against each other.
    q, k = rand(2, 4, 200, 64), rand(2, 4, 199, 64)
    o, lse = torch.ops.tk_mlir.attention_fwd(q, q, q, False, 0.125)
    for case, call, match in (
            ("attention_fwd with k shorter than q",
             lambda: torch.ops.tk_mlir.attention_fwd(q, k, k, False, 0.125),
             "argument 'k': sequence length 199"),
            ("attention_bwd with an LSE of the wrong shape",
             lambda: torch.ops.tk_mlir.attention_bwd(
                 q, q, q, o, lse[:, :2], o, False, 0.125),
             "argument 'lse': expected shape")):
        try:
            call()
            ok, detail = False, "no error"
        except tk_mlir.ArgumentError as error:
            ok, detail = match in str(error), str(error)
        rows.append({"case": f"{case} raises ArgumentError", "ok": ok,
                     "detail": detail})
        print(f"{case} raises ArgumentError: {ok} ({detail})", flush=True)
    fq, fk, fv = rand(2, 200, 3, 16), rand(2, 200, 3, 16), rand(2, 200, 3, 64)
    x, dt = rand(2, 200, 3, 64), torch.rand(2, 200, 3, device="cuda") * 0.1
    A, B, C = -torch.rand(3, device="cuda"), rand(2, 200, 1, 64), \
        rand(2, 200, 1, 64)
    aq, ak, av = (rand(2, 3, 200, 64) for _ in range(3))
    for name, direct, op in (
            ("based", lambda: tk_mlir.based(fq, fk, fv, layout="bshd"),
             lambda: torch.ops.tk_mlir.based(fq, fk, fv, True, "bshd")),
            ("ssd_chunk_scan", lambda: tk_mlir.ssd_chunk_scan(x, dt, A, B, C),
             lambda: torch.ops.tk_mlir.ssd_chunk_scan(
                 x, dt, A, B, C, 64, None, None, None, None, False, 0.0,
                 float("inf"), False)[0]),
            ("gemm", lambda: tk_mlir.gemm(inputs[0], inputs[1]),
             lambda: torch.ops.tk_mlir.gemm(inputs[0], inputs[1])),
            ("linear_attention", lambda: tk_mlir.linear_attention(
                aq, ak, av), lambda: torch.ops.tk_mlir.linear_attention(
                aq, ak, av, "elu1", True, None, "bhsd", False)[0]),
            ("attention", lambda: tk_mlir.attention(aq, ak, av, causal=True),
             lambda: torch.ops.tk_mlir.attention_fwd(
                 aq, ak, av, True, 0.125)[0])):
        ok = torch.equal(direct(), op())
        rows.append({"case": f"{name} without the custom op matches it",
                     "ok": ok})
        print(f"{name} without the custom op matches it: {ok}", flush=True)

    # Forward-mode AD: a tangent on an argument raises (the kernels have no
    # forward-mode formula; PyTorch would return no tangent, or a zero one
    # under torch.func.jvp), through the public function, under
    # torch.func.jvp and through the op itself; inside a dual level
    # arguments without tangents still run.
    import torch.autograd.forward_ad as fwad
    a, b = inputs[0], inputs[1]

    def public(t):
        return tk_mlir.gemm(t, b)
    for case, primal, call in (
            ("gemm", a, public),
            ("the gemm op", a, lambda t: torch.ops.tk_mlir.gemm(t, b)),
            ("attention", aq,
             lambda t: tk_mlir.attention(t, ak, av, causal=True)),
            ("linear_attention", aq,
             lambda t: tk_mlir.linear_attention(t, ak, av))):
        with fwad.dual_level():
            dual = fwad.make_dual(primal, torch.randn_like(primal))
            try:
                call(dual)
                ok, detail = False, "no error"
            except NotImplementedError as error:
                ok = "no forward-mode AD formula" in str(error)
                detail = str(error)
        rows.append({"case": f"{case} with a forward-mode tangent raises",
                     "ok": ok, "detail": detail})
        print(f"{case} with a forward-mode tangent raises: {ok}", flush=True)
    try:
        torch.func.jvp(public, (a,), (torch.randn_like(a),))
        ok, detail = False, "no error"
    except NotImplementedError as error:
        ok, detail = "no forward-mode AD formula" in str(error), str(error)
    rows.append({"case": "torch.func.jvp of gemm raises", "ok": ok,
                 "detail": detail})
    print(f"torch.func.jvp of gemm raises: {ok}", flush=True)
    with fwad.dual_level():
        ok = torch.equal(public(a), torch.ops.tk_mlir.gemm(a, b))
    rows.append({"case": "gemm inside a dual level without tangents runs",
                 "ok": ok})
    print(f"gemm inside a dual level without tangents runs: {ok}",
          flush=True)
    return finish(args.out, "torch_ops.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
