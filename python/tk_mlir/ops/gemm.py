"""gemm(a, b): C = A · B with the bundled GEMM program
(kernels/gemm/gemm.mlir), and GEMM kernels that need scratch memory besides
their operands (stream-K)."""
import contextlib

from .attention import load_compiled
from ..tracing import compiling, direct, refuse_tangents
from ..runtime import ArgumentError, Kernel, _stream_handle, check_one_device

try:
    import torch
except ImportError:   # the CPU-side tools and tests run without torch
    torch = None


def gemm(a, b):
    """C = A · B for bf16 CUDA matrices A [M, K] and B [K, N] (K and N
    multiples of 8: rows of whole 16-byte units, as TMA copies them),
    f32 accumulation, C bf16. A torch custom op (torch.ops.tk_mlir.gemm)."""
    if direct(a, b):
        return gemm_impl(a, b)
    refuse_tangents("gemm", a, b)
    if not compiling():
        check_gemm_arguments(a, b)
    return torch.ops.tk_mlir.gemm(a, b)


def gemm_impl(a, b):
    """What torch.ops.tk_mlir.gemm runs."""
    check_gemm_arguments(a, b)
    c = torch.empty(a.shape[0], b.shape[1], device=a.device,
                    dtype=torch.bfloat16)
    load_compiled("gemm", "gemm", "", ["A", "B", "C"])(a, b, c)
    return c


def check_gemm_arguments(a, b, c=None):
    """Checks that C = A @ B fits its operands: A [M, K], B [K, N] and
    C [M, N] (when given) on A's CUDA device; ArgumentError naming the
    argument otherwise (the kernel's own checks add dtypes and layouts)."""
    if not getattr(a, "is_cuda", False):
        raise ArgumentError("argument 'A': expected a CUDA tensor")
    operands = (("A", a), ("B", b)) + ((("C", c),) if c is not None else ())
    for name, t in operands:
        if not all(hasattr(t, attr) for attr in ("shape", "device")):
            raise ArgumentError(f"argument '{name}': expected a tensor, got "
                                f"{type(t).__name__}")
        if len(t.shape) != 2:
            raise ArgumentError(f"argument '{name}': expected a 2-D tensor, "
                                f"got shape {tuple(t.shape)}")
    (m, k), (rows, n) = a.shape, b.shape
    if rows != k:
        raise ArgumentError(f"argument 'B': {rows} rows, but A has {k} "
                            f"columns (A [M, K] @ B [K, N])")
    if c is not None and tuple(c.shape) != (m, n):
        raise ArgumentError(f"argument 'C': expected shape {(m, n)} (A's "
                            f"rows, B's columns), got {tuple(c.shape)}")
    check_one_device([(f"argument '{name}'", t) for name, t in operands])


def check_gemm_operands(a, b):
    """What a launch of gemm_impl refuses of A and B that their metadata
    shows (the checks of torch.ops.tk_mlir.gemm's fake implementation, which
    sees no data): check_gemm_arguments, then dtype bf16, no empty
    dimension, row-major contiguity, and K and N multiples of 8 (rows of
    whole 16 bytes for the kernel's TMA copies). ArgumentError naming the
    argument otherwise."""
    check_gemm_arguments(a, b)
    for name, t in (("A", a), ("B", b)):
        shape = tuple(t.shape)
        if str(getattr(t, "dtype", "")) != "torch.bfloat16":
            raise ArgumentError(f"argument '{name}': expected dtype "
                                f"torch.bfloat16, got {t.dtype}")
        if 0 in shape:
            raise ArgumentError(f"argument '{name}': empty shape {shape}")
        rows, cols = shape
        if (rows != 1 and t.stride()[0] != cols) or \
                (cols != 1 and t.stride()[1] != 1):
            raise ArgumentError(f"argument '{name}': must be contiguous "
                                f"(row-major); strides {tuple(t.stride())} "
                                f"(call .contiguous())")
        if cols % 8:
            raise ArgumentError(f"argument '{name}': {cols} columns; the "
                                f"kernel's TMA copies need rows of whole 16 "
                                f"bytes, a multiple of 8 bf16 elements")


class StreamKGemm:
    """C = A @ B with a stream-K kernel (kernels/alternatives/gemm_streamk.mlir, whose
    parameters are A, B, C, a workspace W and counters F). Owns W and F, one
    pair per device and stream: zero-filled on that stream, and the kernel
    leaves them zero. Launches of one instance on one stream share them
    (in stream order); concurrent launches on different streams each have
    their own."""

    # Per block of the grid: two split tiles in flight, 128 f32 rows each.
    ROWS_PER_BLOCK = 256
    COUNTERS_PER_BLOCK = 2
    COLUMNS = 256

    def __init__(self, manifest_path, name=None):
        # Stream-K splits the last round itself: every multiprocessor works.
        self.kernel = Kernel(manifest_path, name=name,
                             names=["A", "B", "C", "W", "F"],
                             balanced_grid=False)
        self._scratch = {}

    def scratch(self, device, blocks, stream=None):
        """(W, F) for `device` and `stream` (a CUDA stream handle; None:
        torch's current stream of `device`), large enough for a grid of
        `blocks`. Allocated and zero-filled on that stream, so a launch
        there runs after the fill (a fill queued on another stream could
        still be running when the kernel reads them) and the memory of a
        pair it outgrows goes back to torch's allocator in that stream's
        order."""
        handle = _stream_handle(device, stream)
        key = (str(device), handle)
        have = self._scratch.get(key)
        if have is None or have[1].shape[0] < self.COUNTERS_PER_BLOCK * blocks:
            with _on_stream(device, handle):
                work = torch.zeros(self.ROWS_PER_BLOCK * blocks, self.COLUMNS,
                                   dtype=torch.float32, device=device)
                counters = torch.zeros(self.COUNTERS_PER_BLOCK * blocks,
                                       dtype=torch.int32, device=device)
            have = (work, counters)
            self._scratch[key] = have
        return have

    def __call__(self, a, b, c, stream=None):
        check_gemm_arguments(a, b, c)
        # (The grid's size reads only A's and B's checked shapes.)
        blocks = self.kernel.grid(a, b, c,
                                  *self.scratch(a.device, 1, stream))
        work, counters = self.scratch(a.device, blocks, stream)
        self.kernel(a, b, c, work, counters, stream=stream)


def _on_stream(device, handle):
    """A context in which torch queues work on stream `handle` of `device`:
    none needed where that is torch's current stream."""
    if handle == torch.cuda.current_stream(device).cuda_stream:
        return contextlib.nullcontext()
    return torch.cuda.stream(torch.cuda.ExternalStream(handle, device=device))
