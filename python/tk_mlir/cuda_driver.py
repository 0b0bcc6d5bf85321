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
    """PyTorch's current device (ordinal); 0 without torch."""
    try:
        import torch
        return torch.cuda.current_device()
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
    the default stream, without torch). Through the call Triton's launcher
    uses when this torch has it: torch.cuda.current_stream() builds a
    Stream object, about 4 us of host time per launch."""
    try:
        import torch
    except ImportError:
        return 0
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(device)
    return torch.cuda.current_stream(device).cuda_stream


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


_WAIT_GEQ = driver.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ
_WRITE = driver.CUstreamWriteValue_flags.CU_STREAM_WRITE_VALUE_DEFAULT


_stream_ops_driver = []


def stream_ops_driver():
    """The driver's entry points for tk_mlir.stream_ops (a Driver), looked
    up once with the CUDA 12 signatures its library calls them with."""
    from . import stream_ops
    if not _stream_ops_driver:
        table = stream_ops.Driver()
        flags = driver.CUdriverProcAddress_flags.CU_GET_PROC_ADDRESS_DEFAULT
        for name in stream_ops.DRIVER_ENTRIES:
            err, pfn, _ = driver.cuGetProcAddress(name.encode(), 12000,
                                                  flags)
            _check(err, f"cuGetProcAddress({name})")
            if not pfn:
                raise RuntimeError(f"the driver has no {name} for CUDA 12")
            setattr(table, name, int(pfn))
        _stream_ops_driver.append(table)
    return _stream_ops_driver[0]


def _one_by_one(op, value):
    """One TkStreamOp through cuda-bindings (no libTKStreamOps): the
    CUresult as an int."""
    from . import stream_ops as so
    stream = driver.CUstream(op.stream)
    if op.kind == so.WAIT_VALUE:
        err = driver.cuStreamWaitValue32(
            stream, driver.CUdeviceptr(op.address), driver.cuuint32_t(value),
            _WAIT_GEQ)
    elif op.kind == so.WRITE_VALUE:
        err = driver.cuStreamWriteValue32(
            stream, driver.CUdeviceptr(op.address), driver.cuuint32_t(value),
            _WRITE)
    elif op.kind == so.COPY:
        err = driver.cuMemcpyDtoDAsync(driver.CUdeviceptr(op.address),
                                       driver.CUdeviceptr(op.source),
                                       op.size, stream)
    elif op.kind == so.ZERO:
        err = driver.cuMemsetD32Async(driver.CUdeviceptr(op.address), 0,
                                      op.size // 4, stream)
    elif op.kind == so.RECORD:
        err = driver.cuEventRecord(driver.CUevent(op.address), stream)
    elif op.kind == so.WAIT_EVENT:
        err = driver.cuStreamWaitEvent(stream, driver.CUevent(op.address), 0)
    elif op.kind == so.LAUNCH:
        err = driver.cuLaunchKernel(
            driver.CUfunction(op.address), op.grid, 1, 1, op.threads, 1, 1,
            op.shared_bytes, stream, op.source, 0)
    else:
        return so.UNKNOWN_KIND
    err = err[0] if isinstance(err, tuple) else err
    return int(err)


def run_stream_ops(device, ops, base=0):
    """Queues `ops` (tk_mlir.stream_ops.StreamOps) on `device`, with one
    call into libTKStreamOps when it is there (else one driver call each),
    `base` added to the relative values. A failure raises RuntimeError
    naming the operation and the driver's error."""
    from . import stream_ops as so
    one_by_one = None if so.library() else _one_by_one
    table = stream_ops_driver()
    try:
        current = _check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
        if int(current) == int(_primary_context(device)):
            ops.run(table, base, one_by_one)
            return
        with _on(device):
            ops.run(table, base, one_by_one)
    except so.StreamOpError as error:
        name = ""
        if error.result > 0:
            try:
                name = f" ({driver.CUresult(error.result).name})"
            except ValueError:
                pass
        raise RuntimeError(f"{error}{name}") from error
