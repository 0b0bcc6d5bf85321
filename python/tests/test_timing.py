"""The benchmarks' timing order (python/benchmarks/timing.py), on the CPU."""
import collections
import importlib
import os
import sys
import types

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def timing():
    # timing.py imports torch for its CUDA events; the order needs none.
    sys.path.insert(0, os.path.join(HERE, "..", "benchmarks"))
    saved = sys.modules.get("torch")
    if saved is None:
        sys.modules["torch"] = types.ModuleType("torch")
    try:
        yield importlib.import_module("timing")
    finally:
        sys.path.pop(0)
        if saved is None:
            del sys.modules["torch"]
        sys.modules.pop("timing", None)


@pytest.mark.parametrize("count", [2, 3, 4, 5, 7])
@pytest.mark.parametrize("rounds", [1, 7, 9, 15])
def test_each_function_follows_each_other_equally_often(timing, count,
                                                        rounds):
    order = timing.balanced_order(count, rounds)
    uses = collections.Counter(order)
    assert set(uses) == set(range(count))
    # Every function gets the same number of batches, at least `rounds`.
    assert len(set(uses.values())) == 1
    assert min(uses.values()) >= rounds
    # Every ordered pair of distinct functions is adjacent equally often,
    # counting the wrap-around, and no function follows itself.
    pairs = collections.Counter(zip(order, order[1:] + order[:1]))
    assert all(a != b for a, b in pairs)
    assert len(pairs) == count * (count - 1)
    assert len(set(pairs.values())) == 1


def test_one_function_runs_its_rounds(timing):
    assert timing.balanced_order(1, 9) == [0] * 9


def test_three_functions_are_not_a_rotation(timing):
    # A rotation (0 1 2, 1 2 0, 2 0 1, ...) puts 0 after 2 in two rounds of
    # three; the balanced order puts each after each other equally often.
    order = timing.balanced_order(3, 2)
    assert order == [0, 2, 1, 2, 0, 1]
