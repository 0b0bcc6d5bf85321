"""GEMM kernels that need scratch memory besides their operands."""
import torch

from .runtime import ArgumentError, Kernel, check_arguments


class StreamKGemm:
    """C = A @ B with a stream-K kernel (kernels/gemm_streamk.mlir, whose
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
        if not isinstance(a, torch.Tensor) or not a.is_cuda:
            raise ArgumentError("argument 'A': expected a CUDA torch tensor")
        args = (a, b, c, *self.scratch(a.device, 1))
        try:
            blocks = self.kernel.grid(*args)
        except (AttributeError, TypeError, IndexError, ValueError):
            # Sizing the grid read a malformed argument: name it.
            check_arguments(self.kernel.spec, args, self.kernel.names)
            raise
        work, counters = self.scratch(a.device, blocks)
        self.kernel(a, b, c, work, counters, stream=stream)
