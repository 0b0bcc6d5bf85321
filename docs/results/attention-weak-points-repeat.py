"""attention.py's benchmark points, each measured REPS times in a row (ours / cuDNN head to head,
as attention.py's `point`), for the spread of the ratio at the points with the smallest margins."""
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
sys.path[:0] = [os.path.join(root, "python"), os.path.join(root, "python", "benchmarks")]
os.environ.setdefault("TK_MLIR_ARTIFACTS", os.path.join(root, "build", "artifacts"))
import torch
from attention import point
REPS = int(os.environ.get("REPS", "8"))
out = {"device": torch.cuda.get_device_name(), "reps": REPS, "points": []}
for spec in os.environ["POINTS"].split(","):
    part, d, seq, causal = spec.split(":")
    rows = []
    t0 = time.time()
    for rep in range(REPS):
        row, check = point(part, int(d), int(seq), bool(int(causal)), 9)
        assert check["ok"], check
        rows.append(row)
    r = [x["vs_cudnn"] for x in rows]
    rec = dict(part=part, dim=int(d), seq=int(seq), causal=bool(int(causal)), ratios=[round(x, 4) for x in r],
               mean=round(sum(r) / len(r), 4), min=round(min(r), 4), max=round(max(r), 4),
               tk_tflops=[round(x["tk_tflops"], 1) for x in rows], cudnn_tflops=[round(x["cudnn_tflops"], 1) for x in rows],
               seconds=round(time.time() - t0, 1))
    print(json.dumps(rec), flush=True); out["points"].append(rec)
json.dump(out, open(os.path.join(os.environ.get("OUT", "."), os.environ.get("NAME", "exp86.json")), "w"), indent=1)
