"""The README's quick start: its tile program compiles through
tk_mlir.compile (the launch itself needs a GPU) into a kernel taking the
three views the quick start passes."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir import compile  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_quick_start_program_compiles(tmp_path, monkeypatch):
    monkeypatch.setenv("TK_MLIR_CACHE", str(tmp_path))
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    program = re.search(r'program = """\n(.*?)"""', readme, re.S).group(1)
    names = re.search(r'\.load\(names=(\[.*?\])\)', readme).group(1)
    compiled = compile(program, cubin=False)
    assert compiled.name == "matmul"
    spec = compiled.manifest["kernels"]["matmul"]
    views = {e["param"] for e in spec["abi"] if e["kind"] == "view_ptr"}
    assert len(views) == len(eval(names)) == 3
    assert "wgmma.mma_async" in compiled.assembly
    assert "cp.async.bulk.tensor" in compiled.assembly   # the TMA ring
