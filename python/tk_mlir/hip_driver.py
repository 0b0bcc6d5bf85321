"""The few HIP runtime calls the runtime makes for AMD kernels, through
ctypes on libamdhip64 (module load + launch), with the same interface as
cuda_driver.

Imported only when an AMD kernel is loaded. This project has no AMD GPU:
this path is written against the HIP API but has not been run; everything
before it (manifests, argument checks, kernel-argument packing) is tested on
the CPU.
"""

import contextlib
import ctypes
import os

# hipModuleLaunchKernel's `extra` keys for a packed argument buffer.
_LAUNCH_PARAM_BUFFER_POINTER = 0x01
_LAUNCH_PARAM_BUFFER_SIZE = 0x02
_LAUNCH_PARAM_END = 0x03

_hip = None


def _library():
    """libamdhip64: $TK_HIP_LIBRARY, the loader's path, then ROCm's."""
    global _hip
    if _hip is not None:
        return _hip
    candidates = [os.environ.get("TK_HIP_LIBRARY"), "libamdhip64.so",
                  "/opt/rocm/lib/libamdhip64.so"]
    errors = []
    for name in filter(None, candidates):
        try:
            _hip = ctypes.CDLL(name)
            break
        except OSError as e:
            errors.append(f"{name}: {e}")
    if _hip is None:
        raise RuntimeError("AMD kernels launch through the HIP runtime, and "
                           "libamdhip64.so was not found (" +
                           "; ".join(errors) + "); set TK_HIP_LIBRARY")
    _hip.hipGetErrorString.restype = ctypes.c_char_p
    _check(_hip.hipInit(0), "hipInit")
    return _hip


def _check(status, what):
    if status != 0:
        text = _hip.hipGetErrorString(status).decode() if _hip else ""
        raise RuntimeError(f"{what} failed: error {status}: {text}")


@contextlib.contextmanager
def _on(device):
    """Runs the body with `device` (ordinal; None: PyTorch's current) as
    the thread's HIP device and restores the one before, so that PyTorch's
    current device does not change."""
    hip = _library()
    current = current_device()
    if device is None or device == current:
        yield hip
        return
    _check(hip.hipSetDevice(device), f"hipSetDevice({device})")
    try:
        yield hip
    finally:
        _check(hip.hipSetDevice(current), "hipSetDevice")


def current_device():
    """The thread's current HIP device (ordinal), PyTorch's as well."""
    current = ctypes.c_int()
    _check(_library().hipGetDevice(ctypes.byref(current)), "hipGetDevice")
    return current.value


def multiprocessor_count(device=None):
    """Compute units of `device` (ordinal; None: PyTorch's current)."""
    import torch
    if device is None:
        device = current_device()
    return torch.cuda.get_device_properties(device).multi_processor_count


def load_function(device, image, name, shared_memory_bytes):
    """Loads `image` (a code object) as a module on `device`; returns
    (module, function)."""
    module = ctypes.c_void_p()
    function = ctypes.c_void_p()
    with _on(device) as hip:
        _check(hip.hipModuleLoadData(ctypes.byref(module), image),
               "hipModuleLoadData")
        _check(hip.hipModuleGetFunction(ctypes.byref(function), module,
                                        name.encode()),
               "hipModuleGetFunction")
    return module, function


def synchronize(device):
    """Waits for `device`'s queued work."""
    with _on(device) as hip:
        _check(hip.hipDeviceSynchronize(), "hipDeviceSynchronize")


def unload_module(device, module):
    """Unloads a module load_function loaded."""
    with _on(device) as hip:
        _check(hip.hipModuleUnload(module), "hipModuleUnload")


def launch(device, function, grid, spec, kernargs, stream):
    """Launches with the packed kernel-argument bytes on `stream`, default
    PyTorch's current stream of `device`."""
    if stream is None:
        try:
            import torch
            stream = torch.cuda.current_stream(device).cuda_stream
        except Exception:
            stream = 0
    buffer = ctypes.create_string_buffer(kernargs, len(kernargs))
    size = ctypes.c_size_t(len(kernargs))
    extra = (ctypes.c_void_p * 5)(
        _LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(buffer),
        _LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size), _LAUNCH_PARAM_END)
    with _on(device) as hip:
        _check(hip.hipModuleLaunchKernel(
            function, ctypes.c_uint(grid), ctypes.c_uint(1),
            ctypes.c_uint(1), ctypes.c_uint(spec.threads), ctypes.c_uint(1),
            ctypes.c_uint(1), ctypes.c_uint(spec.shared_memory_bytes),
            ctypes.c_void_p(stream), None, extra), "hipModuleLaunchKernel")
