#!/usr/bin/env python3
"""Runs python/gpu_checks/tile_walk.mlir (compiled by tk-opt) and checks
the persistent tile walk: every tile of an (a, b, c) space runs exactly
once, with its coordinates (i fastest) and its round linear // W as the
iteration, for kernels with and without `snake`, balanced and full grids,
and one tile per block (iteration 0); for `dynamic` (tiles taken from a
counter as blocks ask) every tile once with its coordinates, rounds that
some order of `W` blocks could give, in three launches back to back (each
relies on the one before leaving its tile counter zero); for `table`
(the launcher's tile table) the default table (the strided walk over the
balanced grid) and shuffled tables on 1, 7 and 300 blocks, some of them
empty: every tile once with its coordinates and its place in its block's
list as the iteration. The shapes include bounds of 1, powers
of two and their neighbours, and a first bound above 2^16, so the
coordinates' divisions by the bounds meet awkward divisors.

usage: tile_walk.py --manifest build/artifacts/tile_walk/walk.json
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from report import finish  # noqa: E402
from tk_mlir import Kernel, TileTable  # noqa: E402

SHAPES = [(1, 1, 1), (7, 3, 5), (1, 1000, 3), (33, 17, 9), (128, 1, 1),
          (4, 16, 32), (3, 129, 2), (65537, 3, 2), (2, 2, 1025)]


def expected(a, b, c, workers):
    """(1, i, j, k, round) for every tile, in C's order."""
    linear = torch.arange(a * b * c, device="cuda", dtype=torch.int64)
    i, j, k = linear % a, (linear // a) % b, linear // (a * b)
    rounds = linear // workers
    return torch.stack([torch.ones_like(i), i, j, k, rounds], 1).to(
        torch.int32)


def rounds_wrong(rounds, workers):
    """For a dynamic walk, where the round of a tile depends on timing: 0
    when the rounds are those of `workers` blocks each running tiles 0, 1,
    ... (at most `workers` tiles in each round, no round r + 1 tile without
    as many round r ones); else how many tiles are past that."""
    counts = torch.bincount(rounds.long().clamp(min=0))
    if int(rounds.min()) < 0:
        return int((rounds < 0).sum())
    over = int((counts - workers).clamp(min=0).sum())
    rising = int((counts[1:] - counts[:-1]).clamp(min=0).sum())
    return over + rising


def shuffled_table(tiles, blocks, seed):
    """The tiles in a random order, dealt to `blocks` lists of random
    lengths (some empty); with the expected iteration of each tile."""
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(tiles, generator=g).tolist()
    cuts = sorted(torch.randint(0, tiles + 1, (blocks - 1,),
                                generator=g).tolist())
    lists = [order[a:b] for a, b in zip([0] + cuts, cuts + [tiles])]
    place = [0] * tiles
    for block in lists:
        for n, t in enumerate(block):
            place[t] = n
    return TileTable(lists), place


def check_tables(manifest, rows):
    """walk_table with its default table and shuffled ones."""
    kernel = Kernel(manifest, name="walk_table", names=["X", "C"])
    for a, b, c in SHAPES:
        x = torch.zeros(c, b, a, device="cuda", dtype=torch.int32)
        tiles = a * b * c
        cases = [("default", None, None)]
        for blocks in (1, 7, 300):
            table, place = shuffled_table(tiles, blocks, tiles + blocks)
            cases.append((f"shuffled/{blocks}", table, place))
        for label, table, place in cases:
            counters = torch.zeros(5 * tiles, device="cuda",
                                   dtype=torch.int32)
            kernel(x, counters, tile_table=table)
            torch.cuda.synchronize()
            if table is None:
                blocks = kernel.grid(x, counters)
                want = expected(a, b, c, blocks)
            else:
                blocks = len(table.blocks)
                want = expected(a, b, c, 1)
                want[:, 4] = torch.tensor(place, dtype=torch.int32,
                                          device="cuda")
            bad = int((counters.view(-1, 5) != want).any(1).sum())
            ok = bad == 0
            rows.append({"kernel": "walk_table", "grid": label,
                         "shape": [a, b, c], "blocks": blocks,
                         "wrong_tiles": bad, "ok": ok})
            print(f"walk_table {label:12} ({a}, {b}, {c}) on {blocks} "
                  f"blocks: {'ok' if ok else f'{bad} tiles wrong'}",
                  flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    rows = []
    for name in ("walk", "walk_snake", "walk_dynamic"):
        for mode in ("balanced", "full", "one_tile"):
            kernel = Kernel(args.manifest, name=name, names=["X", "C"],
                            balanced_grid=mode == "balanced")
            one = mode == "one_tile"
            dynamic = name == "walk_dynamic"
            for a, b, c in SHAPES:
                x = torch.zeros(c, b, a, device="cuda", dtype=torch.int32)
                # Dynamic: three launches back to back on fresh counters,
                # each relying on the previous one leaving its tile counter
                # zero.
                runs = [torch.zeros(5 * a * b * c, device="cuda",
                                    dtype=torch.int32)
                        for _ in range(3 if dynamic else 1)]
                workers = kernel.grid(x, runs[0], one_tile_per_block=one)
                for counters in runs:
                    kernel(x, counters, one_tile_per_block=one)
                torch.cuda.synchronize()
                want = expected(a, b, c, workers)
                bad = 0
                for counters in runs:
                    got = counters.view(-1, 5)
                    if dynamic:
                        bad += int((got[:, :4] != want[:, :4]).any(1).sum())
                        bad += rounds_wrong(got[:, 4], workers)
                    else:
                        bad += int((got != want).any(1).sum())
                ok = bad == 0
                rows.append({"kernel": name, "grid": mode,
                             "shape": [a, b, c], "blocks": workers,
                             "wrong_tiles": bad, "ok": ok})
                print(f"{name:10} {mode:8} ({a}, {b}, {c}) on {workers} "
                      f"blocks: {'ok' if ok else f'{bad} tiles wrong'}",
                      flush=True)
    check_tables(args.manifest, rows)
    return finish(args.out, "tile_walk.json", {"check": rows})


if __name__ == "__main__":
    sys.exit(main())
