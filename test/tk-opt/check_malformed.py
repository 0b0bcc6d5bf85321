#!/usr/bin/env python3
"""Runs tk-opt on every file of a folder of broken inputs.

Each input must be rejected the way a user expects: exit code 1 (not 0, not
a signal or abort), and a diagnostic that names the file with line and
column. Any crash, hang or silent acceptance fails the test.

usage: check_malformed.py TK_OPT FOLDER
"""
import os
import re
import subprocess
import sys


def check(tk_opt, path):
    try:
        proc = subprocess.run([tk_opt, path], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "timed out"
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode < 0:
        return f"killed by signal {-proc.returncode}"
    if proc.returncode != 1:
        return f"exit code {proc.returncode}, expected 1"
    if "Stack dump" in err or "PLEASE submit a bug report" in err:
        return "crashed"
    located = re.compile(re.escape(path) + r":\d+:\d+: error: ")
    if not located.search(err):
        return "no 'file:line:col: error:' diagnostic in:\n" + err
    return None


def main():
    tk_opt, folder = sys.argv[1], sys.argv[2]
    names = sorted(n for n in os.listdir(folder) if n.endswith(".mlir"))
    if not names:
        print(f"no inputs in {folder}")
        return 1
    failures = 0
    for name in names:
        problem = check(tk_opt, os.path.join(folder, name))
        if problem:
            failures += 1
            print(f"FAIL {name}: {problem}")
        else:
            print(f"ok   {name}")
    print(f"{len(names) - failures} rejected cleanly, {failures} not")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
