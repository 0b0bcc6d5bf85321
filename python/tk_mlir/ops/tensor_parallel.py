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
result is A @ b [M, N / world]. The copy engines push each device's shard
into every peer's gathered A while the kernels compute: each tile waits
only for the shard of its rows, its own shard's tiles first. With
communicate="blocks" the kernel gathers itself instead: its first blocks
pull the peers' shards over NVLink while the others compute
(kernels/alternatives/all_gather_gemm_blocks.mlir; slower, kept as the
tested example of grid-level roles and peer loads).

Every call of a shape queues the same operations with the same values, so
a caller may capture either op in a CUDA graph (torch.cuda.graph) once a
call of that shape has made its state outside the capture
(docs/multi_gpu.md); the communicating-blocks form cannot be captured.

A peer that dies or calls another shape: the kernels' waits give up after
DEFAULT_WAIT_TIMEOUT_MS (10 minutes, torch.distributed's default for NCCL)
and trap, so the launch fails instead of hanging, and wait_timeouts() says
which waits gave up. $TK_MLIR_WAIT_TIMEOUT_MS = N picks kernels whose
waits give up after N ms (0: kernels without a limit).
"""
import collections
import os

try:
    import torch
except ImportError:   # the CPU-side tools and tests run without torch
    torch = None

from ..runtime import ArgumentError
from ..multi_device import DeviceViews, symmetric_empty
from ..torch_ops import REGISTERED, forward_only, keep_nothing
from ..tracing import _lookup, probes, refuse_tangents
from .attention import load_compiled

# The devices the kernels' multi-device views are compiled for (`devices =
# 8` in kernels/multi_gpu/).
MAX_DEVICES = 8
PROGRAM = "gemm_reduce_scatter"
_ARG_NAMES = ["A", "B", "C", "flags", "total"]
GATHER_PROGRAM = "all_gather_gemm"
_GATHER_ARG_NAMES = ["A", "B", "C", "arrived", "epoch"]
BLOCKS_PROGRAM = "all_gather_gemm_blocks"
_BLOCKS_ARG_NAMES = ["G", "B", "C", "arrived", "sync", "epoch", "started",
                     "finished"]


# The kernels' wait limit unless $TK_MLIR_WAIT_TIMEOUT_MS says otherwise:
# torch.distributed's default timeout for NCCL, so that a launch whose peer
# died fails about when a collective would. The limit costs the kernels'
# fast path nothing: a timed wait's give-up path is inside its assembly
# (docs/nvidia.md, "Finding a deadlock").
DEFAULT_WAIT_TIMEOUT_MS = 600_000


def _options(ms):
    return f"wait-timeout-ms={ms}" if ms else ""


def variants():
    """name -> (program, tk-opt -tile-to-nvidia options), as
    scripts/setup.sh builds them: each program with the default wait
    limit under its own name."""
    default = _options(DEFAULT_WAIT_TIMEOUT_MS)
    return {program: (program, default)
            for program in (PROGRAM, GATHER_PROGRAM, BLOCKS_PROGRAM)}


def _wait_timeout_ms():
    """$TK_MLIR_WAIT_TIMEOUT_MS as a number of milliseconds (0: no limit),
    DEFAULT_WAIT_TIMEOUT_MS when it is unset or empty."""
    text = os.environ.get("TK_MLIR_WAIT_TIMEOUT_MS", "").strip()
    if not text:
        return DEFAULT_WAIT_TIMEOUT_MS
    try:
        ms = int(text)
    except ValueError:
        ms = -1
    if ms < 0:
        raise ArgumentError(f"TK_MLIR_WAIT_TIMEOUT_MS: expected a whole "
                            f"number of milliseconds, got {text!r}")
    return ms


# The kernels the ops loaded (for wait_timeouts).
_kernels = {}


def _load(program, names):
    """The ops' kernel `program`: as bundled (waits limited to
    DEFAULT_WAIT_TIMEOUT_MS) or, with $TK_MLIR_WAIT_TIMEOUT_MS = N, compiled
    with wait-timeout-ms=N under its own name (on first use, then cached;
    N = 0: no limit), so that a launch whose peers never signal fails after
    the limit instead of hanging (wait_timeouts says where)."""
    ms = _wait_timeout_ms()
    if ms == DEFAULT_WAIT_TIMEOUT_MS:
        name = program
    else:
        name = f"{program}_wait{ms}" if ms else f"{program}_nowait"
    kernel = load_compiled(name, program, _options(ms), names)
    _kernels[name] = kernel
    return kernel


def wait_timeouts():
    """The waits of the ops' kernels that gave up, one message each (the
    kernel, block, thread, the wait's source line and the value it waited
    for), [] when none gave up (and always with
    $TK_MLIR_WAIT_TIMEOUT_MS = 0). Read from host memory, so it works once a launch has trapped
    and the CUDA context is no longer usable."""
    messages = []
    for kernel in _kernels.values():
        messages += kernel.wait_timeouts()
    return messages


def _int32(total):
    """`total` as the int32 the kernel's counters hold (they wrap)."""
    return (total + 2**31) % 2**32 - 2**31


def _set_everywhere(group, *counters, value=0):
    """Sets every word of this device's copy of each multi-device
    `counters` to `value` and returns once every device of `group` has."""
    import torch.distributed as dist
    for views in counters:
        views.local.fill_(value)
    torch.cuda.synchronize()
    dist.barrier(group)


def _capturing():
    """Whether PyTorch's current stream is capturing a CUDA graph: the ops
    then neither wait for nor mark their last use on other streams (events
    recorded outside a capture cannot order it; the caller orders a graph's
    replays)."""
    check = getattr(torch._C, "_cuda_isCurrentStreamCapturing", None)
    if check is not None:
        return bool(check())
    return torch.cuda.is_current_stream_capturing()


def _raw_events(count):
    """`count` CUDA events of the current device as (torch events, raw
    handles): torch creates an event when first recorded."""
    events = [torch.cuda.Event() for _ in range(count)]
    for event in events:
        event.record()
    return events, [e.cuda_event for e in events]


def _not_capturing(op):
    """Raises unless PyTorch's current stream is not capturing: a shape's
    first call allocates symmetric memory and synchronizes with the group,
    which a capture cannot hold."""
    if _capturing():
        raise RuntimeError(f"{op}: the first call of a shape cannot be "
                           f"captured in a CUDA graph (it allocates and "
                           f"synchronizes with the group); call it once on "
                           f"these shapes before capturing")


class _LastUse:
    """The stream of the ops' last call on a device and an event after
    that call's last use of its buffers: a call on another stream waits
    for it first (calls on one stream are ordered already). One per
    device, shared by every shape and op (_last_use): the kernels wait for
    their peers' blocks, so two calls whose kernels could run at once on
    two streams might start in one order on one device and in the other
    on a peer, each kernel's blocks then waiting for multiprocessors the
    other holds. Ordered here, the calls run in the order each process
    makes them, the same on every device."""

    def __init__(self):
        self._events, (self._event,) = _raw_events(1)
        self._stream = None

    def wait(self, queue, stream, capturing=False):
        if stream != self._stream and not capturing:
            queue.wait_event(stream, self._event)

    def record(self, queue, stream, capturing=False):
        if not capturing:
            queue.record(stream, self._event)
            self._stream = stream


_last_uses = {}


def _last_use(device):
    """The _LastUse of `device` (ordinal), made on first use."""
    use = _last_uses.get(device)
    if use is None:
        use = _last_uses[device] = _LastUse()
    return use


class _Cache:
    """Values by key, each made on its key's first use, the `size` used last
    kept (a model's layers of one shape share the ops' state, each with its
    own weights)."""

    def __init__(self, size=64):
        self._values, self._size = collections.OrderedDict(), size

    def get(self, key, make):
        value = self._values.get(key)
        if value is not None:
            self._values.move_to_end(key)
            return value
        value = make()
        if len(self._values) >= self._size:
            self._values.popitem(last=False)
        self._values[key] = value
        return value


_cuda = None


def _driver():
    """tk_mlir.cuda_driver, imported on first use (it needs cuda-bindings):
    the ops' host time before their first queued operation is the GPU's
    idle time when a call is timed alone, and an import statement per call
    is part of it."""
    global _cuda
    if _cuda is None:
        from .. import cuda_driver
        _cuda = cuda_driver
    return _cuda


def _signature(a, b):
    """Everything the ops' argument checks read of `a` and `b` (addresses,
    shapes, strides, dtypes, devices), None unless both are tensors: the key
    of a checked call, whose later calls on tensors of that signature skip
    the checks and the lookups of the state and launch they use. Each host
    step before a call's first queued operation is GPU idle time when the
    call is timed alone (after a barrier, in the benchmark's pattern, every
    host step takes 5-10 times its time in a loop): with this, _driver and
    the device read by cuda_driver.current_device, gemm_reduce_scatter took
    0.015-0.032 ms less per call at K = 8192 (4 x H200, four shapes),
    all_gather_gemm 0.013 ms or more."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return None
    try:
        return (a.data_ptr(), b.data_ptr(), a.shape, b.shape, a.stride(),
                b.stride(), a.dtype, b.dtype, a.device, b.device)
    except RuntimeError:   # no strides or storage (sparse): _check says why
        return None


class _Communicator:
    """What a group's launches of one output shape share: the symmetric
    output buffer and, after it in the same allocation, the kernel's two
    counters, and the total of blocks each launch waits for. Each call
    zeroes the output and the barrier counter (`flags[0]`) with one
    memset; the announcement counter (`flags[1]`) is zeroed once, and
    each launch takes its own count off it (the kernel's header says
    why): every call queues the same operations with the same values, so
    a captured CUDA graph can replay them."""

    def __init__(self, group, world, rows, cols):
        self.world = world
        self.bytes = rows * cols * 2
        # (The counters 16-byte aligned after the output.)
        counters = -(-self.bytes // 16) * 16
        buffer = symmetric_empty((counters + 8,), torch.uint8, group)
        output = buffer.local[:self.bytes].view(torch.bfloat16)
        self.output = DeviceViews(output.view(rows, cols), buffer.addresses,
                                  buffer.rank)
        self.flags = DeviceViews(
            buffer.local[counters:].view(torch.int32),
            [address + counters for address in buffer.addresses],
            buffer.rank)
        _set_everywhere(group, self.flags)
        self.address = self.output.local.data_ptr()
        # The memset before each launch: the output and `flags[0]`.
        self.zeroed = counters + 4
        # Blocks the launches of every device start per call (their grids
        # fit each device's multiprocessors), once the first is prepared.
        self.blocks = None
        # (Until its copy-out, a call uses the output buffer.)
        self.last_use = _last_use(_driver().current_device())


_communicators = {}

# all_gather_gemm queues its kernel before its pushes from this many columns
# of B per device, and after them below. Both wait for the host's queueing
# (about 0.1 ms per call in the benchmark's pattern). With many columns the
# own shard's tiles take longer than a shard's push (0.3 against 0.1 ms
# with 7168 columns, M = K = 8192, 4 x H200) and the kernel's start bounds
# the call; with few the pushes do (the last shard's tiles take a wave after
# it lands). In alternation on one 4 x H200 machine: 0.865 / 1.482 / 2.764
# ms with the kernel first against 0.877 / 1.521 / 2.836 with the pushes
# first at N = 16384 / 28672 (M = 8192) and M = 16384, N = 28672; at 2048
# columns the kernel first lost (1.763 against 1.684 ms at M = 32768),
# and queueing the first push, then the kernel, then the others changed
# nothing measurable.
KERNEL_FIRST_COLUMNS = 4096


def _kernel_first(columns):
    """Whether all_gather_gemm queues its kernel before any push, for
    `columns` of B per device."""
    return columns >= KERNEL_FIRST_COLUMNS


def _check(a, b, world, split="rows", addresses=True):
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
    _check_layout(a, b, world, aligned_a=split == "rows",
                  addresses=addresses)


def _check_layout(a, b, world, aligned_a=True, addresses=True):
    """What the kernels' TMA copies and multi-device views need, checked
    before a call queues anything (a launch that failed after the
    collective's handshakes were queued would leave the peers waiting):
    rows of 16-byte multiples (8 bf16), 16-byte aligned tensors (`a` may
    be unaligned for all_gather_gemm, which then copies it), at most
    MAX_DEVICES devices. `addresses`: False for tensors without storage
    (the torch ops' fake implementations), whose alignment is checked
    when the op runs."""
    if world > MAX_DEVICES:
        raise ArgumentError(f"the group has {world} devices; the kernels "
                            f"are compiled for at most {MAX_DEVICES}")
    for name, t in (("a", a), ("b", b)):
        if t.shape[1] % 8:
            raise ArgumentError(f"argument '{name}': rows of {t.shape[1]} "
                                f"bf16 elements are not a multiple of 16 "
                                f"bytes, as the kernels' TMA copies need")
        if addresses and (name == "b" or aligned_a) and t.data_ptr() % 16:
            raise ArgumentError(f"argument '{name}': its address "
                                f"{t.data_ptr():#x} is not 16-byte aligned, "
                                f"as the kernels' TMA copies need")


def _check_agreement(group, checks, refused=None):
    """Raises ArgumentError on every process of `group` unless all of them
    pass the same value for each of `checks`, (argument, what, value)
    triples such as ("a", "rows", 4096), and none of them refused its
    arguments: `refused` is this process's own ArgumentError, if any,
    which the others learn of here instead of waiting for this process
    forever. A collective, so called only where every process of the group
    is: where an op first uses a shape, whose state (the symmetric
    buffers) the processes make together. A process with other shapes
    would otherwise have its peers write past its buffers, or wait for it
    forever."""
    every = _gathered(group, ([value for _, _, value in checks],
                              None if refused is None else str(refused)))
    if refused is not None:
        raise refused
    for r, (_, message) in enumerate(every):
        if message is not None:
            raise ArgumentError(f"process {r} of the group refused its "
                                f"arguments: {message}")
    for i, (name, what, _) in enumerate(checks):
        seen = [values[i] for values, _ in every]
        if len(set(seen)) > 1:
            each = ", ".join(f"rank {r}: {v}" for r, v in enumerate(seen))
            raise ArgumentError(f"argument '{name}': the processes of the "
                                f"group pass different {what} ({each}); "
                                f"every process must pass the same")


def _refusal(check, a, b, *args):
    """The ArgumentError `check(a, b, *args)` raises, or None: kept for a
    shape's first call to share with the group (_check_agreement). Raised
    at once when `a` or `b` is not a tensor of at least two dimensions,
    which gives no shape to look the op's state up by."""
    try:
        check(a, b, *args)
    except ArgumentError as error:
        if not all(isinstance(t, torch.Tensor) and t.dim() >= 2
                   for t in (a, b)):
            raise
        return error
    return None


def gemm_reduce_scatter(a, b, group=None):
    """This process's rows of the sum over `group` (default: the world) of
    a @ b: [M / world, N], bf16 (f32 accumulation per device; the partial
    sums are added in bf16, as NCCL's bf16 reduce-scatter adds them).
    Collective: every process of the group calls it with its shard, `a`
    of the same number of rows and `b` of the same number of columns on
    every process (the contraction's share may differ). A shape's first
    call checks that across the group and raises ArgumentError on every
    process if not; later calls trust it. A torch custom op
    (torch.ops.tk_mlir.gemm_reduce_scatter, the group by name), forward
    only."""
    if _direct(a, b):
        try:
            return gemm_reduce_scatter_impl(a, b, group)
        except _Transformed:
            pass   # (functorch's tensors: the op, below)
    refuse_tangents("ops.tensor_parallel.gemm_reduce_scatter", a, b)
    return torch.ops.tk_mlir.gemm_reduce_scatter(a, b,
                                                 _group(group).group_name)


def _direct(a, b):
    """Whether a call runs its implementation directly: not while
    torch.compile traces it, `a` and `b` plain tensors (or parameters;
    fake and functional tensors take the op), no gradient wanted from
    them, no jit tracing or torch function or dispatch mode (which must
    see the op); also when `a` or `b` is not a tensor at all, so that the
    implementation's checks name it (no check comes before the op: the
    implementation's argument checks are shared with the group on a
    shape's first call, so that a refusal reaches every process).
    Inside forward-mode AD's dual levels the call takes the op's way,
    where refuse_tangents raises for a tangent. Functorch's tensors are
    not asked about per call, as tracing.direct asks for the other
    families: every host step before a call's first queued operation is
    GPU idle time when the call is timed alone. Against calls that ask
    nothing, interleaved in the benchmark's pattern (4 x H200; M = 8192
    and 16384, N = K = 8192, and N = 28672), tracing.direct's questions
    made the calls 0.014-0.037 ms longer, these (without the dual-level
    read) 0.002-0.025 ms. Functorch's tensors (torch.vmap, torch.func)
    are found instead where a call meets tensors it has not checked,
    before it queues anything (_Transformed), and take the op from
    there."""
    if torch.compiler.is_compiling():
        return False
    found = probes()
    if type(a) not in found.plain or type(b) not in found.plain:
        return not (isinstance(a, torch.Tensor) and
                    isinstance(b, torch.Tensor))
    if (a.requires_grad or b.requires_grad) and torch.is_grad_enabled():
        return False
    return not found.active() and found.forward_ad() < 0


class _Transformed(Exception):
    """Raised by a direct call that meets functorch's tensors (torch.vmap,
    torch.func transforms), which have no storage to launch on: the call
    goes through the op instead, whose dispatch handles them (torch.vmap
    runs it once per batch element)."""


def _refuse_transformed(a, b):
    """Raises _Transformed when `a` or `b` is a functorch tensor: asked
    only where a call meets tensors of a signature it has not checked, so
    that the checked calls' path asks nothing more."""
    wrapped = _lookup(torch, "_C._functorch.is_functorch_wrapped_tensor")
    if wrapped is not None and any(isinstance(t, torch.Tensor) and wrapped(t)
                                   for t in (a, b)):
        raise _Transformed()


def _group(group):
    """`group`, or the world's group for None."""
    import torch.distributed as dist
    group = group or dist.group.WORLD
    if group is None:
        raise RuntimeError("tensor_parallel: no process group; call "
                           "torch.distributed.init_process_group first")
    return group


def group_named(name):
    """The process group whose group_name is `name` (the torch ops take
    groups by name)."""
    from torch.distributed.distributed_c10d import _resolve_process_group
    return _resolve_process_group(name)


def check_fake(a, b, group_name, split):
    """The ops' argument checks on tensors without storage (the fake
    implementations of the torch ops): the shape of the result."""
    import torch.distributed as dist
    world = dist.get_world_size(group_named(group_name))
    _check(a, b, world, split, addresses=False)
    if split == "rows":
        return a.shape[0] // world, b.shape[1]
    return a.shape[0] * world, b.shape[1]


def gemm_reduce_scatter_impl(a, b, group=None):
    """What torch.ops.tk_mlir.gemm_reduce_scatter runs (with the group
    resolved from its name)."""
    cuda = _driver()
    device = cuda.current_device()
    comm, launch = _scatters.get(
        (group, device, _signature(a, b)),
        lambda: _prepare_scatter(a, b, group, device))
    stream = cuda.current_stream(device)
    capturing = _capturing()
    with cuda.Queue(device) as queue:
        comm.last_use.wait(queue, stream, capturing)
        try:
            queue.zero(stream, comm.address, comm.zeroed)
            launch(stream=stream)
            return comm.output.local.clone()
        finally:
            # (Also when the launch or the copy failed: the zero, and the
            # buffer, are this stream's now.)
            comm.last_use.record(queue, stream, capturing)


def _prepare_scatter(a, b, group, device):
    """A gemm_reduce_scatter call's (communicator, prepared launch), after
    its arguments are checked."""
    import torch.distributed as dist
    _refuse_transformed(a, b)
    group = group or dist.group.WORLD
    world = dist.get_world_size(group)
    refused = _refusal(_check, a, b, world)
    rows, cols = a.shape[0] // world, b.shape[1]
    # (By a's own rows: rows that do not split must not find the state of
    # a shape that does, so that the refusal reaches the group.)
    key = (group.group_name, device, a.shape[0], cols)
    comm = _communicators.get(key)
    if comm is None:
        _not_capturing("gemm_reduce_scatter")
        # (The contraction's shards may differ: each device's products are
        # its own.)
        _check_agreement(group, [("a", "rows", a.shape[0]),
                                 ("b", "columns", cols)], refused)
        comm = _Communicator(group, world, rows, cols)
    elif refused is not None:
        raise refused
    launch = failure = None
    try:
        kernel = _load(PROGRAM, _ARG_NAMES)
        a3 = a.view(world, rows, a.shape[1])
        launch = kernel.prepare(a3, b, comm.output, comm.flags, 0)
    except Exception as error:
        if comm.blocks is not None:
            raise
        failure = error   # (the group learns of it below)
    if comm.blocks is None:
        # Each device's grid fits its own multiprocessors: every launch
        # waits for the sum over the group (each block of each device adds
        # one to every device's counters).
        grids = _gathered(group, launch.grid if failure is None else
                          (type(failure).__name__, str(failure)))
        if failure is not None:
            raise failure
        for r, grid in enumerate(grids):
            if not isinstance(grid, int):
                kind = (ArgumentError if grid[0] == "ArgumentError" else
                        RuntimeError)
                raise kind(f"process {r} of the group could not prepare "
                           f"its launch: {grid[1]}")
        comm.blocks = sum(grids)
        _communicators[key] = comm
    launch.set({"total": comm.blocks})
    return comm, launch


def _gathered(group, value):
    """`value` of every process of `group`, in rank order."""
    import torch.distributed as dist
    every = [None] * dist.get_world_size(group)
    dist.all_gather_object(every, value, group=group)
    return every


# Checked gemm_reduce_scatter calls by group, device and _signature.
_scatters = _Cache()


class _Gather:
    """What a group's all_gather_gemm launches of one shard shape share:
    the gathered A in symmetric memory (each device pushes its rows into
    every peer's copy; a device's own rows there are used only when its
    `a` is not aligned for TMA), the per-shard arrival flags the kernel
    waits on (`arrived[q]`: 1 once shard q of the call is in place, written
    by q's stream; this device's stream clears them after its kernel), the
    handshake `done[q]` (1: device q's kernel of the last call has read its
    gathered A, so this device may overwrite its rows there; this device's
    push clears it), the stream the pushes run on, its events and the
    kernel's prepared launches. Every call queues the same operations with
    the same values, so a captured CUDA graph can replay them. The
    addresses a call's queued operations use are worked out once here."""

    def __init__(self, group, rows, cols):
        import torch.distributed as dist
        self.world = world = dist.get_world_size(group)
        self.rank = rank = dist.get_rank(group)
        self.rows = rows
        self.bytes = rows * cols * 2   # one shard, bf16
        self.gathered = symmetric_empty((world * rows, cols),
                                        torch.bfloat16, group)
        self.arrived = symmetric_empty((world,), torch.int32, group)
        self.done = symmetric_empty((world,), torch.int32, group)
        # The pushes' own stream: torch.cuda.Stream() hands out PyTorch's
        # pooled streams (32 per device) in turn, so it may be the caller's
        # (a CUDA graph's capture stream is one), and with the kernel
        # queued before the pushes on one stream each device's kernel would
        # wait for pushes queued behind a peer's kernel.
        device = _driver().current_device()
        self.stream = torch.cuda.ExternalStream(
            _driver().create_stream(device))
        # The own shard is ready (on the caller's stream); the pushes are
        # done.
        self._events, (self.ready, self.pushed) = _raw_events(2)
        # (Until its kernel and its pushes are done, a call uses this
        # device's rows of the gathered A, which it writes, reads and pushes
        # when `a` is not aligned for TMA.)
        self.last_use = _last_use(device)
        _set_everywhere(group, self.arrived)
        _set_everywhere(group, self.done, value=1)
        word = 4   # bytes of a flag
        here = self.gathered.local.data_ptr()
        # Where each shard is read from on this device (the own one is
        # replaced by `a`'s address per call).
        self.shards = [here + q * self.bytes for q in range(world)]
        # The pushes, to device rank - 1 first, then rank - 2, ... so that
        # device q receives from q + 1 first, then q + 2, the order its tile
        # loop takes the shards in: (the peer's `done` word of this device
        # to wait for, where the rows go, the peer's `arrived` word).
        self.pushes = []
        for k in range(1, world):
            q = (rank - k) % world
            self.pushes.append((self.done.local.data_ptr() + word * q,
                                self.gathered.addresses[q] + rank * self.bytes,
                                self.arrived.addresses[q] + word * rank))
        self.arrivals = self.arrived.local.data_ptr()
        self.own_arrived = self.arrivals + word * rank
        self.peer_arrived = [self.arrivals + word * q for q in range(world)
                             if q != rank]
        self.done_at = [self.done.addresses[q] + word * rank
                        for q in range(world) if q != rank]
        self.launches = _Cache()

    def finish(self, queue, main, capturing, launched=True):
        """Queues the end of a call on the caller's stream `main`, after
        its kernel: this device's gathered A is read, so its arrival flags
        are cleared for the next call and the peers may push the next
        call's rows (`done`); the caller's later work waits for the pushes
        (it may reuse `a`), and a call on another stream for all of this
        one. Without a kernel (its launch failed) it first waits for the
        peers' pushes of this call, whose flags must not outlive the
        clearing."""
        if not launched:
            for arrived in self.peer_arrived:
                queue.wait_value(main, arrived, 1)
        queue.zero(main, self.arrivals, 4 * self.world)
        for done in self.done_at:
            queue.write_value(main, done, 1)
        queue.record(self.stream.cuda_stream, self.pushed)
        queue.wait_event(main, self.pushed)
        self.last_use.record(queue, main, capturing)

    def push(self, queue, source):
        """Queues the pushes of the shard at `source` on the side stream
        (which first waits for the `ready` event, recorded on the caller's
        stream): each waits until the peer's kernel of the last call has
        read the rows it overwrites and clears that handshake; the copy
        engines' write of `arrived` follows the copy."""
        side = self.stream.cuda_stream
        queue.wait_event(side, self.ready)
        for done, to, arrived in self.pushes:
            queue.wait_value(side, done, 1)
            queue.write_value(side, done, 0)
            queue.copy(side, to, source, self.bytes)
            queue.write_value(side, arrived, 1)


_gathers = {}


class _Blocks:
    """What a group's all_gather_gemm(communicate="blocks") launches of one
    shard shape share: the gathered A in symmetric memory, the per-chunk
    arrival counters (`arrived[q * tiles + m]`: 128-row chunk m of shard q
    of the epoch is in place; this device's own stay 0) and the barrier
    counters of the communicating blocks, with their running total."""

    def __init__(self, group, rows, cols):
        import torch.distributed as dist
        self.world = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        self.gathered = symmetric_empty((self.world, rows, cols),
                                        torch.bfloat16, group)
        chunks = self.world * (-(-rows // 128))
        self.arrived = symmetric_empty((chunks,), torch.int32, group)
        self.sync = symmetric_empty((2,), torch.int32, group)
        _set_everywhere(group, self.arrived, self.sync)
        self.epoch = 0
        self.total = 0
        # (Until its kernel is done, a call uses this device's rows of the
        # gathered A, which the peers read, and the counters.)
        self.last_use = _last_use(_driver().current_device())


_blocks = {}


def _all_gather_gemm_blocks(a, b, g, device):
    cuda = _driver()
    if _capturing():
        raise ArgumentError("argument 'communicate': 'blocks' cannot be "
                            "captured in a CUDA graph (each call passes new "
                            "counter totals); 'copy_engines' can")
    rows, world = a.shape[0], g.world
    kernel = _load(BLOCKS_PROGRAM, _BLOCKS_ARG_NAMES)
    main = cuda.current_stream(device)
    with cuda.Queue(device) as queue:
        g.last_use.wait(queue, main)
        try:
            # This device's rows, before the launch; the kernel's start
            # barrier tells the peers they are in place, its end barrier
            # that all of them pulled them (so the next call may overwrite
            # them).
            g.gathered.local[g.rank].copy_(a)
            out = torch.empty(world, rows, b.shape[1], dtype=torch.bfloat16,
                              device=a.device)
            # Every communicating block of every device adds one to each
            # device's barrier counters. (Kept once the launch is queued: a
            # refused one leaves them for the call's retry.)
            epoch = g.epoch + 1
            total = g.total + world * kernel.spec.communication_blocks
            kernel(g.gathered, b, out, g.arrived, g.sync, _int32(epoch),
                   _int32(total), _int32(total))
            g.epoch, g.total = epoch, total
        finally:
            g.last_use.record(queue, main)
    return out.view(world * rows, b.shape[1])


def all_gather_gemm(a, b, group=None, communicate="copy_engines"):
    """A @ b, A gathered over `group` (default: the world) from every
    process's rows `a` [M / world, K]; `b` [K, N / world]: [M, N / world],
    bf16 (f32 accumulation). Collective: every process of the group calls
    it with its shards, `a` of the same shape on every process (`b` may
    have its own columns); a shape's first call checks that across the
    group and raises ArgumentError on every process if not, later calls
    trust it. `communicate`: who moves
    the shards, "copy_engines" (pushes beside the kernel) or "blocks" (the
    kernel's own communicating blocks; slower). A torch custom op
    (torch.ops.tk_mlir.all_gather_gemm, the group by name), forward
    only."""
    if communicate not in ("copy_engines", "blocks"):
        raise ArgumentError(f"argument 'communicate': expected "
                            f"'copy_engines' or 'blocks', got "
                            f"{communicate!r}")
    if _direct(a, b):
        try:
            return all_gather_gemm_impl(a, b, group, communicate)
        except _Transformed:
            pass   # (functorch's tensors: the op, below)
    refuse_tangents("ops.tensor_parallel.all_gather_gemm", a, b)
    return torch.ops.tk_mlir.all_gather_gemm(a, b, _group(group).group_name,
                                             communicate)


def all_gather_gemm_impl(a, b, group=None, communicate="copy_engines"):
    """What torch.ops.tk_mlir.all_gather_gemm runs (with the group
    resolved from its name)."""
    cuda = _driver()
    device = cuda.current_device()
    g, world, group = _gathers_checked.get(
        (group, device, communicate, _signature(a, b)),
        lambda: _prepare_gather(a, b, group, device, communicate))
    if communicate == "blocks":
        return _all_gather_gemm_blocks(a, b, g, device)
    rows = a.shape[0]
    # The kernel reads the shards through one view per shard: the peers'
    # in the gathered A, this device's own where the caller keeps it (no
    # copy before the launch), unless `a` is not 16-byte aligned as TMA
    # needs: then its rows of the gathered A, copied there first, are also
    # what the pushes copy from.
    own = a
    if a.data_ptr() % 16:
        own = g.gathered.local[g.rank * rows:(g.rank + 1) * rows]
    main = cuda.current_stream(device)
    capturing = _capturing()
    # The pushes (once the own shard is ready on the caller's stream) or
    # the kernel first, whichever bounds the call (KERNEL_FIRST_COLUMNS);
    # `arrived[rank]` says the own shard is ready.
    kernel_first = _kernel_first(b.shape[1])
    launched = False
    with cuda.Queue(device) as queue:
        g.last_use.wait(queue, main, capturing)
        if own is not a:
            own.copy_(a)
        queue.record(main, g.ready)
        if not kernel_first:
            g.push(queue, own.data_ptr())
        try:
            out = torch.empty(world * rows, b.shape[1],
                              dtype=torch.bfloat16, device=a.device)

            def prepare():
                addresses = list(g.shards)
                addresses[g.rank] = own.data_ptr()
                kernel = _load(GATHER_PROGRAM, _GATHER_ARG_NAMES)
                return kernel.prepare(DeviceViews(own, addresses, g.rank),
                                      b, out.view(world, rows, b.shape[1]),
                                      g.arrived.local, 1)
            # (Prepared once per own shard, `b` and output address.)
            launch = g.launches.get((own.data_ptr(), b.data_ptr(),
                                     b.shape[1], out.data_ptr()), prepare)
            queue.write_value(main, g.own_arrived, 1)
            launch(stream=main)
            launched = True
        finally:
            # Also when the output or the launch failed: the peers' kernels
            # of this call wait for this device's shard, and their next
            # pushes for its `done`, so the call completes its part of the
            # exchange before it raises.
            if kernel_first:
                g.push(queue, own.data_ptr())
            g.finish(queue, main, capturing, launched)
            # (The pushes read `a` on the side stream. Marked after they
            # are queued: every host step before the first push delays it.
            # A captured call's `a` is the graph's to keep.)
            if not capturing:
                a.record_stream(g.stream)
    return out


def _prepare_gather(a, b, group, device, communicate):
    """An all_gather_gemm call's (state of its form, _Gather or _Blocks;
    world size; group), after its arguments are checked."""
    import torch.distributed as dist
    _refuse_transformed(a, b)
    group = group or dist.group.WORLD
    world = dist.get_world_size(group)
    refused = _refusal(_check, a, b, world, "none")
    states, make = ((_blocks, _Blocks) if communicate == "blocks" else
                    (_gathers, _Gather))
    rows, cols = a.shape[0], a.shape[1]
    key = (group.group_name, device, rows, cols)
    g = states.get(key)
    if g is None:
        _not_capturing("all_gather_gemm")
        # (Each process may hold its own number of B's columns.)
        _check_agreement(group, [("a", "rows", rows), ("a", "columns", cols)],
                         refused)
        g = states[key] = make(group, rows, cols)
    elif refused is not None:
        raise refused
    return g, world, group


# Checked all_gather_gemm calls by group, device, form and _signature.
_gathers_checked = _Cache()


if REGISTERED:
    # The torch custom ops (tk_mlir.torch_ops registers the other families'),
    # the group by name as torch's functional collectives take it.
    from torch import Tensor

    @torch.library.custom_op("tk_mlir::gemm_reduce_scatter", mutates_args=(),
                             device_types="cuda")
    def _gemm_reduce_scatter_op(a: Tensor, b: Tensor,
                                group_name: str) -> Tensor:
        refuse_tangents("ops.tensor_parallel.gemm_reduce_scatter", a, b)
        return gemm_reduce_scatter_impl(a, b, group_named(group_name))

    @_gemm_reduce_scatter_op.register_fake
    def _(a, b, group_name):
        return a.new_empty(check_fake(a, b, group_name, "rows"))

    _gemm_reduce_scatter_op.register_autograd(
        forward_only("ops.tensor_parallel.gemm_reduce_scatter"),
        setup_context=keep_nothing)

    @torch.library.custom_op("tk_mlir::all_gather_gemm", mutates_args=(),
                             device_types="cuda")
    def _all_gather_gemm_op(a: Tensor, b: Tensor, group_name: str,
                            communicate: str) -> Tensor:
        refuse_tangents("ops.tensor_parallel.all_gather_gemm", a, b)
        return all_gather_gemm_impl(a, b, group_named(group_name),
                                    communicate)

    @_all_gather_gemm_op.register_fake
    def _(a, b, group_name, communicate):
        return a.new_empty(check_fake(a, b, group_name, "none"))

    _all_gather_gemm_op.register_autograd(
        forward_only("ops.tensor_parallel.all_gather_gemm"),
        setup_context=keep_nothing)
