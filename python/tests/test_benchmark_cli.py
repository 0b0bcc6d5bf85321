"""python/benchmarks/attention.py's command line, on the CPU."""
import pytest

from benchmark_import import benchmark_module


@pytest.fixture(scope="module")
def bench():
    # The benchmark and its peers module use torch at import (SDPA backend
    # names); parsing the options needs none.
    with benchmark_module("attention", also=("peers", "timing")) as module:
        yield module


@pytest.mark.parametrize("argv, timing", [
    ([], "pairs"),
    (["--set"], "set"),
    (["--sustained", "2.5"], "sustained"),
    (["--sustained", "0"], "pairs"),
])
def test_timing_method(bench, argv, timing):
    assert bench.parse_args(argv).timing == timing


@pytest.mark.parametrize("argv, message", [
    (["--set", "--sustained", "1"],
     "--set and --sustained are two timing methods: give one"),
    (["--sustained", "-1"], "--sustained: seconds must not be negative"),
])
def test_bad_timing_options_are_usage_errors(bench, argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        bench.parse_args(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
