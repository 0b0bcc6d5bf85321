#!/usr/bin/env python3
"""Fails when any C++ file under include/, lib/ or tools/ is not formatted
as clang-format-22 would format it. usage: check_format.py SOURCE_ROOT"""
import os
import subprocess
import sys

root = sys.argv[1]
files = []
for top in ("include", "lib", "tools"):
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        files += [os.path.join(dirpath, n) for n in sorted(names)
                  if n.endswith((".cpp", ".h"))]
if not files:
    sys.exit("no C++ sources found under " + root)
proc = subprocess.run(["clang-format-22", "--dry-run", "-Werror", *files],
                      cwd=root, capture_output=True, text=True)
if proc.returncode != 0:
    sys.stderr.write(proc.stderr)
    sys.exit(f"unformatted sources; run: clang-format-22 -i <files>")
print(f"{len(files)} files formatted")
