"""The tensor-parallel ops' kernels and their wait limit, on the CPU: the
bundled kernels (compiled with the default limit) without
$TK_MLIR_WAIT_TIMEOUT_MS, kernels compiled with another limit, or none,
under their own names (so forms can be loaded in one process) with it; a
bad value raises naming the variable, and wait_timeouts() collects what the
loaded kernels recorded."""
import os
import sys
import types

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir.ops import tensor_parallel as tp  # noqa: E402
from tk_mlir.runtime import ArgumentError  # noqa: E402


@pytest.fixture
def loads(monkeypatch):
    """The (name, program, options) of each kernel load; each loaded kernel
    reports the messages in `reports` under its name."""
    calls, reports = [], {}

    def load_compiled(name, program, options, names):
        calls.append((name, program, options))
        return types.SimpleNamespace(
            wait_timeouts=lambda: list(reports.get(name, [])))
    monkeypatch.setattr(tp, "load_compiled", load_compiled)
    monkeypatch.setattr(tp, "_kernels", {})
    monkeypatch.delenv("TK_MLIR_WAIT_TIMEOUT_MS", raising=False)
    return calls, reports


DEFAULT = f"wait-timeout-ms={tp.DEFAULT_WAIT_TIMEOUT_MS}"


@pytest.mark.parametrize("value", [None, "", "  ", "600000"])
def test_the_bundled_kernels_without_the_variable_or_at_the_default(
        loads, monkeypatch, value):
    calls, _ = loads
    if value is not None:
        monkeypatch.setenv("TK_MLIR_WAIT_TIMEOUT_MS", value)
    tp._load(tp.PROGRAM, tp._ARG_NAMES)
    tp._load(tp.GATHER_PROGRAM, tp._GATHER_ARG_NAMES)
    assert calls == [(tp.PROGRAM, tp.PROGRAM, DEFAULT),
                     (tp.GATHER_PROGRAM, tp.GATHER_PROGRAM, DEFAULT)]
    assert tp.wait_timeouts() == []


@pytest.mark.parametrize("value", ["5000", " 5000 "])
def test_the_variable_picks_kernels_with_another_limit(loads, monkeypatch,
                                                       value):
    calls, _ = loads
    monkeypatch.setenv("TK_MLIR_WAIT_TIMEOUT_MS", value)
    tp._load(tp.PROGRAM, tp._ARG_NAMES)
    tp._load(tp.BLOCKS_PROGRAM, tp._BLOCKS_ARG_NAMES)
    assert calls == [
        ("gemm_reduce_scatter_wait5000", tp.PROGRAM, "wait-timeout-ms=5000"),
        ("all_gather_gemm_blocks_wait5000", tp.BLOCKS_PROGRAM,
         "wait-timeout-ms=5000")]


def test_zero_means_no_limit(loads, monkeypatch):
    calls, _ = loads
    monkeypatch.setenv("TK_MLIR_WAIT_TIMEOUT_MS", "0")
    tp._load(tp.PROGRAM, tp._ARG_NAMES)
    assert calls == [("gemm_reduce_scatter_nowait", tp.PROGRAM, "")]


@pytest.mark.parametrize("value", ["abc", "-3", "1.5"])
def test_a_bad_value_names_the_variable(loads, monkeypatch, value):
    calls, _ = loads
    monkeypatch.setenv("TK_MLIR_WAIT_TIMEOUT_MS", value)
    with pytest.raises(ArgumentError, match="TK_MLIR_WAIT_TIMEOUT_MS: "
                                            "expected a whole number of "
                                            "milliseconds"):
        tp._load(tp.PROGRAM, tp._ARG_NAMES)
    assert calls == []


def test_wait_timeouts_collects_every_loaded_kernels_reports(loads,
                                                            monkeypatch):
    _, reports = loads
    monkeypatch.setenv("TK_MLIR_WAIT_TIMEOUT_MS", "100")
    tp._load(tp.PROGRAM, tp._ARG_NAMES)
    tp._load(tp.GATHER_PROGRAM, tp._GATHER_ARG_NAMES)
    tp._load(tp.PROGRAM, tp._ARG_NAMES)   # (loaded again: listed once)
    reports["gemm_reduce_scatter_wait100"] = ["block 3 waited over 100 ms"]
    reports["all_gather_gemm_wait100"] = ["block 0 waited over 100 ms"]
    assert tp.wait_timeouts() == ["block 3 waited over 100 ms",
                                  "block 0 waited over 100 ms"]
