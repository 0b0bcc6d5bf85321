"""Tensor-parallel layers across the GPUs of one node, one process per GPU
(torch.distributed, NCCL), as single kernels that overlap the GEMM with the
communication through peer memory (kernels/multi_gpu/).

gemm_reduce_scatter: the row-parallel linear layer. Every process holds
`a` [M, K / world] and `b` [K / world, N]; the result is the sum over the
group of a @ b, of which process r gets rows [r M / world, (r + 1) M /
world). Each device computes the product tiles of every owner's rows and
adds them into the owner's output with TMA reduce stores through NVLink.
"""
try:
    import torch
except ImportError:   # the CPU-side tools and tests run without torch
    torch = None

from ..runtime import ArgumentError
from ..multi_device import symmetric_empty
from .attention import load_compiled

PROGRAM = "gemm_reduce_scatter"
_ARG_NAMES = ["A", "B", "C", "flags", "started", "finished"]


def variants():
    """name -> (program, tk-opt -tile-to-nvidia options), as
    scripts/setup.sh builds them."""
    return {PROGRAM: (PROGRAM, "")}


def _int32(total):
    """`total` as the int32 the kernel's counters hold (they wrap)."""
    return (total + 2**31) % 2**32 - 2**31


class _Communicator:
    """What a group's launches share: the symmetric output buffer of one
    shape, the counters (zero once, then only growing) and the totals each
    launch waits for."""

    def __init__(self, group, rows, cols):
        self.output = symmetric_empty((rows, cols), torch.bfloat16, group)
        self.flags = symmetric_empty((2,), torch.int32, group)
        self.flags.local.zero_()
        torch.cuda.synchronize()
        import torch.distributed as dist
        dist.barrier(group)   # every device's counters are zero
        self.total = 0
        # Blocks of a launch (the same on every device).
        self.blocks = None


_communicators = {}


def _check(a, b, world):
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise ArgumentError(f"argument '{name}': expected a tensor, got "
                                f"{type(t).__name__}")
        if t.dtype != torch.bfloat16:
            raise ArgumentError(f"argument '{name}': expected dtype bfloat16, "
                                f"got {t.dtype}")
        if not t.is_cuda or t.device.index != torch.cuda.current_device():
            raise ArgumentError(f"argument '{name}': expected a tensor on "
                                f"this process's GPU (cuda:"
                                f"{torch.cuda.current_device()}), got one on "
                                f"{t.device}")
        if t.dim() != 2 or not t.is_contiguous():
            raise ArgumentError(f"argument '{name}': expected a contiguous "
                                f"matrix, got shape {tuple(t.shape)} with "
                                f"strides {t.stride()}")
    if a.shape[1] != b.shape[0]:
        raise ArgumentError(f"argument 'b': has {b.shape[0]} rows, but 'a' "
                            f"has {a.shape[1]} columns")
    if a.shape[0] % world:
        raise ArgumentError(f"argument 'a': its {a.shape[0]} rows do not "
                            f"split evenly over {world} devices")


def gemm_reduce_scatter(a, b, group=None):
    """This process's rows of the sum over `group` (default: the world) of
    a @ b: [M / world, N], bf16 (f32 accumulation per device; the partial
    sums are added in bf16, as NCCL's bf16 reduce-scatter adds them).
    Collective: every process of the group calls it with its shard."""
    import torch.distributed as dist
    group = group or dist.group.WORLD
    world = dist.get_world_size(group)
    _check(a, b, world)
    rows, cols = a.shape[0] // world, b.shape[1]
    key = (group.group_name, rows, cols)
    comm = _communicators.get(key)
    if comm is None:
        comm = _communicators[key] = _Communicator(group, rows, cols)
    kernel = load_compiled(PROGRAM, PROGRAM, "", _ARG_NAMES)
    a3 = a.view(world, rows, a.shape[1])
    if comm.blocks is None:   # (the grid depends on the output's shape)
        comm.blocks = kernel.grid(a3, b, comm.output, comm.flags, 0, 0)
    blocks = comm.blocks
    # Every block of every device adds one to each device's counters.
    comm.total += world * blocks
    expected = _int32(comm.total)
    comm.output.local.zero_()
    kernel(a3, b, comm.output, comm.flags, expected, expected)
    return comm.output.local.clone()
