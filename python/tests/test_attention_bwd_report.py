"""python/benchmarks/attention_bwd.py's report of a gradient check, on the
CPU."""
import pytest

from benchmark_import import benchmark_module


@pytest.fixture(scope="module")
def bench():
    with benchmark_module("attention_bwd",
                          also=("reference", "report", "peers",
                                "timing")) as module:
        yield module


def test_relative_errors_where_the_gradient_is_not_zero(bench):
    assert (bench.describe([1e-3, 2e-3, 3e-3], [0.5, 0.5, 0.5],
                           [False, False, False])
            == "dQ 1.00e-03 dK 2.00e-03 dV 3.00e-03")


def test_absolute_error_where_the_exact_gradient_is_zero(bench):
    # One key: dQ and dK are zero in exact arithmetic; their relative
    # errors are meaningless (the check judges the absolute error).
    assert (bench.describe([1.4e24, 1.4e24, 1.6e-3], [2e-3, 5e-4, 0.1],
                           [True, True, False])
            == "dQ abs 2.00e-03 dK abs 5.00e-04 dV 1.60e-03")
