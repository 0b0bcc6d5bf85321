"""Imports a module of python/benchmarks in a CPU test, with a stand-in for
torch where torch is not installed (the parts under test need none)."""
import contextlib
import importlib
import os
import sys
from unittest import mock

BENCHMARKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                          "benchmarks")


@contextlib.contextmanager
def benchmark_module(name, also=()):
    """Yields python/benchmarks/<name>.py as a module; afterwards removes it
    and the benchmark modules it imported (`also`) from sys.modules."""
    sys.path.insert(0, BENCHMARKS)
    saved = sys.modules.get("torch")
    if saved is None:
        sys.modules["torch"] = mock.MagicMock(name="torch")
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.pop(0)
        if saved is None:
            del sys.modules["torch"]
        for module in (name, *also):
            sys.modules.pop(module, None)
