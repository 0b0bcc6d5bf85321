"""python/benchmarks/tensor_parallel.py's graph mode on the CPU: torch and
torch.distributed replaced by recorders. Each function is called once
directly, then captured; one whose capture fails stays a direct call and
is named."""
import contextlib
import importlib
import os
import sys
import types

import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                          "benchmarks")


@pytest.fixture
def bench(monkeypatch):
    """The benchmark module with fake torch and torch.distributed; returns
    (module, log, capturing): the graph's replay logs ("replay", name)."""
    log, capturing = [], []
    torch = types.ModuleType("torch")
    dist = types.ModuleType("torch.distributed")
    dist.barrier = lambda: log.append(("barrier",))
    dist.get_rank = lambda: 1
    torch.distributed = dist

    class Graph:
        def __init__(self):
            self.name = None

        def replay(self):
            log.append(("replay", self.name))

    @contextlib.contextmanager
    def graph(g):
        capturing.append(g)
        try:
            yield
        finally:
            capturing.pop()
    torch.cuda = types.SimpleNamespace(
        CUDAGraph=Graph, graph=graph,
        synchronize=lambda: log.append(("synchronize",)))
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.distributed", dist)
    monkeypatch.syspath_prepend(BENCHMARKS)
    monkeypatch.delitem(sys.modules, "tensor_parallel", raising=False)
    module = importlib.import_module("tensor_parallel")
    yield module, log, capturing
    sys.modules.pop("tensor_parallel", None)


def test_every_function_is_replayed_unless_its_capture_fails(bench):
    module, log, capturing = bench

    def function(name, capturable=True):
        def call():
            if capturing:
                if not capturable:
                    raise RuntimeError("operation not permitted when stream "
                                       "is capturing")
                capturing[-1].name = name
                log.append(("captured", name))
            else:
                log.append(("call", name))
        return call
    fns = {"ours": function("ours"), "fused": function("fused", False)}
    replays, direct = module.replayed(fns)
    assert direct == ["fused"]
    # A direct call first (the ops' state is made outside the capture),
    # then the capture.
    assert log == [("call", "ours"), ("synchronize",), ("barrier",),
                   ("captured", "ours"), ("call", "fused"),
                   ("synchronize",), ("barrier",)]
    del log[:]
    replays["ours"]()
    replays["fused"]()
    assert log == [("replay", "ours"), ("call", "fused")]
