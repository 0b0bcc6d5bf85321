"""A fixed list of CUDA stream operations queued with one native call.

The tensor-parallel ops queue about fifteen stream operations per call
(waits and writes of counters, copies, event records, the kernel's
launch). Through cuda-bindings each costs a few microseconds of host time,
and a multi-GPU call timed alone waits for the slowest process's host. A
StreamOps records the list once; run() queues it with one ctypes call
into libTKStreamOps (include/tk-c/StreamOps.h), which calls the driver's
entry points in a loop, the counters' values offset by a per-call `base`.
Without the library (a checkout that has not built it) the same list is
queued one driver call at a time.

Nothing here imports CUDA: the driver's entry points come from
tk_mlir.cuda_driver.stream_ops_driver(), and the tests pass their own.
"""
import ctypes
import glob
import os

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_CHECKOUT = os.path.dirname(os.path.dirname(_PACKAGE))

# TkStreamOpKind.
WAIT_VALUE, WRITE_VALUE, COPY, ZERO, RECORD, WAIT_EVENT, LAUNCH = range(7)
KIND_NAMES = ["wait_value", "write_value", "copy", "zero", "record",
              "wait_event", "launch"]
# tkRunStreamOps's own results.
UNKNOWN_KIND, NO_ENTRY = -1, -2


class Op(ctypes.Structure):
    """TkStreamOp."""
    _fields_ = [("kind", ctypes.c_uint32), ("value", ctypes.c_uint32),
                ("relative", ctypes.c_uint32), ("grid", ctypes.c_uint32),
                ("threads", ctypes.c_uint32),
                ("shared_bytes", ctypes.c_uint32),
                ("stream", ctypes.c_uint64), ("address", ctypes.c_uint64),
                ("source", ctypes.c_uint64), ("size", ctypes.c_uint64)]


DRIVER_ENTRIES = ["cuStreamWaitValue32", "cuStreamWriteValue32",
                  "cuMemcpyDtoDAsync", "cuMemsetD32Async", "cuEventRecord",
                  "cuStreamWaitEvent", "cuLaunchKernel"]


class Driver(ctypes.Structure):
    """TkDriver: the entry points, in DRIVER_ENTRIES' order."""
    _fields_ = [(name, ctypes.c_void_p) for name in DRIVER_ENTRIES]


def library_path():
    """libTKStreamOps: $TK_MLIR_STREAMOPS_LIBRARY, the package's copy, the
    checkout's build/lib; None when there is none."""
    if os.environ.get("TK_MLIR_STREAMOPS_LIBRARY"):
        return os.environ["TK_MLIR_STREAMOPS_LIBRARY"]
    for folder in (_PACKAGE, os.path.join(_CHECKOUT, "build", "lib")):
        found = sorted(glob.glob(os.path.join(folder,
                                              "libTKStreamOps.so*")))
        if found:
            return found[0]
    return None


_library = []


def library():
    """The loaded library's tkRunStreamOps, or None without one."""
    if not _library:
        path = library_path()
        run = None
        if path:
            run = ctypes.CDLL(path).tkRunStreamOps
            run.restype = ctypes.c_int
            run.argtypes = [ctypes.POINTER(Driver), ctypes.POINTER(Op),
                            ctypes.c_size_t, ctypes.c_uint32,
                            ctypes.POINTER(ctypes.c_size_t)]
        _library.append(run)
    return _library[0]


class StreamOps:
    """Stream operations recorded once, queued in order by run(). Streams,
    events and functions are raw handles (ints); a value marked relative
    is added to run()'s `base` (mod 2**32)."""

    def __init__(self):
        self._ops = []
        self._array = None

    def __len__(self):
        return len(self._ops)

    def _add(self, kind, stream, **fields):
        if self._array is not None:
            raise RuntimeError("a StreamOps that has run takes no more "
                               "operations")
        self._ops.append(Op(kind=kind, stream=stream, **fields))

    def wait_value(self, stream, address, value, relative=False):
        """Later work on `stream` waits until the 32-bit word at `address`
        reaches `value` (as a signed difference)."""
        self._add(WAIT_VALUE, stream, address=address, value=value % 2**32,
                  relative=int(relative))

    def write_value(self, stream, address, value, relative=False):
        """Writes `value` to the 32-bit word at `address` after the
        stream's earlier work and a memory fence."""
        self._add(WRITE_VALUE, stream, address=address, value=value % 2**32,
                  relative=int(relative))

    def copy(self, stream, destination, source, size):
        """Copies `size` bytes between device addresses (the copy
        engines)."""
        self._add(COPY, stream, address=destination, source=source,
                  size=size)

    def zero(self, stream, address, size):
        """Zeroes `size` bytes at `address` (both multiples of 4)."""
        if address % 4 or size % 4:
            raise ValueError(f"zero: {size} bytes at {address:#x} are not "
                             f"4-byte words")
        self._add(ZERO, stream, address=address, size=size)

    def record(self, stream, event):
        """Records `event` on `stream`."""
        self._add(RECORD, stream, address=event)

    def wait_event(self, stream, event):
        """Later work on `stream` waits for `event`."""
        self._add(WAIT_EVENT, stream, address=event)

    def launch(self, stream, native):
        """Launches a kernel: `native` as runtime.PreparedLaunch.native()
        gives it (function, grid, threads, shared bytes, parameters)."""
        function, grid, threads, shared, params = native
        self._add(LAUNCH, stream, address=function, grid=grid,
                  threads=threads, shared_bytes=shared, source=params)

    def run(self, driver, base=0, one_by_one=None):
        """Queues the operations with `driver` (a Driver) and `base`;
        without the library (or with `one_by_one`, which the tests use),
        through `one_by_one(op, value)` per operation, which returns a
        result as the driver does. Raises RuntimeError naming the first
        that fails (`error_name(result)` from the driver's side)."""
        if self._array is None:
            self._array = (Op * len(self._ops))(*self._ops)
        base %= 2**32
        run = library() if one_by_one is None else None
        failed = ctypes.c_size_t(0)
        if run is not None:
            result = run(ctypes.byref(driver), self._array, len(self._ops),
                         base, ctypes.byref(failed))
        else:
            result = 0
            for i, op in enumerate(self._array):
                value = (op.value + base) % 2**32 if op.relative \
                    else op.value
                result = one_by_one(op, value)
                if result:
                    failed.value = i
                    break
        if result:
            op = self._array[failed.value]
            what = KIND_NAMES[op.kind] if op.kind < len(KIND_NAMES) \
                else f"kind {op.kind}"
            raise StreamOpError(failed.value, what, result)


class StreamOpError(RuntimeError):
    """An operation of a StreamOps failed: its index, kind and result."""

    def __init__(self, index, kind, result):
        reason = {UNKNOWN_KIND: "an unknown kind",
                  NO_ENTRY: "no driver entry point for it"}.get(
                      result, f"CUresult {result}")
        super().__init__(f"stream operation {index} ({kind}) failed: "
                         f"{reason}")
        self.index, self.kind, self.result = index, kind, result
