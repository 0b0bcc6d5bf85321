"""The tensor-parallel ops' queued operations on the CPU: torch,
torch.distributed, the symmetric buffers and tk_mlir.cuda_driver's stream
operations replaced by recorders. all_gather_gemm: the order of what one
call queues in each of its two orders (pushes or kernel first), the same
operations and values on every call (what a CUDA graph replays), for an
`a` not 16-byte aligned, and when its launch cannot be prepared (the call
still queues its part of the exchange, then raises); which calls check
their arguments. gemm_reduce_scatter: the zero, the launch, the copy-out
and the buffer's last use, the same on every call, a call on another
stream, a refused launch and a failed copy-out. Under a capture neither
op waits for or marks its last use on other streams, and the
communicating-blocks form refuses. Every state of a device shares its last
use; the all-gather's pushes get a stream of their own."""
import os
import sys
import types

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import tk_mlir  # noqa: E402
from tk_mlir.ops import tensor_parallel as tp  # noqa: E402

WORLD, RANK, ROWS, COLS = 4, 1, 256, 512
MAIN, SIDE = 0x100, 0x200
GATHERED = 0x10_0000_0000   # this device's gathered A
BYTES = ROWS * COLS * 2


class Matrix:
    """Just enough of a CUDA bf16 matrix for the op's bookkeeping."""

    device = "cuda:0"

    def __init__(self, shape, ptr, log=None):
        self.shape, self._ptr, self._log = tuple(shape), ptr, log

    def data_ptr(self):
        return self._ptr

    def record_stream(self, stream):
        pass

    def view(self, *shape):
        return Matrix(shape, self._ptr)

    def copy_(self, source):
        self._log.append(("copy_", self._ptr, source.data_ptr()))


class Rows:
    """The gathered A's local tensor: a row slice is the own shard."""

    def __init__(self, log):
        self._log = log

    def __getitem__(self, rows):
        return Matrix((rows.stop - rows.start, COLS),
                      GATHERED + rows.start * COLS * 2, self._log)


class Group:
    """A process group (hashable, as torch's are)."""

    group_name = "world"


class Queue:
    """cuda_driver.Queue writing each stream operation into a log."""

    def __init__(self, log):
        self._log = log

    def __call__(self, device):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *error):
        return False

    def __getattr__(self, name):
        return lambda *args: self._log.append((name,) + args)


def last_use():
    """A _LastUse whose event is the string "last use", no stream yet."""
    use = object.__new__(tp._LastUse)
    use._event, use._stream = "last use", None
    return use


@pytest.fixture
def op(monkeypatch):
    """all_gather_gemm with recorders; returns (call, log, gather state):
    call(a, b, refuse=False, capturing=False, on=MAIN): `prepare` raises
    with refuse, the stream is a capturing one with capturing, `on` is the
    caller's stream."""
    log, capture, stream = [], [], [MAIN]
    torch = types.ModuleType("torch")
    torch.bfloat16 = "bf16"
    torch._C = types.SimpleNamespace(
        _cuda_isCurrentStreamCapturing=lambda: bool(capture))
    outputs = iter(range(0x20_0000_0000, 0x30_0000_0000, 0x1000_0000))
    torch.empty = lambda *shape, dtype, device: Matrix(shape, next(outputs))
    dist = types.ModuleType("torch.distributed")
    dist.group = types.SimpleNamespace(WORLD=Group())
    dist.get_world_size = lambda group: WORLD
    torch.distributed = dist
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.distributed", dist)
    monkeypatch.setattr(tp, "torch", torch)
    monkeypatch.setattr(tp, "_check", lambda *args, **kwargs: None)
    monkeypatch.setattr(tp, "_direct", lambda a, b: True)
    monkeypatch.setattr(tp, "_signature", lambda a, b: (a.data_ptr(),
                                                        b.data_ptr()))
    monkeypatch.setattr(tp, "_gathers_checked", tp._Cache())
    driver = types.ModuleType("tk_mlir.cuda_driver")
    driver.Queue = Queue(log)
    driver.current_stream = lambda device: stream[0]
    driver.current_device = lambda: 0
    monkeypatch.setitem(sys.modules, "tk_mlir.cuda_driver", driver)
    monkeypatch.setattr(tk_mlir, "cuda_driver", driver, raising=False)
    monkeypatch.setattr(tp, "_cuda", None)

    g = object.__new__(tp._Gather)
    g.world, g.rank, g.rows, g.bytes = WORLD, RANK, ROWS, BYTES
    g.gathered = types.SimpleNamespace(local=Rows(log))
    g.arrived = types.SimpleNamespace(local="arrived")
    g.stream = types.SimpleNamespace(cuda_stream=SIDE)
    g.ready, g.pushed = "ready", "pushed"
    g.last_use = last_use()
    g.shards = [GATHERED + q * BYTES for q in range(WORLD)]
    peers = [(RANK - k) % WORLD for k in range(1, WORLD)]
    g.pushes = [(f"done[{q}]", f"A of {q}", f"arrived of {q}") for q in peers]
    g.arrivals, g.own_arrived = "arrivals", "own arrived"
    g.peer_arrived = [f"arrived[{q}]" for q in range(WORLD) if q != RANK]
    g.done_at = [f"done at {q}" for q in peers]
    g.launches = tp._Cache()
    monkeypatch.setitem(tp._gathers, ("world", 0, ROWS, COLS), g)

    class Kernel:
        def prepare(self, views, b, out, arrived, epoch):
            assert views.addresses[RANK] == views.local.data_ptr()
            return lambda stream: log.append(("launch", stream, epoch))
    refused = []

    def load_compiled(*args):
        if refused:
            raise RuntimeError("no kernel")
        return Kernel()
    monkeypatch.setattr(tp, "load_compiled", load_compiled)

    def call(a, b, refuse=False, capturing=False, on=MAIN):
        refused[:] = [True] if refuse else []
        capture[:] = [True] if capturing else []
        stream[0] = on
        return tp.all_gather_gemm(a, b)
    return call, log, g


def first(log, *name):
    """Index of the first entry that starts with `name`."""
    return next(i for i, entry in enumerate(log)
                if entry[:len(name)] == name)


def entries(log, name):
    return [i for i, entry in enumerate(log) if entry[0] == name]


A = Matrix((ROWS, COLS), 0x1000)
FEW = Matrix((COLS, tp.KERNEL_FIRST_COLUMNS - 8), 0x2000)
MANY = Matrix((COLS, tp.KERNEL_FIRST_COLUMNS), 0x3000)


# After the kernel: the arrival flags cleared, the done writes, the wait
# for the pushes, the event a call on another stream waits for.
END = [("zero", MAIN, "arrivals", 4 * WORLD),
       ("write_value", MAIN, "done at 0", 1),
       ("write_value", MAIN, "done at 3", 1),
       ("write_value", MAIN, "done at 2", 1),
       ("record", SIDE, "pushed"), ("wait_event", MAIN, "pushed"),
       ("record", MAIN, "last use")]


def test_pushes_go_first_below_the_column_threshold(op):
    call, log, _ = op
    call(A, FEW)
    launch = first(log, "launch")
    # The own shard is ready on the caller's stream, the side stream waits
    # for it, then the three pushes, each after the peer's done (cleared
    # for the next call) and with its arrival write.
    assert first(log, "record", MAIN, "ready") < first(
        log, "wait_event", SIDE, "ready") < min(entries(log, "copy"))
    assert [e for e in log if e[1] == SIDE and e[0] != "wait_event"
            and e[0] != "record"] == [
        entry for q in (0, 3, 2) for entry in (
            ("wait_value", SIDE, f"done[{q}]", 1),
            ("write_value", SIDE, f"done[{q}]", 0),
            ("copy", SIDE, f"A of {q}", A.data_ptr(), BYTES),
            ("write_value", SIDE, f"arrived of {q}", 1))]
    assert max(entries(log, "copy")) < launch
    assert log[launch - 1] == ("write_value", MAIN, "own arrived", 1)
    assert log[launch] == ("launch", MAIN, 1)
    assert log[launch + 1:] == END


def test_the_kernel_goes_first_from_the_column_threshold(op):
    call, log, _ = op
    call(A, MANY)
    launch = first(log, "launch")
    assert first(log, "record", MAIN, "ready") < launch
    assert launch < first(log, "wait_event", SIDE, "ready") < min(
        entries(log, "copy"))
    assert len(entries(log, "copy")) == WORLD - 1
    assert max(entries(log, "copy")) < first(log, "zero", MAIN)
    assert log[-len(END):] == END


@pytest.mark.parametrize("b", [FEW, MANY], ids=["pushes first",
                                                "kernel first"])
def test_every_call_queues_the_same_operations(op, b):
    call, log, _ = op
    call(A, b)
    # (The first call's wait for the last use, on no stream yet.)
    assert log[0] == ("wait_event", MAIN, "last use")
    once = log[1:]
    for _ in range(2):
        del log[:]
        call(A, b)
        assert log == once


@pytest.mark.parametrize("b", [FEW, MANY], ids=["pushes first",
                                                "kernel first"])
def test_a_captured_call_leaves_the_last_use_alone(op, b):
    call, log, g = op
    call(A, b)
    del log[:]
    # On another stream than the last call's: a direct call would wait for
    # the last use first.
    call(A, b, capturing=True, on=OTHER)
    # The same exchange, without the wait for and the record of the last
    # use (its event was recorded outside the capture).
    assert "last use" not in [e[-1] for e in log]
    assert log[0] == ("record", OTHER, "ready")
    assert log[-len(END) + 1:] == [(e[0], OTHER) + e[2:] if e[1] == MAIN
                                   else e for e in END[:-1]]
    assert g.last_use._stream == MAIN


def test_an_unaligned_a_is_pushed_from_its_aligned_copy(op):
    call, log, _ = op
    unaligned = Matrix((ROWS, COLS), 0x1002)
    own = GATHERED + RANK * BYTES
    for b in (FEW, MANY):
        del log[:]
        call(unaligned, b)
        assert first(log, "copy_", own, 0x1002) < first(
            log, "record", MAIN, "ready")
        assert {e[3] for e in log if e[0] == "copy"} == {own}


@pytest.mark.parametrize("b", [FEW, MANY], ids=["pushes first",
                                                "kernel first"])
def test_a_call_whose_launch_fails_still_does_its_part(op, b):
    call, log, g = op
    with pytest.raises(RuntimeError, match="no kernel"):
        call(A, b, refuse=True)
    # No kernel, but the peers get this device's shard (their kernels wait
    # for it) and its done writes (their next pushes wait for them); the
    # flags are cleared once the peers' shards of this call are here.
    assert not entries(log, "launch")
    assert len(entries(log, "copy")) == WORLD - 1
    waits = [("wait_value", MAIN, f"arrived[{q}]", 1)
             for q in range(WORLD) if q != RANK]
    assert log[-len(END) - len(waits):] == waits + END
    # The next call is a call like any other.
    del log[:]
    call(A, b)
    assert ("launch", MAIN, 1) in log and log[-len(END):] == END


def test_tensors_of_a_checked_signature_are_not_checked_again(
        op, monkeypatch):
    call, log, _ = op
    checked = []
    monkeypatch.setattr(tp, "_check", lambda a, b, world, split: checked.append(
        (a.data_ptr(), b.data_ptr(), world, split)))
    call(A, FEW)
    call(A, FEW)
    assert checked == [(A.data_ptr(), FEW.data_ptr(), WORLD, "none")]
    call(A, MANY)
    assert checked[1:] == [(A.data_ptr(), MANY.data_ptr(), WORLD, "none")]
    assert len(entries(log, "launch")) == 3


class Tensor:
    """What _signature reads of a tensor."""

    def __init__(self, ptr=0x1000, shape=(4, 8), stride=(8, 1),
                 dtype="bf16", device="cuda:0"):
        self._ptr, self.shape, self._stride = ptr, shape, stride
        self.dtype, self.device = dtype, device

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._stride


class Sparse(Tensor):
    def data_ptr(self):
        raise RuntimeError("a sparse tensor has no data pointer")


def test_the_signature_holds_everything_the_checks_read(monkeypatch):
    monkeypatch.setattr(tp, "torch", types.SimpleNamespace(Tensor=Tensor))
    base = tp._signature(Tensor(), Tensor(0x2000))
    assert base == tp._signature(Tensor(), Tensor(0x2000))
    for change in (dict(ptr=0x1010), dict(shape=(4, 16)),
                   dict(stride=(1, 4)), dict(dtype="f32"),
                   dict(device="cuda:1")):
        assert tp._signature(Tensor(**change), Tensor(0x2000)) != base
        assert tp._signature(Tensor(), Tensor(**{"ptr": 0x2000,
                                                 **change})) != base
    # Not tensors, or tensors without storage: no signature (the checks
    # then run and say what is wrong).
    assert tp._signature("a", Tensor()) is None
    assert tp._signature(Tensor(), None) is None
    assert tp._signature(Sparse(), Tensor()) is None


OTHER = 0x300
OUTPUT = 0x40_0000_0000   # this device's symmetric output
GRID = 128


class Output:
    """The reduce-scatter's symmetric output: its clone is the result."""

    def __init__(self, log, fail):
        self._log, self._fail = log, fail

    def clone(self):
        self._log.append(("clone",))
        if self._fail:
            raise RuntimeError("out of memory")
        return "result"


@pytest.fixture
def scatter(monkeypatch):
    """gemm_reduce_scatter with recorders; returns (call, log, state):
    call(a, b, stream=MAIN, refuse=False, fail_copy=False,
    capturing=False), refuse making the launch raise, fail_copy the
    copy-out, capturing the stream a capturing one."""
    log, prepared, flags = [], [], {}
    torch = types.ModuleType("torch")
    torch._C = types.SimpleNamespace(
        _cuda_isCurrentStreamCapturing=lambda: flags["capturing"])
    monkeypatch.setattr(tp, "torch", torch)
    monkeypatch.setattr(tp, "_signature", lambda a, b: (a.data_ptr(),
                                                        b.data_ptr()))
    monkeypatch.setattr(tp, "_scatters", tp._Cache())
    monkeypatch.setattr(tp, "_direct", lambda a, b: True)
    driver = types.SimpleNamespace(Queue=Queue(log),
                                   current_device=lambda: 0,
                                   current_stream=lambda device:
                                   flags["stream"])
    monkeypatch.setattr(tp, "_cuda", driver)

    comm = object.__new__(tp._Communicator)
    comm.world, comm.address, comm.zeroed = WORLD, OUTPUT, ZEROED
    comm.blocks = BLOCKS
    comm.output = types.SimpleNamespace(local=Output(log, False))
    comm.last_use = last_use()

    class Launch:
        grid = GRID

        def __call__(self, stream):
            if flags["refuse"]:
                raise RuntimeError("launch refused")
            log.append(("launch", stream))

    def prepare(a, b, group, device):
        prepared.append((a.data_ptr(), b.data_ptr()))
        return comm, Launch()
    monkeypatch.setattr(tp, "_prepare_scatter", prepare)

    def call(a, b, stream=MAIN, refuse=False, fail_copy=False,
             capturing=False):
        flags.update(stream=stream, refuse=refuse, capturing=capturing)
        comm.output.local._fail = fail_copy
        return tp.gemm_reduce_scatter(a, b)
    return call, log, types.SimpleNamespace(comm=comm, prepared=prepared)


# Blocks every device starts per call, summed (each device's grid fits its
# own multiprocessors).
BLOCKS = GRID + (WORLD - 1) * (GRID - 18)
RS_A = Matrix((WORLD * ROWS, COLS), 0x5000)
RS_B = Matrix((COLS, 1024), 0x6000)
# The output and the barrier counter after it, zeroed by one memset.
ZEROED = BYTES + 4
CALL = [("zero", MAIN, OUTPUT, ZEROED), ("launch", MAIN), ("clone",),
        ("record", MAIN, "last use")]


def test_the_counters_follow_the_output_and_one_memset_spares_the_second(
        monkeypatch):
    # (An output of 200 x 1000 bf16: 400000 bytes, the counters at the
    # next multiple of 16.)
    made, filled = [], []

    class Local:
        def __init__(self, start=0, dtype="u8"):
            self.start, self.dtype = start, dtype

        def __getitem__(self, part):
            return Local(part.start or 0, self.dtype)

        def view(self, *shape):
            if len(shape) == 1 and isinstance(shape[0], str):
                return Local(self.start, shape[0])
            return self

        def data_ptr(self):
            return 0x7000_0000 + self.start

        def fill_(self, value):
            filled.append((self.start, self.dtype, value))

    def symmetric_empty(shape, dtype, group):
        made.append((shape, dtype))
        return types.SimpleNamespace(local=Local(),
                                     addresses=(0x7000_0000, 0x9000_0000),
                                     rank=0)

    class Views:
        def __init__(self, local, addresses, rank):
            self.local, self.addresses = local, tuple(addresses)
    monkeypatch.setattr(tp, "symmetric_empty", symmetric_empty)
    monkeypatch.setattr(tp, "DeviceViews", Views)
    monkeypatch.setattr(tp, "_cuda", types.SimpleNamespace(
        current_device=lambda: 0))
    monkeypatch.setattr(tp, "_last_uses", {})
    torch = types.ModuleType("torch")
    torch.uint8, torch.bfloat16, torch.int32 = "u8", "bf16", "i32"
    torch.cuda = types.SimpleNamespace(synchronize=lambda: None,
                                       Event=lambda: types.SimpleNamespace(
                                           record=lambda: None,
                                           cuda_event="event"))
    torch.distributed = types.ModuleType("torch.distributed")
    torch.distributed.barrier = lambda group: None
    monkeypatch.setattr(tp, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.distributed", torch.distributed)
    comm = tp._Communicator("group", 2, 200, 1000)
    assert made == [((400000 + 8,), "u8")]
    assert comm.bytes == 400000 and comm.output.local.dtype == "bf16"
    assert comm.output.addresses == (0x7000_0000, 0x9000_0000)
    assert (comm.flags.local.start, comm.flags.local.dtype) == (400000, "i32")
    assert comm.flags.addresses == (0x7000_0000 + 400000,
                                    0x9000_0000 + 400000)
    # Both counters zeroed once; each call's memset covers the output and
    # the barrier's counter (flags[0]), not the announcements (flags[1]).
    assert filled == [(400000, "i32", 0)]
    assert comm.address == 0x7000_0000 and comm.zeroed == 400000 + 4


def test_a_reduce_scatter_zeroes_its_output_then_launches(scatter):
    call, log, state = scatter
    assert call(RS_A, RS_B) == "result"
    # The first call waits for nothing of its own stream's but the last
    # use's event (no stream yet); every call zeroes the output before its
    # kernel, copies it out after, then marks the buffer's last use, the
    # same operations every time (what a CUDA graph replays).
    assert log == [("wait_event", MAIN, "last use")] + CALL
    for _ in range(2):
        del log[:]
        call(RS_A, RS_B)
        assert log == CALL
    assert state.prepared == [(RS_A.data_ptr(), RS_B.data_ptr())]


def test_a_reduce_scatter_on_another_stream_waits_for_the_last_use(scatter):
    call, log, _ = scatter
    call(RS_A, RS_B)
    del log[:]
    call(RS_A, RS_B, stream=OTHER)
    assert log[:2] == [("wait_event", OTHER, "last use"),
                       ("zero", OTHER, OUTPUT, ZEROED)]


def test_a_captured_reduce_scatter_leaves_the_last_use_alone(scatter):
    call, log, state = scatter
    call(RS_A, RS_B)
    del log[:]
    call(RS_A, RS_B, stream=OTHER, capturing=True)
    assert log == [("zero", OTHER, OUTPUT, ZEROED), ("launch", OTHER),
                   ("clone",)]
    assert state.comm.last_use._stream == MAIN


def test_a_refused_reduce_scatter_launch_is_retried_alike(scatter):
    call, log, state = scatter
    with pytest.raises(RuntimeError, match="launch refused"):
        call(RS_A, RS_B, refuse=True)
    # Its zero is queued: a call on another stream waits for it.
    assert log[-2:] == [("zero", MAIN, OUTPUT, ZEROED),
                        ("record", MAIN, "last use")]
    del log[:]
    call(RS_A, RS_B)
    assert log == CALL


def test_a_failed_copy_out_still_marks_the_last_use(scatter):
    call, log, state = scatter
    with pytest.raises(RuntimeError, match="out of memory"):
        call(RS_A, RS_B, fail_copy=True)
    assert log[-2:] == [("clone",), ("record", MAIN, "last use")]


@pytest.fixture
def blocks(monkeypatch):
    """all_gather_gemm(communicate="blocks")'s queued work with recorders;
    returns (call, log, state): call(stream=MAIN, refuse=False,
    capturing=False), refuse making the launch raise."""
    log, flags = [], {}
    torch = types.ModuleType("torch")
    torch.bfloat16 = "bf16"
    torch.empty = lambda *shape, dtype, device: Matrix(shape, 0x7000)
    torch._C = types.SimpleNamespace(
        _cuda_isCurrentStreamCapturing=lambda: flags["capturing"])
    monkeypatch.setattr(tp, "torch", torch)
    monkeypatch.setattr(tp, "_cuda", types.SimpleNamespace(
        Queue=Queue(log), current_device=lambda: 0,
        current_stream=lambda device: flags["stream"]))
    g = types.SimpleNamespace(world=WORLD, rank=RANK, epoch=0, total=0,
                              arrived="arrived", sync="sync")
    g.gathered = types.SimpleNamespace(local=[
        Matrix((ROWS, COLS), GATHERED + q * BYTES, log)
        for q in range(WORLD)])
    g.last_use = last_use()

    class Kernel:
        spec = types.SimpleNamespace(communication_blocks=16)

        def __call__(self, gathered, b, out, arrived, sync, epoch, started,
                     finished):
            if flags["refuse"]:
                raise RuntimeError("launch refused")
            log.append(("launch", epoch, started, finished))
    monkeypatch.setattr(tp, "load_compiled", lambda *args: Kernel())

    def call(stream=MAIN, refuse=False, capturing=False):
        flags.update(stream=stream, refuse=refuse, capturing=capturing)
        return tp._all_gather_gemm_blocks(A, FEW, g, 0)
    return call, log, g


def test_the_blocks_form_on_another_stream_waits_for_the_last_use(blocks):
    call, log, _ = blocks
    call()
    assert log == [("wait_event", MAIN, "last use"),
                   ("copy_", GATHERED + RANK * BYTES, A.data_ptr()),
                   ("launch", 1, WORLD * 16, WORLD * 16),
                   ("record", MAIN, "last use")]
    del log[:]
    call(stream=OTHER)
    # Its own rows of the gathered A, which the last call's kernel and the
    # peers' pulls read, are overwritten only after that call.
    assert log[:2] == [("wait_event", OTHER, "last use"),
                       ("copy_", GATHERED + RANK * BYTES, A.data_ptr())]


def test_a_refused_blocks_launch_keeps_its_epoch_and_totals(blocks):
    call, log, state = blocks
    with pytest.raises(RuntimeError, match="launch refused"):
        call(refuse=True)
    assert (state.epoch, state.total) == (0, 0)
    assert log[-1] == ("record", MAIN, "last use")
    call()
    assert ("launch", 1, WORLD * 16, WORLD * 16) in log
    assert (state.epoch, state.total) == (1, WORLD * 16)


def test_the_blocks_form_refuses_a_capture(blocks):
    call, log, state = blocks
    with pytest.raises(tp.ArgumentError, match="'blocks' cannot be captured"):
        call(capturing=True)
    assert log == [] and (state.epoch, state.total) == (0, 0)


def test_states_share_their_device_last_use_and_pushes_get_their_own_stream(
        monkeypatch):
    """Every state of a device (either op, any shape) orders its calls
    across streams through one _LastUse, so the ops' kernels on a device
    run in the order of the calls; another device has its own. The
    all-gather's pushes run on a stream the driver made, not one of
    PyTorch's pooled streams, which may be the caller's."""
    device, made_streams = [0], []

    class Local:
        def __getitem__(self, part):
            return self

        def view(self, *shape):
            return self

        def data_ptr(self):
            return 0x7000_0000

        def fill_(self, value):
            pass

    def symmetric_empty(shape, dtype, group):
        return types.SimpleNamespace(local=Local(), addresses=(0x7000_0000,
                                                               0x9000_0000),
                                     rank=0)

    class Stream:
        def __init__(self, handle):
            self.cuda_stream = handle

    def create_stream(on):
        made_streams.append(on)
        return 0xABC0 + on
    monkeypatch.setattr(tp, "symmetric_empty", symmetric_empty)
    monkeypatch.setattr(tp, "DeviceViews",
                        lambda local, addresses, rank: types.SimpleNamespace(
                            local=local, addresses=tuple(addresses)))
    monkeypatch.setattr(tp, "_set_everywhere", lambda group, *views,
                        value=0: None)
    monkeypatch.setattr(tp, "_last_uses", {})
    monkeypatch.setattr(tp, "_cuda", types.SimpleNamespace(
        current_device=lambda: device[0], create_stream=create_stream))
    torch = types.ModuleType("torch")
    torch.uint8, torch.bfloat16, torch.int32 = "u8", "bf16", "i32"
    torch.cuda = types.SimpleNamespace(
        ExternalStream=Stream,
        Event=lambda: types.SimpleNamespace(record=lambda: None,
                                            cuda_event=object()))
    torch.distributed = types.ModuleType("torch.distributed")
    torch.distributed.get_world_size = lambda group: 2
    torch.distributed.get_rank = lambda group: 0
    monkeypatch.setattr(tp, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.distributed", torch.distributed)
    states = [tp._Communicator("group", 2, 200, 1000),
              tp._Gather("group", 200, 1000), tp._Blocks("group", 200, 1000)]
    assert states[0].last_use is states[1].last_use is states[2].last_use
    assert made_streams == [0] and states[1].stream.cuda_stream == 0xABC0
    device[0] = 1
    other = tp._Gather("group", 200, 1000)
    assert other.last_use is not states[0].last_use
    assert made_streams == [0, 1] and other.stream.cuda_stream == 0xABC1

