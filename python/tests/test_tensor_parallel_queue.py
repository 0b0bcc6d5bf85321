"""The tensor-parallel ops' queued operations on the CPU: torch,
torch.distributed, the symmetric buffers and tk_mlir.cuda_driver's stream
operations replaced by recorders. all_gather_gemm: the order of what one
call queues in each of its two orders (pushes or kernel first), on a
second call, for an `a` not 16-byte aligned, and when its launch cannot
be prepared (the call still queues its part of the exchange, then
raises); which calls check their arguments. gemm_reduce_scatter: the
zero, the launch with the counters' totals (growing, wrapping as int32),
the copy-out and the buffer's last use, a call on another stream, a
refused launch (the total kept) and a failed copy-out."""
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
    call(a, b, refuse=False) makes `prepare` raise when refuse is set."""
    log = []
    torch = types.ModuleType("torch")
    torch.bfloat16 = "bf16"
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
    monkeypatch.setattr(tp, "_signature", lambda a, b: (a.data_ptr(),
                                                        b.data_ptr()))
    monkeypatch.setattr(tp, "_gathers_checked", tp._Cache())
    driver = types.ModuleType("tk_mlir.cuda_driver")
    driver.Queue = Queue(log)
    driver.current_stream = lambda device: MAIN
    driver.current_device = lambda: 0
    monkeypatch.setitem(sys.modules, "tk_mlir.cuda_driver", driver)
    monkeypatch.setattr(tk_mlir, "cuda_driver", driver, raising=False)
    monkeypatch.setattr(tp, "_cuda", None)

    g = object.__new__(tp._Gather)
    g.world, g.rank, g.rows, g.bytes, g.epoch = WORLD, RANK, ROWS, BYTES, 0
    g.gathered = types.SimpleNamespace(local=Rows(log))
    g.arrived = types.SimpleNamespace(local="arrived")
    g.stream = types.SimpleNamespace(cuda_stream=SIDE)
    g.ready, g.pushed = "ready", "pushed"
    g.last_use = last_use()
    g.shards = [GATHERED + q * BYTES for q in range(WORLD)]
    peers = [(RANK - k) % WORLD for k in range(1, WORLD)]
    g.pushes = [(f"done[{q}]", f"A of {q}", f"arrived of {q}") for q in peers]
    g.own_arrived = "own arrived"
    g.done_at = [f"done at {q}" for q in peers]
    g.launches = tp._Cache()
    monkeypatch.setitem(tp._gathers, ("world", 0, ROWS, COLS), g)

    class Kernel:
        def prepare(self, views, b, out, arrived, epoch):
            assert views.addresses[RANK] == views.local.data_ptr()
            return lambda scalars, stream: log.append(
                ("launch", stream, scalars["epoch"]))
    refused = []

    def load_compiled(*args):
        if refused:
            raise RuntimeError("no kernel")
        return Kernel()
    monkeypatch.setattr(tp, "load_compiled", load_compiled)

    def call(a, b, refuse=False):
        refused[:] = [True] if refuse else []
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


def test_pushes_go_first_below_the_column_threshold(op):
    call, log, _ = op
    call(A, FEW)
    launch = first(log, "launch")
    # The own shard is ready on the caller's stream, the side stream waits
    # for it, then the three pushes, each with its arrival write.
    assert first(log, "record", MAIN, "ready") < first(
        log, "wait_event", SIDE, "ready") < min(entries(log, "copy"))
    assert [e for e in log if e[0] in ("copy", "write_value")
            and e[1] == SIDE] == [
        entry for q in (0, 3, 2) for entry in (
            ("copy", SIDE, f"A of {q}", A.data_ptr(), BYTES),
            ("write_value", SIDE, f"arrived of {q}", 1))]
    assert max(entries(log, "copy")) < launch
    assert log[launch - 1] == ("write_value", MAIN, "own arrived", 1)
    assert log[launch] == ("launch", MAIN, 1)
    # After the kernel: the done writes, the wait for the pushes, the
    # event a call on another stream waits for.
    assert log[launch + 1:] == [
        ("write_value", MAIN, "done at 0", 1),
        ("write_value", MAIN, "done at 3", 1),
        ("write_value", MAIN, "done at 2", 1),
        ("record", SIDE, "pushed"), ("wait_event", MAIN, "pushed"),
        ("record", MAIN, "last use")]


def test_the_kernel_goes_first_from_the_column_threshold(op):
    call, log, _ = op
    call(A, MANY)
    launch = first(log, "launch")
    assert first(log, "record", MAIN, "ready") < launch
    assert launch < first(log, "wait_event", SIDE, "ready") < min(
        entries(log, "copy"))
    assert len(entries(log, "copy")) == WORLD - 1
    assert max(entries(log, "copy")) < first(log, "write_value", MAIN,
                                             "done at 0")


def test_a_later_push_waits_for_the_peers_last_kernel(op):
    call, log, g = op
    call(A, FEW)
    del log[:]
    call(A, MANY)
    for q in (0, 3, 2):
        wait = first(log, "wait_value", SIDE, f"done[{q}]", 1)
        assert log[wait + 1][:3] == ("copy", SIDE, f"A of {q}")
    assert ("launch", MAIN, 2) in log and g.epoch == 2


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
    # for it) and its done writes (their next pushes wait for them).
    assert not entries(log, "launch")
    assert len(entries(log, "copy")) == WORLD - 1
    assert [e for e in log if e[0] == "write_value" and e[1] == MAIN] == [
        ("write_value", MAIN, f"done at {q}", 1) for q in (0, 3, 2)]
    assert log[-3:] == [("record", SIDE, "pushed"),
                        ("wait_event", MAIN, "pushed"),
                        ("record", MAIN, "last use")]
    # The next call, on every device, is the next epoch.
    del log[:]
    call(A, b)
    assert ("launch", MAIN, 2) in log and g.epoch == 2


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
    call(a, b, stream=MAIN, refuse=False, fail_copy=False), refuse making
    the launch raise and fail_copy the copy-out."""
    log, prepared, flags = [], [], {}
    torch = types.ModuleType("torch")
    monkeypatch.setattr(tp, "torch", torch)
    monkeypatch.setattr(tp, "_signature", lambda a, b: (a.data_ptr(),
                                                        b.data_ptr()))
    monkeypatch.setattr(tp, "_scatters", tp._Cache())
    driver = types.SimpleNamespace(Queue=Queue(log),
                                   current_device=lambda: 0,
                                   current_stream=lambda device:
                                   flags["stream"])
    monkeypatch.setattr(tp, "_cuda", driver)

    comm = object.__new__(tp._Communicator)
    comm.world, comm.address, comm.bytes, comm.total = WORLD, OUTPUT, BYTES, 0
    comm.blocks = BLOCKS
    comm.output = types.SimpleNamespace(local=Output(log, False))
    comm.last_use = last_use()

    class Launch:
        grid = GRID

        def __call__(self, scalars, stream):
            if flags["refuse"]:
                raise RuntimeError("launch refused")
            log.append(("launch", stream, scalars["started"],
                        scalars["finished"]))

    def prepare(a, b, group, device):
        prepared.append((a.data_ptr(), b.data_ptr()))
        return comm, Launch()
    monkeypatch.setattr(tp, "_prepare_scatter", prepare)

    def call(a, b, stream=MAIN, refuse=False, fail_copy=False):
        flags.update(stream=stream, refuse=refuse)
        comm.output.local._fail = fail_copy
        return tp.gemm_reduce_scatter(a, b)
    return call, log, types.SimpleNamespace(comm=comm, prepared=prepared)


# Blocks every device starts per call, summed (each device's grid fits its
# own multiprocessors).
BLOCKS = GRID + (WORLD - 1) * (GRID - 18)
RS_A = Matrix((WORLD * ROWS, COLS), 0x5000)
RS_B = Matrix((COLS, 1024), 0x6000)


def test_a_reduce_scatter_zeroes_its_output_then_launches_with_the_totals(
        scatter):
    call, log, state = scatter
    assert call(RS_A, RS_B) == "result"
    total = BLOCKS
    # The first call waits for nothing of its own stream's but the last
    # use's event (no stream yet); every call zeroes the output before its
    # kernel, copies it out after, then marks the buffer's last use.
    assert log == [("wait_event", MAIN, "last use"),
                   ("zero", MAIN, OUTPUT, BYTES),
                   ("launch", MAIN, total, total), ("clone",),
                   ("record", MAIN, "last use")]
    del log[:]
    call(RS_A, RS_B)
    assert log == [("zero", MAIN, OUTPUT, BYTES),
                   ("launch", MAIN, 2 * total, 2 * total), ("clone",),
                   ("record", MAIN, "last use")]
    assert state.prepared == [(RS_A.data_ptr(), RS_B.data_ptr())]


def test_a_reduce_scatter_on_another_stream_waits_for_the_last_use(scatter):
    call, log, _ = scatter
    call(RS_A, RS_B)
    del log[:]
    call(RS_A, RS_B, stream=OTHER)
    assert log[:2] == [("wait_event", OTHER, "last use"),
                       ("zero", OTHER, OUTPUT, BYTES)]


def test_the_reduce_scatter_totals_wrap_as_the_counters_do(scatter):
    call, log, state = scatter
    state.comm.total = 2**31 - 1
    call(RS_A, RS_B)
    wrapped = 2**31 - 1 + BLOCKS - 2**32
    assert ("launch", MAIN, wrapped, wrapped) in log


def test_a_refused_reduce_scatter_launch_keeps_the_total(scatter):
    call, log, state = scatter
    with pytest.raises(RuntimeError, match="launch refused"):
        call(RS_A, RS_B, refuse=True)
    assert state.comm.total == 0 and not [e for e in log
                                          if e[0] in ("launch", "clone")]
    # Its zero is queued: a call on another stream waits for it.
    assert log[-2:] == [("zero", MAIN, OUTPUT, BYTES),
                        ("record", MAIN, "last use")]
    call(RS_A, RS_B)
    assert ("launch", MAIN, BLOCKS, BLOCKS) in log


def test_a_failed_copy_out_still_marks_the_last_use(scatter):
    call, log, state = scatter
    with pytest.raises(RuntimeError, match="out of memory"):
        call(RS_A, RS_B, fail_copy=True)
    assert log[-2:] == [("clone",), ("record", MAIN, "last use")]
    assert state.comm.total == BLOCKS


@pytest.fixture
def blocks(monkeypatch):
    """all_gather_gemm(communicate="blocks")'s queued work with recorders;
    returns (call, log, state): call(stream=MAIN, refuse=False), refuse
    making the launch raise."""
    log, flags = [], {}
    torch = types.ModuleType("torch")
    torch.bfloat16 = "bf16"
    torch.empty = lambda *shape, dtype, device: Matrix(shape, 0x7000)
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

    def call(stream=MAIN, refuse=False):
        flags.update(stream=stream, refuse=refuse)
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
