"""Experiment 85: fused-backward variants (every folder beside this file holds one compiled program; a
folder ending in 64 is head dim 64) checked against float32 autograd and timed head to head with cuDNN
and the bundled fused backward (the whole backward: Δ, the fused kernel, dQ's conversion)."""
import glob, json, math, os, sys
import torch
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
sys.path[:0] = [os.path.join(root, "python"), os.path.join(root, "python", "benchmarks")]
os.environ.setdefault("TK_MLIR_ARTIFACTS", os.path.join(root, "build", "artifacts"))
import importlib; att = importlib.import_module("tk_mlir.attention")
from tk_mlir.runtime import Kernel
from peers import sdpa_backward
from reference import attention_reference
from timing import time_pairs
ROUNDS = int(os.environ.get("ROUNDS", "9")); REPS = int(os.environ.get("REPS", "2"))
VARS = sorted(os.path.basename(p) for p in glob.glob(os.path.join(here, "*")) if os.path.isdir(p))
def vdim(v):
    return 64 if v.endswith("64") else 128
for v in VARS:
    att._loaded["x_" + v] = Kernel(glob.glob(os.path.join(here, v, "*.json"))[0], names=att._FUSED_ARGS)
    att.FUSED_ALTERNATIVES[vdim(v)] = tuple(att.FUSED_ALTERNATIVES.get(vdim(v), ())) + ("x_" + v,)
def rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-30)).item()
out = {"device": torch.cuda.get_device_name(), "variants": VARS, "check": [], "rows": []}
for (b, h, hk, n, causal) in [(1, 2, 2, 1000, True), (1, 2, 2, 1000, False), (2, 4, 1, 513, False), (1, 2, 2, 4097, True),
                              (1, 4, 2, 2048, False), (1, 2, 1, 4097, False), (2, 2, 2, 129, True), (1, 2, 2, 17, False),
                              (1, 8, 2, 300, True), (1, 2, 2, 1, False)]:
    for d in (128, 64):
        vs = [v for v in VARS if vdim(v) == d]
        if not vs:
            continue
        torch.manual_seed(n + d)
        q = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
        k, v_ = (torch.randn(b, hk, n, d, device="cuda").to(torch.bfloat16) for _ in range(2))
        g = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
        scale = 1 / math.sqrt(d)
        qf, kf, vf = (t.detach().float().requires_grad_(True) for t in (q, k, v_))
        of, _ = attention_reference(qf, kf, vf, scale, causal)
        (of * g.float()).sum().backward()
        o, lse = att.attention_forward(q, k, v_, causal, scale)
        for var in vs + ["bundled"]:
            prog = att.FUSED_BACKWARD[d] if var == "bundled" else "x_" + var
            grads = att.attention_backward(q, k, v_, o, lse, g, causal, scale, program=prog)
            errs = [rel(x, y) for x, y in zip(grads, (qf.grad, kf.grad, vf.grad))]
            absd = max((x.float() - y).abs().max().item() for x, y in zip(grads, (qf.grad, kf.grad, vf.grad)))
            ok = all(e < 3e-2 for e in errs) or (n == 1 and absd < 3e-2)
            rec = dict(shape=[b, h, hk, n, d], causal=causal, variant=var, errs=errs, ok=ok)
            print(json.dumps(rec), flush=True); out["check"].append(rec)
for spec in os.environ.get("POINTS", "128:16384:0").split(","):
    d, seq, causal = spec.split(":"); d = int(d); seq = int(seq); causal = bool(int(causal))
    batch, heads = 16384 // seq, 2048 // d
    torch.manual_seed(seq)
    q, k, v_, g = (torch.randn(batch, heads, seq, d, device="cuda").to(torch.bfloat16) for _ in range(4))
    scale = 1 / math.sqrt(d)
    flops = 2.5 * 4 * batch * heads * seq * seq * d / (2 if causal else 1)
    o, lse = att.attention_forward(q, k, v_, causal, scale)
    fns = {"cudnn": sdpa_backward("cudnn", q, k, v_, g, causal, scale),
           "bundled": lambda: att.attention_backward(q, k, v_, o, lse, g, causal, scale)}
    for var in VARS:
        if vdim(var) == d and not (causal and var.endswith("_nc")):
            fns[var] = lambda var=var: att.attention_backward(q, k, v_, o, lse, g, causal, scale, program="x_" + var)
    for rep in range(REPS):
        pairs = time_pairs(fns, "cudnn", warmup=3, rounds=ROUNDS, per_batch=5)
        rec = dict(dim=d, seq=seq, causal=causal, rep=rep,
                   ratio={n_: round(p["cudnn"] / p[n_], 4) for n_, p in pairs.items()},
                   tflops={n_: round(flops / p[n_] / 1e9, 1) for n_, p in pairs.items()})
        print(json.dumps(rec), flush=True); out["rows"].append(rec)
json.dump(out, open(os.path.join(os.environ.get("OUT", "."), os.environ.get("NAME", "exp85.json")), "w"), indent=1)
