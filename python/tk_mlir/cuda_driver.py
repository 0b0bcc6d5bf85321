"""The few CUDA driver calls the runtime makes, through cuda-bindings.

Imported only when a kernel is loaded, so the rest of the runtime works and
is tested on machines without CUDA. Each call names the device (ordinal) it
acts on and runs in that device's primary context, the one PyTorch uses
there, leaving the thread's current context as it found it.
"""

import contextlib
import ctypes

from cuda.bindings import driver

from .runtime import ELEMENT_TYPES, SWIZZLES

# The primary context (the one PyTorch uses) of each device a kernel ran on,
# by device ordinal.
_contexts = {}


def _check(result, what):
    err = result[0] if isinstance(result, tuple) else result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, text = driver.cuGetErrorString(err)
        message = text.decode() if isinstance(text, bytes) else str(text)
        raise RuntimeError(f"{what} failed: {err.name}: {message}")
    if isinstance(result, tuple):
        return result[1] if len(result) == 2 else result[1:]
    return None


def _primary_context(device):
    context = _contexts.get(device)
    if context is None:
        if not _contexts:
            _check(driver.cuInit(0), "cuInit")
        handle = _check(driver.cuDeviceGet(device), f"cuDeviceGet({device})")
        context = _check(driver.cuDevicePrimaryCtxRetain(handle),
                         f"cuDevicePrimaryCtxRetain({device})")
        _contexts[device] = context
    return context


@contextlib.contextmanager
def _on(device):
    """Runs the body with `device`'s primary context current (device None:
    PyTorch's current device) and leaves the thread's context as it was, so
    that PyTorch's idea of the current device does not change: nothing to do
    when that context is already current, else push and pop it."""
    context = _primary_context(current_device() if device is None
                               else device)
    current = _check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if int(current) == int(context):
        yield
        return
    if not int(current):  # no context yet on this thread: PyTorch's own
        _check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
        yield
        return
    _check(driver.cuCtxPushCurrent(context), "cuCtxPushCurrent")
    try:
        yield
    finally:
        _check(driver.cuCtxPopCurrent(), "cuCtxPopCurrent")


def current_device():
    """PyTorch's current device (ordinal); 0 without torch. Through the call
    torch.cuda.current_device() makes once CUDA is initialized, when this
    torch has it (its Python wrapper is host time on the tensor-parallel
    ops' path to their first queued operation)."""
    try:
        import torch
        get = getattr(torch._C, "_cuda_getDevice", None)
        return get() if get is not None else torch.cuda.current_device()
    except Exception:  # no torch: device 0
        return 0


def multiprocessor_count(device=None):
    """Multiprocessors of `device` (ordinal; None: PyTorch's current)."""
    with _on(device):
        handle = _check(driver.cuCtxGetDevice(), "cuCtxGetDevice")
        return _check(driver.cuDeviceGetAttribute(
            driver.CUdevice_attribute
            .CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, handle),
            "cuDeviceGetAttribute")


def driver_version():
    """The driver's CUDA release as cuDriverGetVersion reports it (13000:
    13.0)."""
    return _check(driver.cuDriverGetVersion(), "cuDriverGetVersion")


def load_function(device, image, name, shared_memory_bytes):
    """Loads `image` (cubin or PTX) as a module on `device`; returns
    (module, function)."""
    if not image.startswith(b"\x7fELF"):
        image = image + b"\0"  # PTX text, NUL-terminated for the JIT
    with _on(device):
        module = _check(driver.cuModuleLoadData(image), "cuModuleLoadData")
        function = _check(driver.cuModuleGetFunction(module, name.encode()),
                          "cuModuleGetFunction")
        if shared_memory_bytes > 48 * 1024:
            _check(driver.cuFuncSetAttribute(
                function, driver.CUfunction_attribute
                .CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared_memory_bytes), "cuFuncSetAttribute")
    return module, function


def synchronize(device):
    """Waits for `device`'s queued work (cuCtxSynchronize)."""
    with _on(device):
        _check(driver.cuCtxSynchronize(), "cuCtxSynchronize")


def unload_module(device, module):
    """Unloads a module load_function loaded (its functions go with it)."""
    with _on(device):
        _check(driver.cuModuleUnload(module), "cuModuleUnload")


def free_host(device, host):
    """Frees host memory attach_wait_report allocated."""
    with _on(device):
        _check(driver.cuMemFreeHost(host), "cuMemFreeHost")


def attach_wait_report(device, module, symbol, size):
    """Allocates `size` bytes of zeroed host memory the GPU can write
    (mapped, pinned) and stores its device address in the global `symbol` of
    `module` (from load_function on `device`); returns the host address."""
    with _on(device):
        address, _ = _check(driver.cuModuleGetGlobal(module, symbol.encode()),
                            f"cuModuleGetGlobal({symbol})")
        flags = getattr(driver, "CU_MEMHOSTALLOC_DEVICEMAP", 2)
        host = _check(driver.cuMemHostAlloc(size, flags), "cuMemHostAlloc")
        ctypes.memset(int(host), 0, size)
        pointer = _check(driver.cuMemHostGetDevicePointer(host, 0),
                         "cuMemHostGetDevicePointer")
        value = ctypes.c_uint64(int(pointer))
        _check(driver.cuMemcpyHtoD(address, ctypes.addressof(value), 8),
               "cuMemcpyHtoD")
    return int(host)


def encode_tensor_map(device, g):
    """The 128-byte TMA descriptor of `g` (TensorMapGeometry) for a kernel
    on `device`."""
    dtype = getattr(driver.CUtensorMapDataType, ELEMENT_TYPES[g.dtype][2])
    swizzle = getattr(driver.CUtensorMapSwizzle, SWIZZLES[g.swizzle])
    rank = len(g.dims)
    u32, u64 = driver.cuuint32_t, driver.cuuint64_t
    with _on(device):
        tensor_map = _check(driver.cuTensorMapEncodeTiled(
            dtype, u32(rank), g.address, [u64(d) for d in g.dims],
            [u64(s) for s in g.strides], [u32(b) for b in g.box],
            [u32(1)] * rank,
            driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            f"cuTensorMapEncodeTiled({g})")
    return ctypes.string_at(tensor_map.getPtr(), 128)


def current_stream(device):
    """PyTorch's current stream of `device` (ordinal) as a raw handle (0,
    the default stream, without torch or without its CUDA), through the
    call Triton's launcher uses when this torch has it:
    torch.cuda.current_stream() builds a Stream object, about 4 us of host
    time per launch."""
    try:
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return raw(device)
        return torch.cuda.current_stream(device).cuda_stream
    except Exception:  # no torch, or one without CUDA: the default stream
        return 0


def create_stream(device):
    """A new stream of `device` (ordinal) as a raw handle, not one of
    PyTorch's pooled streams (which it hands out in turn, so that one may
    be another caller's), that does not wait for the legacy default
    stream. Never destroyed: it serves state kept for the process's
    life."""
    flags = driver.CUstream_flags.CU_STREAM_NON_BLOCKING
    with _on(device):
        return int(_check(driver.cuStreamCreate(flags), "cuStreamCreate"))


def launch(device, function, grid, spec, pointers, stream):
    """Launches `function` (loaded on `device`) on `stream`, default
    PyTorch's current stream of that device."""
    if stream is None:
        stream = current_stream(device)
    # The common case, the device's context already current, without the
    # context manager (a few microseconds of host time per launch).
    current = _check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if int(current) == int(_primary_context(device)):
        _launch(function, grid, spec, pointers, stream)
        return
    with _on(device):
        _launch(function, grid, spec, pointers, stream)


def _launch(function, grid, spec, pointers, stream):
    cluster = tuple(spec.cluster) + (1,) * (3 - len(spec.cluster))
    if cluster == (1, 1, 1):
        _check(driver.cuLaunchKernel(
            function, grid, 1, 1, spec.threads, 1, 1,
            spec.shared_memory_bytes, stream, ctypes.addressof(pointers), 0),
            "cuLaunchKernel")
        return
    config = driver.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid, 1, 1
    config.blockDimX, config.blockDimY, config.blockDimZ = spec.threads, 1, 1
    config.sharedMemBytes = spec.shared_memory_bytes
    config.hStream = stream
    attr = driver.CUlaunchAttribute()
    attr.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    attr.value.clusterDim.x, attr.value.clusterDim.y, \
        attr.value.clusterDim.z = cluster
    config.attrs = [attr]
    config.numAttrs = 1
    _check(driver.cuLaunchKernelEx(config, function,
                                   ctypes.addressof(pointers), 0),
           "cuLaunchKernelEx")


def _stream(stream):
    return driver.CUstream(stream) if isinstance(stream, int) else stream


class Queue:
    """Stream operations queued on one device with its primary context made
    current once for all of them: `with Queue(device) as q:` then
    q.wait_value / q.copy / q.write_value / q.zero / q.record /
    q.wait_event. A context check costs a few microseconds of host time,
    and tk_mlir.ops.tensor_parallel queues three per peer and several more
    in each call while the GPU waits for its kernel. Streams are raw
    handles (ints)."""

    _WAIT_GEQ = driver.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ
    _WRITE = driver.CUstreamWriteValue_flags.CU_STREAM_WRITE_VALUE_DEFAULT

    def __init__(self, device):
        self._context = _on(device)

    def __enter__(self):
        self._context.__enter__()
        return self

    def __exit__(self, *error):
        return self._context.__exit__(*error)

    def write_value(self, stream, address, value):
        """A 32-bit write of `value` to device address `address` (this
        device's memory or a peer's it can reach), after the stream's
        earlier work and a system-wide memory fence."""
        _check(driver.cuStreamWriteValue32(
            _stream(stream), driver.CUdeviceptr(address),
            driver.cuuint32_t(value % 2**32), self._WRITE),
            "cuStreamWriteValue32")

    def wait_value(self, stream, address, value):
        """The stream's later work waits until the 32-bit word at `address`
        is `value` or more (as a signed difference, so it may wrap)."""
        _check(driver.cuStreamWaitValue32(
            _stream(stream), driver.CUdeviceptr(address),
            driver.cuuint32_t(value % 2**32), self._WAIT_GEQ),
            "cuStreamWaitValue32")

    def record(self, stream, event):
        """Records `event` (a raw CUDA event handle, e.g. a torch.cuda.Event's
        cuda_event) on the stream."""
        _check(driver.cuEventRecord(driver.CUevent(event), _stream(stream)),
               "cuEventRecord")

    def wait_event(self, stream, event):
        """The stream's later work waits for `event`'s last recorded work."""
        _check(driver.cuStreamWaitEvent(_stream(stream), driver.CUevent(event),
                                        0), "cuStreamWaitEvent")

    def zero(self, stream, address, size):
        """Zeroes `size` bytes at device address `address`."""
        if address % 4 == 0 and size % 4 == 0:
            _check(driver.cuMemsetD32Async(driver.CUdeviceptr(address), 0,
                                           size // 4, _stream(stream)),
                   "cuMemsetD32Async")
        else:
            _check(driver.cuMemsetD8Async(driver.CUdeviceptr(address), 0,
                                          size, _stream(stream)),
                   "cuMemsetD8Async")

    def copy(self, stream, destination, source, size):
        """A copy of `size` bytes between device addresses (either may be a
        peer's): the copy engines, no multiprocessor."""
        _check(driver.cuMemcpyDtoDAsync(
            driver.CUdeviceptr(destination), driver.CUdeviceptr(source),
            size, _stream(stream)), "cuMemcpyDtoDAsync")
