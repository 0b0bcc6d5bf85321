#!/usr/bin/env python3
"""Seeded mutation testing of tk-opt: damages valid tile programs (drops,
duplicates or truncates lines, swaps numbers, keywords, types and SSA names)
and requires every result to be accepted or rejected with exit code 1 and a
located error, never a crash; mutants that verify are also scheduled and
lowered, for NVIDIA (NVVM) and for AMD (ROCDL), with scheduling-pass options
drawn at random (ring stages, their override, the producer's registers;
values out of range too, which must be rejected with a located error).

usage: mutate.py TK_OPT SEED COUNT FILE...
"""
import random
import re
import subprocess
import sys
import tempfile

# Besides plain sizes: numbers that wrap when read at 32 bits (2^32 + 1,
# 2^32 + 32) or 64 bits (2^64 + 2), and a negative one that wraps to a
# large unsigned.
NUMBERS = ["0", "1", "3", "7", "65", "255", "256", "4096", "100000", "-1",
           "99999999999", "4294967297", "4294967328", "18446744073709551618",
           "-8"]
WORDS = ["warp", "block", "AtB", "col", "f8E4M3FN", "i32", "index",
         "#tile.row", "#tile.mma_acc", "!tile.sem", "!tile.rt"]
TOKEN = re.compile(r"#tile\.\w+|!tile\.\w+|\b(warp|warpgroup|block|AB|ABt|"
                   r"AtB|AtBt|row|col|bf16|f32|f16|index|i32)\b")


def replace_random(rng, text, pattern, choices):
    matches = list(re.finditer(pattern, text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[:m.start()] + rng.choice(choices) + text[m.end():]


def mutate(rng, text):
    lines = text.split("\n")
    kind = rng.randrange(6)
    if kind == 0 and len(lines) > 2:
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 1:
        lines.insert(rng.randrange(len(lines)), rng.choice(lines))
        return "\n".join(lines)
    if kind == 2:
        return replace_random(rng, text, r"\d+", NUMBERS)
    if kind == 3:
        return replace_random(rng, text, TOKEN, WORDS)
    if kind == 4:
        return text[:rng.randrange(len(text))]
    names = [m.group() for m in re.finditer(r"%\w+", text)]
    return replace_random(rng, text, r"%\w+", names or ["%x"])


def scheduling_passes(rng, amd):
    """The scheduling passes, each with options drawn from `rng` (or none,
    half of the time)."""
    def options(choices):
        if rng.random() < 0.5:
            return ""
        picked = [f"{name}={rng.choice(values)}"
                  for name, values in choices if rng.random() < 0.7]
        return "=" + " ".join(picked) if picked else ""
    pipeline = "-tile-pipeline" + options(
        [("stages", [0, 1, 2, 3, 4, 9]),
         ("override-stages", ["true", "false"])])
    if amd:
        return [pipeline, "-tile-assign-layouts"]
    specialize = "-tile-warp-specialize" + options(
        [("producer-registers", [24, 32, 40, 56, 20, 260])])
    return [pipeline, specialize, "-tile-assign-layouts"]


def main():
    tk_opt, seed, count, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    rng = random.Random(seed)
    # Test files with several cases ("// -----") count case by case.
    sources = [chunk for f in files for chunk in open(f).read().split("// -----")
               if "tile.kernel" in chunk]
    failures = 0
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as tmp:
        path = tmp.name
    for case in range(count):
        text = mutate(rng, rng.choice(sources))
        with open(path, "w") as f:
            f.write(text)
        bad = False
        # Verify and normalise; a mutant that verifies is also lowered.
        amd = "gfx9" in text
        lower = "-convert-tile-to-rocdl" if amd else "-convert-tile-to-nvvm"
        schedule = scheduling_passes(random.Random(seed * 100003 + case),
                                     amd)
        for pipeline in (["-canonicalize", "-tile-print-layouts"],
                         [lower], [*schedule, lower]):
            proc = subprocess.run([tk_opt, path, "-allow-unregistered-dialect",
                                   *pipeline, "-o", "/dev/null"],
                                  capture_output=True)
            err = proc.stderr.decode("utf-8", "replace")
            bad = proc.returncode not in (0, 1) or "Stack dump" in err
            if proc.returncode == 1 and not re.search(r":\d+:\d+: error: ",
                                                      err):
                bad = True
            if bad or proc.returncode != 0:
                break
        if bad:
            failures += 1
            print(f"case {case}: exit {proc.returncode}\n{text}\n{err[-2000:]}")
    print(f"{count} mutants, {failures} mishandled")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
