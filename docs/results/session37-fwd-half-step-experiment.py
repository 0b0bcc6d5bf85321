"""Experiment 78: the head-dim-64 forward with a half-width step on key tiles whose second 64 keys are all masked
for a warpgroup's rows (causal diagonal, or past the keys' end), head to head with cuDNN and the bundled programs."""
import glob, json, os, sys
import torch
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
sys.path[:0] = [os.path.join(root, "python"), os.path.join(root, "python", "benchmarks")]
os.environ.setdefault("TK_MLIR_ARTIFACTS", os.path.join(root, "build", "artifacts"))
import importlib; att = importlib.import_module("tk_mlir.attention")
from tk_mlir.runtime import Kernel
from peers import sdpa_forward
from timing import time_pairs
ROUNDS = int(os.environ.get("ROUNDS", "9")); REPS = int(os.environ.get("REPS", "2"))
NAMES = ["q", "k", "v", "o", "lse", "scale", "causal"]
VARS = sorted(os.path.basename(p) for p in glob.glob(os.path.join(here, "*")) if os.path.isdir(p))
for v in VARS:
    att._loaded["x_" + v] = Kernel(glob.glob(os.path.join(here, v, "*.json"))[0], names=NAMES)
def applies(var, causal, seq=None):
    if var.endswith("_nc") and causal or var.endswith("_c") and not causal:
        return False
    return seq is None or ("ring4" in var) == (seq < 2048 and causal)
out = {"device": torch.cuda.get_device_name(), "variants": VARS, "check": [], "rows": []}
for (b, h, hk, n, causal) in [(1, 4, 2, 1000, True), (2, 4, 4, 17, True), (2, 3, 1, 511, True), (3, 6, 2, 4097, True),
                              (1, 4, 4, 513, False), (2, 2, 2, 1, True), (1, 2, 1, 2047, False), (2, 4, 4, 190, False),
                              (1, 2, 2, 64, True), (1, 2, 2, 65, False), (1, 2, 2, 130, True), (2, 4, 2, 320, True),
                              (1, 8, 8, 1024, True), (1, 2, 2, 700, False)]:
    d = 64
    torch.manual_seed(n)
    q = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
    k, v_ = (torch.randn(b, hk, n, d, device="cuda").to(torch.bfloat16) for _ in range(2))
    scale = 0.13
    kr, vr = (t.float().repeat_interleave(h // hk, dim=1) for t in (k, v_))
    s = q.float() @ kr.transpose(-1, -2) * scale
    if causal:
        s = s.masked_fill(torch.ones(n, n, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    ref = torch.softmax(s, -1) @ vr
    ref_lse = torch.logsumexp(s, -1)
    for var in [v for v in VARS if applies(v, causal)] + ["bundled"]:
        kern = att._kernel(att.forward_kernel(d, n, causal) if var == "bundled" else "x_" + var)
        o = torch.empty_like(q); lse = torch.empty(b, h, n, device="cuda")
        kern(q, k, v_, o, lse, scale, causal)
        err = ((o.float() - ref).norm() / ref.norm()).item()
        lerr = (lse - ref_lse).abs().max().item()
        rec = dict(shape=[b, h, hk, n], causal=causal, variant=var, err=err, lse_err=lerr, ok=err < 2e-2 and lerr < 1e-3)
        print(json.dumps(rec), flush=True); out["check"].append(rec)
for spec in os.environ.get("POINTS", "64:512:1,64:1024:1").split(","):
    d, seq, causal = spec.split(":"); d = int(d); seq = int(seq); causal = bool(int(causal))
    batch, heads = 16384 // seq, 2048 // d
    bundled = att.forward_kernel(d, seq, causal)
    torch.manual_seed(seq)
    q, k, v_ = (torch.randn(batch, heads, seq, d, device="cuda").to(torch.bfloat16) for _ in range(3))
    scale = 0.125
    flops = 4 * batch * heads * seq * seq * d / (2 if causal else 1)
    o = torch.empty_like(q); lse = torch.empty(batch, heads, seq, device="cuda")
    fns = {"cudnn": sdpa_forward("cudnn", q, k, v_, causal, scale),
           "bundled": lambda: att._kernel(bundled)(q, k, v_, o, lse, scale, causal)}
    for var in VARS:
        if applies(var, causal, seq):
            fns[var] = lambda var=var: att._kernel("x_" + var)(q, k, v_, o, lse, scale, causal)
    for rep in range(REPS):
        pairs = time_pairs(fns, "cudnn", warmup=3, rounds=ROUNDS, per_batch=5)
        rec = dict(dim=d, seq=seq, causal=causal, rep=rep, bundled=bundled,
                   ratio={n_: round(p["cudnn"] / p[n_], 4) for n_, p in pairs.items()},
                   tflops={n_: round(flops / p[n_] / 1e9, 1) for n_, p in pairs.items()})
        print(json.dumps(rec), flush=True); out["rows"].append(rec)
json.dump(out, open(os.path.join(os.environ.get("OUT", "."), os.environ.get("NAME", "exp78.json")), "w"), indent=1)
