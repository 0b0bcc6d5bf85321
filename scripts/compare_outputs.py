#!/usr/bin/env python3
"""Compiles every bundled kernel with two tk-opt binaries (or one binary
twice) and compares what comes out byte for byte: the PTX and manifest of
each kernels/*/*.mlir through -tile-to-nvidia, and the AMD ISA and manifest
of the programs that compile for gfx942 / gfx950. The output must not
depend on the host compiler that built tk-opt (clang or GCC) nor differ
between runs.

usage: compare_outputs.py TK_OPT_A [TK_OPT_B]   (B defaults to A: two runs)
Prints one line per differing file and a summary; exit status 1 on any
difference or failed compile.
"""
import filecmp
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# (program, chip) pairs known to compile for AMD (docs/amd.md).
AMD = [("gemm_naive", "gfx942"), ("gemm_naive", "gfx950"),
       ("attention_naive", "gfx942"), ("attention_naive", "gfx950"),
       ("attention_naive_d64", "gfx942"), ("attention_naive_d64", "gfx950"),
       ("linear_attention", "gfx942"), ("linear_attention", "gfx950"),
       ("mamba2_ssd", "gfx942"), ("mamba2_ssd", "gfx950")]


def compile_all(tk_opt, out):
    """Compiles into `out`; returns the programs that failed."""
    failed = []
    jobs = []
    for path in sorted(glob.glob(os.path.join(ROOT, "kernels", "*", "*.mlir"))):
        name = os.path.splitext(os.path.basename(path))[0]
        jobs.append((name, path, "-tile-to-nvidia=out=%s cubin=false"
                     % os.path.join(out, name)))
    for name, chip in AMD:
        path, = glob.glob(os.path.join(ROOT, "kernels", "*", name + ".mlir"))
        jobs.append((f"{name}-{chip}", path, "-tile-to-amdgpu=chip=%s out=%s"
                     % (chip, os.path.join(out, f"{name}-{chip}"))))
    for name, path, option in jobs:
        proc = subprocess.run([tk_opt, path, option, "-o", "/dev/null"],
                              capture_output=True)
        if proc.returncode:
            failed.append(name)
    return failed


def main(argv):
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    a, b = argv[0], argv[-1]
    with tempfile.TemporaryDirectory() as tmp:
        outs = [os.path.join(tmp, "a"), os.path.join(tmp, "b")]
        failed = compile_all(a, outs[0]) + compile_all(b, outs[1])
        for name in failed:
            print(f"failed to compile: {name}")
        differ, same = [], 0
        for path in sorted(glob.glob(os.path.join(outs[0], "*", "*"))):
            rel = os.path.relpath(path, outs[0])
            other = os.path.join(outs[1], rel)
            if os.path.exists(other) and filecmp.cmp(path, other,
                                                     shallow=False):
                same += 1
            else:
                differ.append(rel)
        for rel in differ:
            print(f"differs: {rel}")
        print(f"{same} files identical, {len(differ)} differ, "
              f"{len(failed)} compiles failed")
        return 1 if differ or failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
