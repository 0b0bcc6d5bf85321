#!/usr/bin/env python3
"""Times tk_mlir.linear_attention against FLA (fla-core) in the same run.

usage: linear_attention.py [--out DIR] [--shapes T,...] [--dims D,...]

elu + 1, normalised, B = 16, H = 16: ours (layout "bshd", FLA's) against
`chunk_linear_attn(elu(q) + 1, elu(k) + 1, v, scale=1.0, normalize=True)`
with the feature map in torch, as a user would write it. Each pair is timed
head to head (timing.time_pairs: batches of back-to-back calls, the two in
alternation, median per function), on random bf16 inputs. Prints ours /
peer as a speed ratio (peer ms / our ms), our achieved memory bandwidth
(q, k, v read once and o written once, over our time) next to a
device-to-device copy's bandwidth measured in the same run, and the largest
difference between the two outputs. Writes linear_attention_bench.json.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir.linear_attention import linear_attention  # noqa: E402
from timing import time_interleaved, time_pairs  # noqa: E402


def copy_bandwidth(nbytes=1 << 30):
    """GB/s of a device-to-device copy (bytes read + written over time)."""
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = time_interleaved({"copy": lambda: dst.copy_(src)})["copy"]
    return 2 * nbytes / ms / 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--shapes", default="1024,4096,16384")
    parser.add_argument("--dims", default="64")
    args = parser.parse_args()
    from fla.ops.linear_attn import chunk_linear_attn
    torch.manual_seed(0)
    copy = copy_bandwidth()
    print(f"{torch.cuda.get_device_name()}; device-to-device copy "
          f"{copy:.0f} GB/s", flush=True)
    rows = []
    batch, heads = 16, 16
    for dim in (int(d) for d in args.dims.split(",")):
        for seq in (int(t) for t in args.shapes.split(",")):
            q, k, v = (torch.randn(batch, seq, heads, dim, device="cuda",
                                   dtype=torch.bfloat16) for _ in range(3))

            def ours():
                return linear_attention(q, k, v, feature_map="elu1",
                                        normalize=True, layout="bshd")

            def fla():
                return chunk_linear_attn(F.elu(q) + 1, F.elu(k) + 1, v,
                                         scale=1.0, normalize=True)[0]

            diff = (ours().float() - fla().float()).abs().max().item()
            ms = time_pairs({"ours": ours, "fla": fla}, "ours")["fla"]
            ratio = ms["fla"] / ms["ours"]
            moved = 4 * batch * seq * heads * dim * 2
            bandwidth = moved / ms["ours"] / 1e6
            rows.append({"family": "elu1", "batch": batch, "heads": heads,
                         "seq": seq, "dim": dim, "ours_ms": ms["ours"],
                         "fla_ms": ms["fla"], "speedup": ratio,
                         "ours_gbps": bandwidth, "copy_gbps": copy,
                         "max_abs_diff": diff})
            print(f"elu1 D={dim:>3} T={seq:>5}: ours {ms['ours']:.3f} ms, "
                  f"FLA chunk_linear_attn {ms['fla']:.3f} ms: "
                  f"{ratio:.2f}x; {bandwidth:.0f} GB/s "
                  f"({100 * bandwidth / copy:.0f}% of copy); "
                  f"max |ours - FLA| {diff:.3g}", flush=True)
    result = {"device": torch.cuda.get_device_name(), "copy_gbps": copy,
              "rows": rows}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "linear_attention_bench.json"), "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
