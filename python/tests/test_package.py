"""The package's names and version: the public functions and the modules
that hold their tables do not hide each other, and the version is the one
CMake and pyproject.toml state."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import tk_mlir  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_functions_and_modules_do_not_clash():
    for name in ("gemm", "attention", "linear_attention", "based",
                 "ssd_chunk_scan", "compile"):
        assert callable(getattr(tk_mlir, name)), name
    from tk_mlir.ops import attention, linear_attention, ssd
    assert "attention_naive_d64_ring4" in tk_mlir.ops.attention.VARIANTS
    assert attention.VARIANTS is tk_mlir.ops.attention.VARIANTS
    assert len(ssd.variants()) == 8
    assert linear_attention.variants()


def test_one_version_everywhere():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        cmake = re.search(r"project\(tk-mlir VERSION ([0-9.]+)", f.read())
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        pyproject = re.search(r'^version = "([0-9.]+)"', f.read(), re.M)
    assert cmake and pyproject
    assert tk_mlir.__version__ == cmake.group(1) == pyproject.group(1)
    assert tk_mlir.compiler.compiler_version() == tk_mlir.__version__
