"""Experiment 77: forward programs with a `table` tile loop, scheduled by host tables (cost-packed over every
multiprocessor, or the bundled snake walk as a table), head to head with cuDNN and the bundled snake programs."""
import glob, heapq, json, os, sys, math
import torch
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
sys.path[:0] = [os.path.join(root, "python"), os.path.join(root, "python", "benchmarks")]
os.environ.setdefault("TK_MLIR_ARTIFACTS", os.path.join(root, "build", "artifacts"))
import importlib; att = importlib.import_module("tk_mlir.attention")
from tk_mlir.runtime import Kernel, TileTable
from peers import sdpa_forward
from timing import time_pairs
ROUNDS = int(os.environ.get("ROUNDS", "9")); REPS = int(os.environ.get("REPS", "2"))
NAMES = ["q", "k", "v", "o", "lse", "scale", "causal"]
GEOM = {"d64_ring4": (192, 128, 3, True), "d64": (192, 128, 3, True), "d128": (128, 128, 2, False)}
for v in GEOM:
    att._loaded["x_" + v] = Kernel(glob.glob(os.path.join(here, v, "*.json"))[0], names=NAMES)
SMS = torch.cuda.get_device_properties(0).multi_processor_count

def costs(seq, columns, causal, geom, model):
    q_rows, k_cols, parts, skip = geom
    qt_n = -(-seq // q_rows); all_kv = -(-seq // k_cols); rows = q_rows // parts
    per = []
    for t in range(qt_n):
        qt = qt_n - 1 - t if causal else t
        q0 = qt * q_rows
        kv = min(-(-(q0 + q_rows) // k_cols), all_kv) if causal else all_kv
        steps = []
        for p in range(parts):
            lo, hi = q0 + p * rows, q0 + (p + 1) * rows
            if skip:
                n = 0 if lo >= seq else (min(-(-hi // k_cols), kv) if causal else kv)
            else:
                n = kv
            steps.append(n)
        over, kind = model
        mean = sum(steps) / parts
        per.append(over + {"max": max(steps), "mean": mean, "mid": (max(steps) + mean) / 2}[kind])
    return per * columns

def packed(cost, workers, window, head=0, first=None):
    # The first `head` tiles in snake order over `workers` blocks, the rest longest first (within windows) to the
    # least-loaded block.
    blocks = (first or snake)(head, workers).blocks if head else [[] for _ in range(workers)]
    blocks = [list(b) for b in blocks] + [[] for _ in range(workers - len(blocks))]
    loads = [(sum(cost[t] for t in blocks[b]), b) for b in range(workers)]
    heapq.heapify(loads)
    for s in range(head, len(cost), window):
        for t in sorted(range(s, min(len(cost), s + window)), key=lambda t: (-cost[t], t)):
            load, b = heapq.heappop(loads); blocks[b].append(t); heapq.heappush(loads, (load + cost[t], b))
    load = [sum(cost[t] for t in blk) for blk in blocks]
    # Refine: move or swap tiles of the busiest block with the idlest one's while that lowers the busiest.
    for _ in range(10000):
        h = max(range(workers), key=lambda b: load[b]); l = min(range(workers), key=lambda b: load[b])
        gap = load[h] - load[l]; best = None
        for i, x in enumerate(blocks[h]):
            if cost[x] < gap and (best is None or cost[x] > best[0]):
                best = (cost[x], i, None)
            for j, y in enumerate(blocks[l]):
                d = cost[x] - cost[y]
                if 0 < d < gap and (best is None or d > best[0]):
                    best = (d, i, j)
        if best is None:
            break
        d, i, j = best
        x = blocks[h][i]
        if j is None:
            blocks[h].pop(i); blocks[l].append(x)
        else:
            y = blocks[l][j]; blocks[h][i] = y; blocks[l][j] = x
        load[h] -= d; load[l] += d
    return TileTable(blocks), max(load)

def rotated(total, workers):
    # Full rounds only: round r gives block b tile r W + (b + r) mod W.
    blocks = [[] for _ in range(workers)]
    for r in range(total // workers):
        for b in range(workers):
            blocks[b].append(r * workers + (b + r) % workers)
    return TileTable(blocks) if total >= workers else None

def snake(total, workers):
    blocks = [[] for _ in range(workers)]
    r = 0
    while r * workers < total:
        w = min(workers, total - r * workers)
        for b in range(w):
            blocks[b].append(r * workers + (b if r % 2 == 0 else w - 1 - b))
        r += 1
    return TileTable(blocks)

def balanced(total, sms):
    rounds = -(-total // sms); return -(-total // rounds)

out = {"device": torch.cuda.get_device_name(), "sms": SMS, "check": [], "rows": []}
# correctness: each variant with a packed table and the default walk
for (b, h, hk, n, causal, var) in [(1, 4, 2, 1000, True, "d64_ring4"), (2, 4, 4, 17, True, "d64_ring4"), (2, 3, 1, 511, True, "d64_ring4"),
                                   (3, 6, 2, 4097, True, "d64"), (1, 4, 4, 513, False, "d64"), (2, 4, 2, 1000, True, "d128"), (1, 2, 2, 2047, False, "d128")]:
    d = 128 if var == "d128" else 64
    torch.manual_seed(n)
    q = torch.randn(b, h, n, d, device="cuda").to(torch.bfloat16)
    k, v_ = (torch.randn(b, hk, n, d, device="cuda").to(torch.bfloat16) for _ in range(2))
    scale = 0.09
    kr, vr = (t.float().repeat_interleave(h // hk, dim=1) for t in (k, v_))
    s = q.float() @ kr.transpose(-1, -2) * scale
    if causal:
        s = s.masked_fill(torch.ones(n, n, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    ref = torch.softmax(s, -1) @ vr
    geom = GEOM[var]
    c = costs(n, b * h, causal, geom, (1, "max"))
    for label, table in (("default", None), ("packed", packed(c, SMS, 10**9, max(0, len(c) // SMS - 1) * SMS)[0]), ("snake", snake(len(c), 7))):
        kern = att._kernel("x_" + var)
        o = torch.empty_like(q); lse = torch.empty(b, h, n, device="cuda")
        kern(q, k, v_, o, lse, scale, causal, tile_table=table)
        err = ((o.float() - ref).norm() / ref.norm()).item()
        rec = dict(shape=[b, h, hk, n], causal=causal, variant=var, table=label, err=err, ok=err < 2e-2)
        print(json.dumps(rec), flush=True); out["check"].append(rec)
MODELS = {"max+1": (1, "max"), "mean+1": (1, "mean"), "mid+1": (1, "mid")}
for spec in os.environ.get("POINTS", "64:512:1,64:1024:1").split(","):
    d, seq, causal = spec.split(":"); d = int(d); seq = int(seq); causal = bool(int(causal))
    batch, heads = 16384 // seq, 2048 // d
    var = ("d64_ring4" if seq < 2048 and causal else "d64") if d == 64 else "d128"
    bundled = att.forward_kernel(d, seq, causal)
    torch.manual_seed(seq)
    q, k, v_ = (torch.randn(batch, heads, seq, d, device="cuda").to(torch.bfloat16) for _ in range(3))
    scale = 0.125
    flops = 4 * batch * heads * seq * seq * d / (2 if causal else 1)
    kern = att._kernel("x_" + var)
    o = torch.empty_like(q); lse = torch.empty(batch, heads, seq, device="cuda")
    geom = GEOM[var]
    tables = {}
    total = len(costs(seq, batch * heads, causal, geom, (1, "max")))
    tables["snake-table"] = snake(total, balanced(total, SMS))
    info = {}
    for m, model in MODELS.items():
        c = costs(seq, batch * heads, causal, geom, model)
        for label, tail in (("rot-tail1", 1), ("rot-tail2", 2)):
            head = max(0, total // SMS - tail) * SMS
            t, mx = packed(c, SMS, 10**9, head, rotated)
            tables[f"{m}/{label}"] = t; info[f"{m}/{label}"] = round(mx, 2)
    fns = {"cudnn": sdpa_forward("cudnn", q, k, v_, causal, scale),
           "bundled": lambda: att._kernel(bundled)(q, k, v_, o, lse, scale, causal)}
    for name, t in tables.items():
        fns[name] = lambda t=t: kern(q, k, v_, o, lse, scale, causal, tile_table=t)
    for rep in range(REPS):
        pairs = time_pairs(fns, "cudnn", warmup=3, rounds=ROUNDS, per_batch=5)
        rec = dict(dim=d, seq=seq, causal=causal, rep=rep, variant=var, model_max=info,
                   ratio={n_: round(p["cudnn"] / p[n_], 4) for n_, p in pairs.items()},
                   tflops={n_: round(flops / p[n_] / 1e9, 1) for n_, p in pairs.items()})
        print(json.dumps(rec), flush=True); out["rows"].append(rec)
json.dump(out, open(os.path.join(os.environ.get("OUT", "."), os.environ.get("NAME", "exp77.json")), "w"), indent=1)
