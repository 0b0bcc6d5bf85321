#!/usr/bin/env python3
"""Times tk_mlir.ssd_chunk_scan (Mamba2's SSD forward) against mamba_ssm's
mamba_chunk_scan_combined and FLA's chunk_simple_gla in the same run.

usage: ssd.py [--out DIR] [--peers DIR] [--shapes B:T:H:P:N,...]

Default shapes: ThunderKittens' (B = 16, H = 16, P = 64, N = 64, one
group) at T = 1024, 4096, 16384, and a Mamba2-2.7B-like one (B = 8,
T = 8192, H = 80, P = 64, N = 128, one group). Inputs: x, B, C normal bf16;
dt uniform in [0, 0.1] f32; A = -U(0, 1). Peers:
- mamba_chunk_scan_combined at chunk 64 and at chunk 256 (the faster is the
  one compared; both are printed);
- FLA chunk_simple_gla, the same recurrence with a scalar decay per head and
  step: q = C and k = B repeated over the heads, v = x·dt (bf16), g = dt·A,
  scale 1; these are prepared before timing, so FLA is timed without them.
Each pair is timed head to head (timing.time_pairs). Prints peer ms / our
ms, our achieved memory bandwidth (x, B, C and dt read once, y written
once, over our time) next to a device-to-device copy's bandwidth measured
in the same run, and the largest difference to each peer's output relative
to the largest |y|. Writes ssd_bench.json in --out.
"""
import argparse
import json
import os
import sys

import torch

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(__file__))
from tk_mlir import ssd_chunk_scan  # noqa: E402
from timing import copy_bandwidth, time_pairs  # noqa: E402

SHAPES = "16:1024:16:64:64,16:4096:16:64:64,16:16384:16:64:64,8:8192:80:64:128"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--peers", default=os.path.join(ROOT, "..", ".peers"))
    parser.add_argument("--shapes", default=SHAPES)
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(args.peers))
    from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined
    from fla.ops.simple_gla import chunk_simple_gla
    torch.manual_seed(0)
    copy = copy_bandwidth()
    print(f"{torch.cuda.get_device_name()}; device-to-device copy "
          f"{copy:.0f} GB/s", flush=True)
    rows = []
    for spec in args.shapes.split(","):
        batch, seq, heads, dim, state = (int(v) for v in spec.split(":"))
        x = torch.randn(batch, seq, heads, dim, device="cuda",
                        dtype=torch.bfloat16)
        dt = torch.rand(batch, seq, heads, device="cuda") * 0.1
        A = -torch.rand(heads, device="cuda")
        B = torch.randn(batch, seq, 1, state, device="cuda",
                        dtype=torch.bfloat16)
        C = torch.randn_like(B)
        q = C.expand(batch, seq, heads, state).contiguous()
        k = B.expand(batch, seq, heads, state).contiguous()
        v = (x.float() * dt[..., None]).to(torch.bfloat16)
        g = dt * A

        def ours():
            return ssd_chunk_scan(x, dt, A, B, C, 64)
        fns = {"ours": ours,
               "mamba_ssm chunk 64": lambda: mamba_chunk_scan_combined(
                   x, dt, A, B, C, 64),
               "mamba_ssm chunk 256": lambda: mamba_chunk_scan_combined(
                   x, dt, A, B, C, 256),
               "FLA chunk_simple_gla": lambda: chunk_simple_gla(
                   q, k, v, g=g, scale=1.0)[0]}
        y = ours().float()
        scale = y.abs().max().item()
        diffs = {name: (y - fn().float()).abs().max().item() / scale
                 for name, fn in fns.items() if name != "ours"}
        timed = time_pairs(fns, "ours")
        moved = (2 * x.numel() * 2 + 2 * B.numel() * 2 + dt.numel() * 4)
        ms_ours = min(t["ours"] for t in timed.values())
        bandwidth = moved / ms_ours / 1e6
        mamba = min(("mamba_ssm chunk 64", "mamba_ssm chunk 256"),
                    key=lambda name: timed[name][name])
        row = {"batch": batch, "seq": seq, "heads": heads, "P": dim,
               "N": state, "groups": 1, "ours_gbps": bandwidth,
               "copy_gbps": copy,
               "peers": {name: {"ms": t[name], "ours_ms": t["ours"],
                                "speedup": t[name] / t["ours"],
                                "max_rel_diff": diffs[name]}
                         for name, t in timed.items()},
               "mamba_best": mamba,
               "speedup_mamba": timed[mamba][mamba] / timed[mamba]["ours"],
               "speedup_fla": timed["FLA chunk_simple_gla"][
                   "FLA chunk_simple_gla"] /
               timed["FLA chunk_simple_gla"]["ours"]}
        rows.append(row)
        peers = "; ".join(f"{name} {t[name]:.3f} ms vs ours {t['ours']:.3f}"
                          f" ({t[name] / t['ours']:.2f}x, diff "
                          f"{diffs[name]:.1e})" for name, t in timed.items())
        print(f"B={batch} T={seq} H={heads} P={dim} N={state}: {peers}; "
              f"{bandwidth:.0f} GB/s ({100 * bandwidth / copy:.0f}% of copy)"
              f"; vs {mamba}: {row['speedup_mamba']:.2f}x, vs FLA: "
              f"{row['speedup_fla']:.2f}x", flush=True)
        del x, B, C, q, k, v
        torch.cuda.empty_cache()
    result = {"device": torch.cuda.get_device_name(), "copy_gbps": copy,
              "rows": rows}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "ssd_bench.json"), "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
