"""gemm(a, b): C = A · B with the bundled GEMM program
(kernels/gemm/gemm.mlir), and GEMM kernels that need scratch memory besides
their operands (stream-K)."""
from .attention import load_compiled
from ..tracing import compiling, direct, refuse_tangents
from ..runtime import ArgumentError, Kernel, check_one_device

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


class StreamKGemm:
    """C = A @ B with a stream-K kernel (kernels/alternatives/gemm_streamk.mlir, whose
    parameters are A, B, C, a workspace W and counters F). Owns W and F, one
    pair per device: zero-filled once, and the kernel leaves them zero.
    Launches of one instance on one device share them, so they must not run
    concurrently on different streams."""

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

    def scratch(self, device, blocks):
        """(W, F) for `device`, large enough for a grid of `blocks`."""
        have = self._scratch.get(device)
        if have is None or have[1].shape[0] < self.COUNTERS_PER_BLOCK * blocks:
            work = torch.zeros(self.ROWS_PER_BLOCK * blocks, self.COLUMNS,
                               dtype=torch.float32, device=device)
            counters = torch.zeros(self.COUNTERS_PER_BLOCK * blocks,
                                   dtype=torch.int32, device=device)
            have = (work, counters)
            self._scratch[device] = have
        return have

    def __call__(self, a, b, c, stream=None):
        check_gemm_arguments(a, b, c)
        # (The grid's size reads only A's and B's checked shapes.)
        blocks = self.kernel.grid(a, b, c, *self.scratch(a.device, 1))
        work, counters = self.scratch(a.device, blocks)
        self.kernel(a, b, c, work, counters, stream=stream)
