#!/usr/bin/env python3
"""Draws docs/performance.png: ours / best peer per shape for each kernel
family on an NVIDIA H100 80GB HBM3, from the JSON that docs/performance.md
cites (docs/results/):

  GEMM                gemm-h100-run1.json, gemm_abt-h100-run1.json,
                      gemm-h100-run2.json, gemm_abt-h100-run2.json
                      (bench[].ratio = ours / cuBLAS TFLOP/s; two runs)
  attention fwd, bwd  attention-h100-run{1,2,3}.json
                      (bench[].vs_cudnn and vs_flash, each from its own
                      head-to-head pair; three runs)
  linear attention    linear-attention-elu-d64-h100.json (elu + 1 d64),
                      linear-attention-h100.json (elu + 1 d128, decayed):
                      rows[].peer_ms / rows[].ours_ms
  Based               linear-attention-h100.json, the same run
                      (rows[].peers[name].ms / .ours_ms, both FLA kernels)
  Mamba2 SSD          ssd-bench-h100.json, ssd-bench-h100-run2.json
                      (bars: rows[].speedup_fla, against FLA; diamonds:
                      rows[].speedup_mamba, against the mamba_ssm chunk
                      size that ran faster; two runs)

"Best peer" is the peer with the lowest ours / peer ratio at that shape
(every peer is timed against ours head to head, so each ratio comes from
its own pair). Bars start at 1.0 (parity) and show the median over the
runs; whiskers span the runs where there are several. Dashed segments
mark the family's speed target where it is not parity; in the SSD panel
the diamonds are ours / the faster mamba_ssm (median, whiskers over the
runs), dotted its 3x target.

usage: python3 scripts/plot_performance.py [--out docs/performance.png]
"""
import argparse
import json
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
RESULTS = os.path.join(ROOT, "docs", "results")
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]


def load(name):
    with open(os.path.join(RESULTS, name)) as f:
        return json.load(f)


def seq_label(n):
    return f"{n // 1024}k" if n >= 1024 else str(n)


def gemm_groups():
    """[(group, [(label, [ratio per run])])] for A·B and A·Bᵀ."""
    groups = []
    for form, suffix in (("A·B", "gemm"), ("A·Bᵀ", "gemm_abt")):
        runs = [load(f"{suffix}-h100-run{r}.json") for r in (1, 2)]
        points = []
        for i, row in enumerate(runs[0]["bench"]):
            m, n, k = row["m"], row["n"], row["k"]
            ratios = []
            for run in runs:
                other = run["bench"][i]
                assert (other["m"], other["n"], other["k"]) == (m, n, k)
                ratios.append(other["ratio"])
            label = f"{m // 1024}k³" if m == n == k else \
                f"{m // 1024}k×{n // 1024}k\n×{k // 1024}k"
            points.append((label, ratios))
        groups.append((form, points))
    return groups


def attention_groups(part):
    """Forward or backward, four groups (head dim × mask) of six lengths,
    ours / min over peers per run."""
    runs = [load(f"attention-h100-run{i}.json")
            for i in (1, 2, 3)]
    groups = []
    for dim in (128, 64):
        for causal in (False, True):
            points = []
            for i, row in enumerate(runs[0]["bench"]):
                if (row["part"], row["dim"], row["causal"]) != \
                        (part, dim, causal):
                    continue
                ratios = []
                for run in runs:
                    other = run["bench"][i]
                    assert (other["part"], other["dim"], other["seq"],
                            other["causal"]) == (part, dim, row["seq"],
                                                 causal)
                    ratios.append(min(other["vs_cudnn"], other["vs_flash"]))
                points.append((seq_label(row["seq"]), ratios))
            mask = "causal" if causal else "non-causal"
            groups.append((f"d{dim} {mask}", points))
    return groups


def linear_groups():
    d64 = load("linear-attention-elu-d64-h100.json")["rows"]
    rest = load("linear-attention-h100.json")["rows"]
    # targets: >= 3x at T = 4096 and 16384 (elu + 1), >= 1.5x (decayed)
    picks = [("elu+1 d64", d64, "elu1", 64, (3.0, {4096, 16384})),
             ("elu+1 d128", rest, "elu1", 128, (3.0, {4096, 16384})),
             ("decayed d128", rest, "decay", 128, (1.5, None))]
    groups = []
    for name, rows, family, dim, target in picks:
        points = [(seq_label(r["seq"]), [r["peer_ms"] / r["ours_ms"]])
                  for r in rows if r["family"] == family and r["dim"] == dim]
        value, seqs = target
        groups.append((name, points,
                       (value, seqs and {seq_label(t) for t in seqs})))
    return groups


def based_groups():
    rows = load("linear-attention-h100.json")["rows"]
    groups = []
    for family, name in (("based_norm", "normalised"),
                         ("based", "not normalised")):
        points = []
        for r in rows:
            if r["family"] != family:
                continue
            ratio = min(p["ms"] / p["ours_ms"] for p in r["peers"].values())
            points.append((seq_label(r["seq"]), [ratio]))
        # target: >= 5x at T = 4096 and 8192
        groups.append((name, points, (5.0, {"4k", "8k"})))
    return groups


def ssd_points():
    """[(label, [FLA ratio per run], [faster-mamba ratio per run])]."""
    runs = [load(name)["rows"] for name in ("ssd-bench-h100.json",
                                            "ssd-bench-h100-run2.json")]
    out = []
    for rows in zip(*runs):
        r = rows[0]
        shape = ("batch", "seq", "heads", "N")
        assert all([row[k] for k in shape] == [r[k] for k in shape]
                   for row in rows), "the runs' shapes differ"
        label = (f"B{r['batch']} T{seq_label(r['seq'])}\n"
                 f"H{r['heads']} N{r['N']}")
        out.append((label, [row["speedup_fla"] for row in rows],
                    [row["speedup_mamba"] for row in rows]))
    return out


def draw(ax, groups, title, ylabel=True, targets=None, rotation=0):
    """groups: [(name, [(label, [ratios])])]; bars from 1.0 to the median,
    whiskers over the runs. targets: {group index: (value, labels)} drawn
    dashed over the group's bars with those labels (None: every bar)."""
    x, ticks, labels = 0.0, [], []
    for g, (name, points) in enumerate(groups):
        xs, meds, lo, hi = [], [], [], []
        for label, ratios in points:
            med = statistics.median(ratios)
            xs.append(x)
            meds.append(med)
            lo.append(med - min(ratios))
            hi.append(max(ratios) - med)
            ticks.append(x)
            labels.append(label)
            x += 1
        ax.bar(xs, [m - 1.0 for m in meds], bottom=1.0, width=0.8,
               color=COLORS[g % len(COLORS)], label=name)
        if any(lo) or any(hi):
            ax.errorbar(xs, meds, yerr=[lo, hi], fmt="none", ecolor="black",
                        elinewidth=0.8, capsize=2)
        if targets and g in targets:
            value, which = targets[g]
            for xi, (label, _) in zip(xs, points):
                if which is None or label in which:
                    ax.hlines(value, xi - 0.45, xi + 0.45, colors="black",
                              linestyles="dashed", linewidth=1.2)
        x += 0.8
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=7, rotation=rotation)
    ax.set_title(title, fontsize=10)
    if ylabel:
        ax.set_ylabel("ours / best peer")
    ax.grid(axis="y", linewidth=0.3)
    ax.legend(fontsize=7, loc="upper left", ncol=2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(ROOT, "docs",
                                                      "performance.png"))
    args = parser.parse_args()

    fig, axes = plt.subplots(2, 3, figsize=(16, 9))
    (gemm, fwd, bwd), (lin, based, ssd) = axes

    draw(gemm, gemm_groups(), "GEMM vs cuBLAS (bf16, 2 runs)")
    gemm.set_ylim(0.95, 1.08)

    draw(fwd, attention_groups("fwd"),
         "attention forward vs cuDNN / SDPA flash (3 runs)", ylabel=False,
         rotation=90)
    draw(bwd, attention_groups("bwd"),
         "attention backward vs cuDNN / SDPA flash (3 runs)", ylabel=False,
         rotation=90)
    for ax in (fwd, bwd):
        ax.set_ylim(0.95, 1.25)
        ax.set_xlabel("sequence length (16k tokens per batch)", fontsize=8)

    groups = linear_groups()
    draw(lin, [(n, p) for n, p, _ in groups],
         "linear attention vs FLA (B = H = 16)",
         targets={i: t for i, (_, _, t) in enumerate(groups)})
    lin.set_ylim(0, 8.0)
    lin.legend(fontsize=7, loc="upper right", ncol=1)
    lin.set_xlabel("T (dashed: target where one is set)", fontsize=8)

    groups = based_groups()
    draw(based, [(n, p) for n, p, _ in groups],
         "Based vs FLA parallel_based / fused_chunk_based", ylabel=False,
         targets={i: t for i, (_, _, t) in enumerate(groups)})
    based.set_ylim(0, 8.0)
    based.legend(fontsize=7, loc="upper center", ncol=1)
    based.set_xlabel("T (dashed: 5x target)", fontsize=8)

    points = ssd_points()
    draw(ssd, [("vs FLA chunk_simple_gla",
                [(label, fla) for label, fla, _ in points])],
         "Mamba2 SSD forward vs FLA and mamba_ssm (2 runs)", ylabel=False,
         targets={0: (1.5, None)})
    xs = list(range(len(points)))
    mids = [statistics.median(m) for _, _, m in points]
    ssd.errorbar(xs, mids, yerr=[[md - min(m) for md, (_, _, m) in
                                  zip(mids, points)],
                                 [max(m) - md for md, (_, _, m) in
                                  zip(mids, points)]],
                 fmt="D", color="black", zorder=3, markersize=4, capsize=2,
                 label="vs faster mamba_ssm (target 3x)")
    for xi in xs:
        ssd.hlines(3.0, xi - 0.45, xi + 0.45, colors="gray",
                   linestyles="dotted", linewidth=1.2)
    ssd.set_ylim(0, 4.0)
    ssd.set_xlabel("dashed: 1.5x FLA target; dotted: 3x mamba_ssm target",
                   fontsize=8)
    ssd.legend(fontsize=7, loc="upper left")

    fig.suptitle("tk-mlir on NVIDIA H100 80GB HBM3 (700 W): ours / best "
                 "peer per shape (above 1.0: ours faster)", fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
