"""Tensor-parallel layers across the GPUs of one node, one process per GPU
(torch.distributed, NCCL), as single kernels that overlap the GEMM with the
communication through peer memory (kernels/multi_gpu/).

gemm_reduce_scatter: the row-parallel linear layer. Every process holds
`a` [M, K / world] and `b` [K / world, N]; the result is the sum over the
group of a @ b, of which process r gets rows [r M / world, (r + 1) M /
world). Each device computes the product tiles of every owner's rows and
adds them into the owner's output with TMA reduce stores through NVLink.

all_gather_gemm: the column-parallel linear layer. Every process holds its
rows `a` [M / world, K] of A and its columns `b` [K, N / world] of B; the
result is A @ b [M, N / world]. The copy engines gather the shards from
the peers' memory while the kernel computes: each tile waits only for the
shards of its rows, its own shard's tiles first.
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
GATHER_PROGRAM = "all_gather_gemm"
_GATHER_ARG_NAMES = ["A", "B", "C", "arrived", "epoch", "first_tile"]


def variants():
    """name -> (program, tk-opt -tile-to-nvidia options), as
    scripts/setup.sh builds them."""
    return {PROGRAM: (PROGRAM, ""), GATHER_PROGRAM: (GATHER_PROGRAM, "")}


def _int32(total):
    """`total` as the int32 the kernel's counters hold (they wrap)."""
    return (total + 2**31) % 2**32 - 2**31


def _zeroed_everywhere(group, *counters):
    """Zeroes this device's copy of each multi-device `counters` and returns
    once every device of `group` has zeroed its copies."""
    import torch.distributed as dist
    for views in counters:
        views.local.zero_()
    torch.cuda.synchronize()
    dist.barrier(group)


class _Communicator:
    """What a group's launches share: the symmetric output buffer of one
    shape, the counters (zero once, then only growing) and the totals each
    launch waits for."""

    def __init__(self, group, rows, cols):
        self.output = symmetric_empty((rows, cols), torch.bfloat16, group)
        self.flags = symmetric_empty((2,), torch.int32, group)
        _zeroed_everywhere(group, self.flags)
        self.total = 0
        # Blocks of a launch (the same on every device).
        self.blocks = None


_communicators = {}


def _check(a, b, world, split="rows"):
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
    if split == "rows" and a.shape[0] % world:
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


class _Gather:
    """What a group's all_gather_gemm launches of one shard shape share:
    this device's shard in symmetric memory (peers copy from it), the
    handshake counters (`ready[q]`: device q's shard of the epoch is in
    place; `done[q]`: device q has copied this device's shard), the gathered
    A, the per-shard arrival counters the kernel waits on, and the stream
    the copies run on."""

    def __init__(self, group, rows, cols):
        import torch.distributed as dist
        self.world = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        self.shard = symmetric_empty((rows, cols), torch.bfloat16, group)
        self.ready = symmetric_empty((self.world,), torch.int32, group)
        self.done = symmetric_empty((self.world,), torch.int32, group)
        self.gathered = torch.empty(self.world * rows, cols,
                                    dtype=torch.bfloat16, device="cuda")
        self.arrived = torch.zeros(self.world, dtype=torch.int32,
                                   device="cuda")
        self.stream = torch.cuda.Stream()
        _zeroed_everywhere(group, self.ready, self.done)
        self.epoch = 0


_gathers = {}


def all_gather_gemm(a, b, group=None):
    """A @ b, A gathered over `group` (default: the world) from every
    process's rows `a` [M / world, K]; `b` [K, N / world]: [M, N / world],
    bf16 (f32 accumulation). Collective: every process of the group calls
    it with its shards, all of the same shapes."""
    import torch.distributed as dist
    from .. import cuda_driver as cuda
    group = group or dist.group.WORLD
    world = dist.get_world_size(group)
    _check(a, b, world, split="none")
    rows, cols = a.shape
    key = (group.group_name, rows, cols)
    g = _gathers.get(key)
    if g is None:
        g = _gathers[key] = _Gather(group, rows, cols)
    device = torch.cuda.current_device()
    main = torch.cuda.current_stream()
    g.epoch += 1
    epoch = g.epoch % 2**32
    word = 4   # bytes of a counter
    # The peers copied this device's shard of the last call: overwrite it.
    if g.epoch > 1:
        for q in range(world):
            if q != g.rank:
                cuda.stream_wait_value(device, main.cuda_stream,
                                       g.done.local.data_ptr() + word * q,
                                       epoch - 1)
    g.shard.local.copy_(a)
    for q in range(world):
        if q != g.rank:
            cuda.stream_write_value(device, main.cuda_stream,
                                    g.ready.addresses[q] + word * g.rank,
                                    epoch)
    # The copies: after the last call's kernel read the gathered A, own
    # shard first, then the next devices' in turn.
    g.stream.wait_stream(main)
    a.record_stream(g.stream)
    side = g.stream.cuda_stream
    size = rows * cols * a.element_size()
    for k in range(world):
        p = (g.rank + k) % world
        target = g.gathered.data_ptr() + p * size
        if p == g.rank:
            cuda.copy_async(device, side, target, a.data_ptr(), size)
        else:
            cuda.stream_wait_value(device, side,
                                   g.ready.local.data_ptr() + word * p,
                                   epoch)
            cuda.copy_async(device, side, target, g.shard.addresses[p], size)
            cuda.stream_write_value(device, side,
                                    g.done.addresses[p] + word * g.rank,
                                    epoch)
        cuda.stream_write_value(device, side,
                                g.arrived.data_ptr() + word * p, epoch)
    kernel = load_compiled(GATHER_PROGRAM, GATHER_PROGRAM, "",
                           _GATHER_ARG_NAMES)
    out = torch.empty(world * rows, b.shape[1], dtype=torch.bfloat16,
                      device=a.device)
    kernel(g.gathered, b, out, g.arrived, _int32(g.epoch),
           (g.rank * rows) // 128)
    # The next call's copies start after this kernel (stream order above);
    # the caller's next work on `main` sees `out` complete.
    return out
