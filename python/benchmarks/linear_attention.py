#!/usr/bin/env python3
"""Times tk_mlir.linear_attention against FLA (fla-core) in the same run.

usage: linear_attention.py [--out DIR] [--shapes T,...] [--dims D,...]
                           [--families elu1,decay,based]
                           [--based-shapes T,...]

B = 16, H = 16, ours in layout "bshd" (FLA's), against FLA:
- elu1 (head dims --dims, default 64): elu + 1, normalised, against
  `chunk_linear_attn(elu(q) + 1, elu(k) + 1, v, scale=1.0, normalize=True)`
  with the feature map in torch, as a user would write it;
- decay (head dim 128): exp(-slope_h (t - s)) decay, slopes in [0.01, 0.5],
  against `chunk_simple_gla(q, k, v, g_gamma=-slopes, scale=1.0)`;
- based, normalised and not (feature dim 16, value dim 64; T from
  --based-shapes, default 1024,4096,8192): against FLA's
  `fused_chunk_based` and `parallel_based` (same use_norm), each head to
  head; the ratio to the faster of the two is the one reported.
Each pair is timed
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
from tk_mlir.ops.linear_attention import linear_attention  # noqa: E402
from timing import copy_bandwidth, time_pairs  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--shapes", default="1024,4096,16384")
    parser.add_argument("--dims", default="64")
    parser.add_argument("--families", default="elu1,decay,based")
    parser.add_argument("--based-shapes", default="1024,4096,8192")
    args = parser.parse_args()
    families = args.families.split(",")
    from fla.ops.linear_attn import chunk_linear_attn
    from fla.ops.simple_gla import chunk_simple_gla
    from fla.ops.based import fused_chunk_based, parallel_based
    from tk_mlir.ops.linear_attention import based
    torch.manual_seed(0)
    copy = copy_bandwidth()
    print(f"{torch.cuda.get_device_name()}; device-to-device copy "
          f"{copy:.0f} GB/s", flush=True)
    rows = []
    batch, heads = 16, 16
    cases = []
    if "elu1" in families:
        cases += [("elu1", int(d)) for d in args.dims.split(",")]
    if "decay" in families:
        cases.append(("decay", 128))
    for family, dim in cases:
        for seq in (int(t) for t in args.shapes.split(",")):
            q, k, v = (torch.randn(batch, seq, heads, dim, device="cuda",
                                   dtype=torch.bfloat16) for _ in range(3))
            if family == "elu1":
                def ours():
                    return linear_attention(q, k, v, feature_map="elu1",
                                            normalize=True, layout="bshd")

                def peer():
                    return chunk_linear_attn(F.elu(q) + 1, F.elu(k) + 1, v,
                                             scale=1.0, normalize=True)[0]
                peer_name = "FLA chunk_linear_attn"
            else:
                q, k = q * 0.25, k * 0.25
                slopes = torch.rand(heads, device="cuda") * 0.49 + 0.01

                def ours():
                    return linear_attention(q, k, v, feature_map=None,
                                            normalize=False, decay=slopes,
                                            layout="bshd")

                def peer():
                    return chunk_simple_gla(q, k, v, g_gamma=-slopes,
                                            scale=1.0)[0]
                peer_name = "FLA chunk_simple_gla"
            diff = (ours().float() - peer().float()).abs().max().item()
            ms = time_pairs({"ours": ours, "peer": peer}, "ours")["peer"]
            ratio = ms["peer"] / ms["ours"]
            moved = 4 * batch * seq * heads * dim * 2
            bandwidth = moved / ms["ours"] / 1e6
            rows.append({"family": family, "batch": batch, "heads": heads,
                         "seq": seq, "dim": dim, "ours_ms": ms["ours"],
                         "peer": peer_name, "peer_ms": ms["peer"],
                         "speedup": ratio, "ours_gbps": bandwidth,
                         "copy_gbps": copy, "max_abs_diff": diff})
            print(f"{family} D={dim:>3} T={seq:>5}: ours {ms['ours']:.3f} ms, "
                  f"{peer_name} {ms['peer']:.3f} ms: {ratio:.2f}x; "
                  f"{bandwidth:.0f} GB/s ({100 * bandwidth / copy:.0f}% of "
                  f"copy); max |ours - peer| {diff:.3g}", flush=True)
    if "based" in families:
        for normalize in (True, False):
            for seq in (int(t) for t in args.based_shapes.split(",")):
                q, k = (torch.randn(batch, seq, heads, 16, device="cuda",
                                    dtype=torch.bfloat16) for _ in range(2))
                v = torch.randn(batch, seq, heads, 64, device="cuda",
                                dtype=torch.bfloat16)

                def ours():
                    return based(q, k, v, normalize=normalize, layout="bshd")
                peers = {
                    "FLA fused_chunk_based": lambda: fused_chunk_based(
                        q, k, v, use_norm=normalize),
                    "FLA parallel_based": lambda: parallel_based(
                        q, k, v, use_norm=normalize),
                }
                timed = {}
                for name, peer in peers.items():
                    diff = (ours().float() - peer().float()).abs().max().item()
                    ms = time_pairs({"ours": ours, "peer": peer},
                                    "ours")["peer"]
                    timed[name] = (ms, diff)
                best = min(timed, key=lambda name: timed[name][0]["peer"])
                ms, diff = timed[best]
                ratio = ms["peer"] / ms["ours"]
                moved = batch * seq * heads * (16 + 16 + 64 + 64) * 2
                bandwidth = moved / ms["ours"] / 1e6
                family = "based_norm" if normalize else "based"
                rows.append({
                    "family": family, "batch": batch, "heads": heads,
                    "seq": seq, "dim": 16, "value_dim": 64,
                    "ours_ms": ms["ours"], "peer": best,
                    "peer_ms": ms["peer"], "speedup": ratio,
                    "ours_gbps": bandwidth, "copy_gbps": copy,
                    "max_abs_diff": diff,
                    "peers": {name: {"ms": t["peer"], "ours_ms": t["ours"],
                                     "max_abs_diff": d}
                              for name, (t, d) in timed.items()}})
                others = ", ".join(f"{name} {t['peer']:.3f} ms"
                                   for name, (t, _) in timed.items())
                print(f"{family} T={seq:>5}: ours {ms['ours']:.3f} ms; "
                      f"{others}: {ratio:.2f}x the faster; {bandwidth:.0f} "
                      f"GB/s ({100 * bandwidth / copy:.0f}% of copy); "
                      f"max |ours - peer| {diff:.3g}", flush=True)
    result = {"device": torch.cuda.get_device_name(), "copy_gbps": copy,
              "rows": rows}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "linear_attention_bench.json"), "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
