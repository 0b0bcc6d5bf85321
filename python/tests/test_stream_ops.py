"""tk_mlir.stream_ops: a list of stream operations queued by
libTKStreamOps (built by scripts/build.sh TKStreamOps) through driver
entry points the tests stand in for with ctypes callbacks, and the same
list queued one operation at a time without the library."""
import ctypes
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir import stream_ops  # noqa: E402
from tk_mlir.stream_ops import Driver, StreamOpError, StreamOps  # noqa: E402

u32, u64, ptr = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p
SIGNATURES = {
    "cuStreamWaitValue32": (ptr, u64, u32, ctypes.c_uint),
    "cuStreamWriteValue32": (ptr, u64, u32, ctypes.c_uint),
    "cuMemcpyDtoDAsync": (u64, u64, ctypes.c_size_t, ptr),
    "cuMemsetD32Async": (u64, ctypes.c_uint, ctypes.c_size_t, ptr),
    "cuEventRecord": (ptr, ptr),
    "cuStreamWaitEvent": (ptr, ptr, ctypes.c_uint),
    "cuLaunchKernel": (ptr,) + (ctypes.c_uint,) * 7 + (ptr, ptr, ptr),
}


class FakeDriver:
    """Entry points that record their calls and return `results[name]`
    (default 0, CUDA_SUCCESS)."""

    def __init__(self, missing=(), results=None):
        self.calls = []
        self.results = results or {}
        self.table = Driver()
        self._keep = []
        for name, types in SIGNATURES.items():
            if name in missing:
                continue
            entry = ctypes.CFUNCTYPE(ctypes.c_int, *types)(
                self._recorder(name))
            self._keep.append(entry)
            setattr(self.table, name, ctypes.cast(entry, ptr).value)

    def _recorder(self, name):
        def call(*args):
            self.calls.append((name,) + tuple(a or 0 for a in args))
            return self.results.get(name, 0)
        return call


def sample_ops(params=0x9000):
    ops = StreamOps()
    ops.record(0x10, 0xE1)
    ops.wait_event(0x20, 0xE1)
    ops.wait_value(0x20, 0x1000, -1, relative=True)
    ops.copy(0x20, 0x2000, 0x3000, 4096)
    ops.write_value(0x20, 0x1004, 0, relative=True)
    ops.write_value(0x10, 0x1008, 7)
    ops.zero(0x10, 0x4000, 64)
    ops.launch(0x10, (0xF00, 132, 384, 200000, params))
    return ops


def expected_calls(base, params=0x9000):
    return [("cuEventRecord", 0xE1, 0x10),
            ("cuStreamWaitEvent", 0x20, 0xE1, 0),
            ("cuStreamWaitValue32", 0x20, 0x1000, (base - 1) % 2**32, 0),
            ("cuMemcpyDtoDAsync", 0x2000, 0x3000, 4096, 0x20),
            ("cuStreamWriteValue32", 0x20, 0x1004, base % 2**32, 0),
            ("cuStreamWriteValue32", 0x10, 0x1008, 7, 0),
            ("cuMemsetD32Async", 0x4000, 0, 16, 0x10),
            ("cuLaunchKernel", 0xF00, 132, 1, 1, 384, 1, 1, 200000, 0x10,
             params, 0)]


def test_the_library_is_built():
    assert stream_ops.library_path() is not None, \
        "build libTKStreamOps first (scripts/build.sh TKStreamOps)"
    assert stream_ops.library() is not None


@pytest.mark.parametrize("base", [5, 0, 2**32 + 3])
def test_the_library_queues_each_operation_in_order(base):
    driver = FakeDriver()
    ops = sample_ops()
    assert len(ops) == 8
    ops.run(driver.table, base)
    assert driver.calls == expected_calls(base)
    # Again with another base: the same list, new values.
    driver.calls.clear()
    ops.run(driver.table, base + 1)
    assert driver.calls == expected_calls(base + 1)


def test_one_by_one_queues_the_same():
    """Without the library the list goes through a Python function per
    operation, with the values the library would pass."""
    seen = []

    def one(op, value):
        seen.append((op.kind, op.stream, op.address, value))
        return 0
    sample_ops().run(Driver(), 9, one_by_one=one)
    kinds = [stream_ops.RECORD, stream_ops.WAIT_EVENT, stream_ops.WAIT_VALUE,
             stream_ops.COPY, stream_ops.WRITE_VALUE,
             stream_ops.WRITE_VALUE, stream_ops.ZERO, stream_ops.LAUNCH]
    assert [s[0] for s in seen] == kinds
    assert [s[3] for s in seen if s[0] in (stream_ops.WAIT_VALUE,
                                           stream_ops.WRITE_VALUE)] == \
        [8, 9, 7]


def test_a_failure_names_the_operation_and_stops_the_list():
    driver = FakeDriver(results={"cuMemcpyDtoDAsync": 700})
    with pytest.raises(StreamOpError, match=r"stream operation 3 \(copy\) "
                       r"failed: CUresult 700") as error:
        sample_ops().run(driver.table, 1)
    assert (error.value.index, error.value.kind, error.value.result) == \
        (3, "copy", 700)
    assert [c[0] for c in driver.calls] == [
        "cuEventRecord", "cuStreamWaitEvent", "cuStreamWaitValue32",
        "cuMemcpyDtoDAsync"]

    def one(op, value):
        return 1 if op.kind == stream_ops.LAUNCH else 0
    with pytest.raises(StreamOpError, match=r"operation 7 \(launch\) "
                       r"failed: CUresult 1"):
        sample_ops().run(Driver(), 0, one_by_one=one)


def test_a_missing_entry_point_or_an_unknown_kind_fails():
    driver = FakeDriver(missing=("cuLaunchKernel",))
    with pytest.raises(StreamOpError, match=r"operation 7 \(launch\) "
                       r"failed: no driver entry point for it"):
        sample_ops().run(driver.table, 0)
    assert len(driver.calls) == 7
    ops = StreamOps()
    ops.record(0x10, 0xE1)
    ops._ops.append(stream_ops.Op(kind=42))
    with pytest.raises(StreamOpError, match=r"operation 1 \(kind 42\) "
                       r"failed: an unknown kind"):
        ops.run(FakeDriver().table, 0)


def test_a_list_is_fixed_once_it_ran_and_zeroes_whole_words():
    ops = sample_ops()
    ops.run(FakeDriver().table, 0)
    with pytest.raises(RuntimeError, match="takes no more operations"):
        ops.record(0x10, 0xE1)
    with pytest.raises(ValueError, match="6 bytes at 0x4000 are not 4-byte "
                       "words"):
        StreamOps().zero(0x10, 0x4000, 6)
    with pytest.raises(ValueError, match="4 bytes at 0x4002"):
        StreamOps().zero(0x10, 0x4002, 4)
