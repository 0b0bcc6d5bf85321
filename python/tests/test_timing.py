"""The benchmarks' timing order (python/benchmarks/timing.py), on the CPU."""
import collections

import pytest

from benchmark_import import benchmark_module


@pytest.fixture(scope="module")
def timing():
    # timing.py imports torch for its CUDA events; the order needs none.
    with benchmark_module("timing") as module:
        yield module


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


def test_sustained_takes_the_second_half_of_each_window(timing):
    """time_sustained runs a function until its window's time is up and
    keeps the batches of the window's second half (the GPU's steady state
    for that function), over windows in the balanced order."""
    now = [0.0]
    calls = collections.Counter()
    previous = [None]

    def clock():
        return now[0]

    def batch(fn, count):
        # Each batch takes 1/8 s; a function's batches slow down within a
        # window (the first half is warming up), 1.0 ms then 2.0 ms. The
        # balanced order never repeats a function, so a change of function
        # starts a window.
        now[0] += 0.125
        calls[fn.__name__] += count
        if fn is not previous[0]:
            fn.position, previous[0] = 0, fn
        fn.position += 1
        return 1.0 if fn.position <= 4 else 2.0

    def make(name):
        def fn():
            pass
        fn.__name__ = name
        return fn

    fns = {"a": make("a"), "b": make("b")}
    result = timing.time_sustained(fns, seconds=1.0, windows=3, per_batch=4,
                                   batch=batch, clock=clock)
    # 8 batches per 1 s window, the last 4 at 2.0 ms; 3 windows each.
    assert result == {"a": 2.0, "b": 2.0}
    assert calls == {"a": 3 * 8 * 4, "b": 3 * 8 * 4}


@pytest.mark.parametrize("seconds", [0, -1.0])
def test_sustained_needs_a_positive_window(timing, seconds):
    with pytest.raises(ValueError, match="seconds must be positive"):
        timing.time_sustained({"a": lambda: None}, seconds=seconds)


def test_pairs_time_each_function_against_the_base_alone(timing):
    """time_pairs interleaves the base with one other function at a time
    and reports both sides of each pair."""
    sets = []

    def interleave(fns, **options):
        sets.append((list(fns), options))
        # A stand-in for the GPU: each function's time depends on the set
        # it is timed in, as a third function's power draw would make it.
        return {name: 1.0 + len(fns) + index for index, name in
                enumerate(fns)}

    fns = {"tk": object(), "cudnn": object(), "flash": object()}
    result = timing.time_pairs(fns, "tk", interleave=interleave, rounds=5)
    assert sets == [(["tk", "cudnn"], {"rounds": 5}),
                    (["tk", "flash"], {"rounds": 5})]
    assert result == {"cudnn": {"tk": 3.0, "cudnn": 4.0},
                      "flash": {"tk": 3.0, "flash": 4.0}}


def test_pairs_need_the_base_among_the_functions(timing):
    with pytest.raises(ValueError, match="base 'tk' is not one of"):
        timing.time_pairs({"cudnn": object()}, "tk",
                          interleave=lambda fns, **options: {})
