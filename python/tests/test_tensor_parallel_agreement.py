"""The tensor-parallel ops' first call of a shape, on the CPU:
torch.distributed replaced by a fake whose all_gather_object returns what
each rank would pass. The processes compare what must agree, and learn of
a process that refused its arguments or could not prepare its launch, so
that all of them raise alike (none waits for the others forever); the
reduce-scatter's launches wait for the sum of every device's grid. Later
calls of the shape make nothing and gather nothing; a first call under a
CUDA graph capture raises before it gathers."""
import os
import sys
import types

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir.ops import tensor_parallel as tp  # noqa: E402
from tk_mlir.runtime import ArgumentError  # noqa: E402

WORLD, RANK, GRID = 4, 1, 132


class Matrix:
    def __init__(self, *shape):
        self.shape = shape

    def view(self, *shape):
        return Matrix(*shape)

    def data_ptr(self):
        return 0x1000

    def dim(self):
        return len(self.shape)


class Group:
    group_name = "world"


@pytest.fixture
def fake(monkeypatch):
    """The recorders: `gathers` lists what each all_gather_object got from
    this rank, `made` the states the ops made; `peers(mine)` gives what
    the other ranks pass (default: the same); `refuse` makes the local
    argument checks raise that message; `unprepared` makes the kernel's
    preparation fail; `capturing` makes the stream a capturing one;
    `totals` lists the scalars set on prepared launches."""
    state = types.SimpleNamespace(gathers=[], made=[], peers=lambda x: x,
                                  refuse=None, unprepared=False,
                                  capturing=False, totals=[])
    dist = types.ModuleType("torch.distributed")
    dist.group = types.SimpleNamespace(WORLD=Group())
    dist.get_world_size = lambda group: WORLD

    def all_gather_object(every, mine, group):
        state.gathers.append(mine)
        for r in range(WORLD):
            every[r] = mine if r == RANK else state.peers(mine)
    dist.all_gather_object = all_gather_object
    torch = types.ModuleType("torch")
    torch.distributed = dist
    torch.Tensor = Matrix
    torch._C = types.SimpleNamespace(
        _cuda_isCurrentStreamCapturing=lambda: state.capturing)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.distributed", dist)
    monkeypatch.setattr(tp, "torch", torch)

    def check(*args, **kwargs):
        if state.refuse:
            raise ArgumentError(state.refuse)
    monkeypatch.setattr(tp, "_check", check)
    monkeypatch.setattr(tp, "_communicators", {})
    monkeypatch.setattr(tp, "_gathers", {})
    monkeypatch.setattr(tp, "_blocks", {})

    def made(kind):
        def make(group, *shape):
            state.made.append((kind,) + shape)
            return types.SimpleNamespace(kind=kind, output=None, flags=None,
                                         blocks=None)
        return make
    for name, kind in (("_Communicator", "communicator"),
                       ("_Gather", "gather"), ("_Blocks", "blocks")):
        monkeypatch.setattr(tp, name, made(kind))

    class Kernel:
        def prepare(self, *args):
            if state.unprepared:
                raise RuntimeError("no kernel image for this GPU")
            return types.SimpleNamespace(grid=GRID,
                                         set=state.totals.append)
    monkeypatch.setattr(tp, "load_compiled", lambda *args: Kernel())
    return state


def others(values):
    """What the other ranks pass to the agreement: `values`, no refusal."""
    return lambda mine: (values, None) if isinstance(mine, tuple) else mine


def test_the_message_names_the_argument_and_every_rank(fake):
    fake.peers = others([4096, 1000])
    with pytest.raises(ArgumentError) as error:
        tp._check_agreement(Group(), [("a", "rows", 4096),
                                      ("b", "columns", 1024)])
    assert str(error.value) == (
        "argument 'b': the processes of the group pass different columns "
        "(rank 0: 1000, rank 1: 1024, rank 2: 1000, rank 3: 1000); every "
        "process must pass the same")


def test_a_reduce_scatter_shape_agrees_once(fake):
    a, b = Matrix(4096, 256), Matrix(256, 1024)
    comm, launch = tp._prepare_scatter(a, b, None, 0)
    assert (comm.kind, launch.grid) == ("communicator", GRID)
    # The shapes, then every device's grid; every launch waits for their
    # sum.
    assert fake.gathers == [([4096, 1024], None), GRID]
    assert comm.blocks == WORLD * GRID
    assert fake.totals == [{"total": WORLD * GRID}]
    assert fake.made == [("communicator", WORLD, 1024, 1024)]
    # The shape's state exists: no collective, nothing made again.
    tp._prepare_scatter(a, b, None, 0)
    assert len(fake.gathers) == 2 and len(fake.made) == 1


def test_a_reduce_scatter_sums_grids_that_differ(fake):
    # (A device with fewer multiprocessors starts fewer blocks.)
    fake.peers = lambda mine: mine if isinstance(mine, tuple) else 114
    comm, _ = tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024),
                                  None, 0)
    assert comm.blocks == GRID + (WORLD - 1) * 114
    assert fake.totals == [{"total": comm.blocks}]


@pytest.mark.parametrize("values, message", [
    ([8192, 1024], "argument 'a': the processes of the group pass "
                   "different rows"),
    ([4096, 2048], "argument 'b': the processes of the group pass "
                   "different columns")])
def test_a_reduce_scatter_of_other_shapes_raises_before_its_state(
        fake, values, message):
    fake.peers = others(values)
    with pytest.raises(ArgumentError, match=message):
        tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    assert fake.made == []


def test_a_reduce_scatter_compares_rows_and_columns_not_the_contraction(
        fake):
    # (Each device's share of the contraction is its own.)
    tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    assert fake.gathers[0] == ([4096, 1024], None)


def test_a_process_that_refuses_its_arguments_tells_the_group(fake):
    # This process's own refusal: it still takes part, then raises it.
    fake.refuse = "argument 'a': its 4097 rows do not split evenly over 4"
    with pytest.raises(ArgumentError, match="do not split evenly"):
        tp._prepare_scatter(Matrix(4097, 256), Matrix(256, 1024), None, 0)
    assert fake.gathers == [([4097, 1024], fake.refuse)]
    # Another process's: this one raises naming it.
    fake.refuse = None
    fake.peers = lambda mine: (mine[0], "argument 'b': expected dtype "
                                        "bfloat16, got torch.float32")
    with pytest.raises(ArgumentError, match=(
            "process 0 of the group refused its arguments: argument 'b': "
            "expected dtype bfloat16")):
        tp._prepare_gather(Matrix(1024, 8192), Matrix(8192, 512), None, 0,
                           "copy_engines")
    assert fake.made == []


def test_a_refusal_on_a_later_call_of_the_shape_stays_local(fake):
    tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    fake.refuse = "argument 'a': expected a contiguous matrix"
    with pytest.raises(ArgumentError, match="contiguous"):
        tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    assert len(fake.gathers) == 2   # (no collective: the peers are not in one)


def test_a_launch_that_cannot_be_prepared_tells_the_group(fake):
    fake.unprepared = True
    with pytest.raises(RuntimeError, match="no kernel image"):
        tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    assert fake.gathers[-1] == ("RuntimeError",
                                "no kernel image for this GPU")
    assert tp._communicators == {}
    fake.unprepared = False
    fake.peers = lambda mine: mine if isinstance(mine, tuple) else (
        "RuntimeError", "no kernel image for this GPU")
    with pytest.raises(RuntimeError, match="process 0 of the group could "
                                           "not prepare its launch: no "
                                           "kernel image"):
        tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    assert tp._communicators == {}


@pytest.mark.parametrize("communicate", ["copy_engines", "blocks"])
@pytest.mark.parametrize("values, message", [
    ([2048, 8192], "argument 'a': the processes of the group pass "
                   "different rows"),
    ([1024, 4096], "argument 'a': the processes of the group pass "
                   "different columns")])
def test_an_all_gather_of_other_shards_raises_before_its_state(
        fake, communicate, values, message):
    fake.peers = others(values)
    with pytest.raises(ArgumentError, match=message):
        tp._prepare_gather(Matrix(1024, 8192), Matrix(8192, 512), None, 0,
                           communicate)
    assert fake.made == []


@pytest.mark.parametrize("communicate", ["copy_engines", "blocks"])
def test_an_all_gather_compares_the_shard_not_b(fake, communicate):
    g, _, _ = tp._prepare_gather(Matrix(1024, 8192), Matrix(8192, 512),
                                 None, 0, communicate)
    kind = "gather" if communicate == "copy_engines" else "blocks"
    assert g.kind == kind
    assert fake.gathers == [([1024, 8192], None)]
    assert fake.made == [(kind, 1024, 8192)]


def test_an_all_gather_refusal_on_a_later_call_stays_local(fake):
    a, b = Matrix(1024, 8192), Matrix(8192, 512)
    tp._prepare_gather(a, b, None, 0, "copy_engines")
    fake.refuse = "argument 'b': expected dtype bfloat16"
    with pytest.raises(ArgumentError, match="expected dtype"):
        tp._prepare_gather(a, b, None, 0, "copy_engines")
    assert len(fake.gathers) == 1


def test_rows_that_do_not_split_are_shared_even_near_a_known_shape(fake):
    # 4099 rows floor to the 1024 per device of a shape already made: the
    # state is looked up by a's own rows, so the refusal still reaches the
    # group (whose processes may be on a new shape).
    tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    fake.refuse = "argument 'a': its 4099 rows do not split evenly over 4"
    with pytest.raises(ArgumentError, match="do not split evenly"):
        tp._prepare_scatter(Matrix(4099, 256), Matrix(256, 1024), None, 0)
    assert fake.gathers[-1] == ([4099, 1024], fake.refuse)


def test_a_three_dimensional_a_is_refused_with_the_group(fake):
    fake.refuse = "argument 'a': expected a contiguous matrix"
    with pytest.raises(ArgumentError, match="contiguous matrix"):
        tp._prepare_gather(Matrix(2, 1024, 8192), Matrix(8192, 512), None,
                           0, "copy_engines")
    assert fake.gathers == [([2, 1024], fake.refuse)]


@pytest.mark.parametrize("a", [2.5, Matrix(4096)])
def test_arguments_that_are_not_matrices_raise_at_once(fake, a):
    fake.refuse = "argument 'a': expected a tensor"
    with pytest.raises(ArgumentError, match="expected a tensor"):
        tp._prepare_scatter(a, Matrix(256, 1024), None, 0)
    assert fake.gathers == []


def test_a_later_launch_that_cannot_be_prepared_raises_alone(fake):
    tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    fake.unprepared = True
    with pytest.raises(RuntimeError, match="no kernel image"):
        tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    assert len(fake.gathers) == 2


def test_a_peer_argument_error_in_its_launch_is_one_here(fake):
    fake.peers = lambda mine: mine if isinstance(mine, tuple) else (
        "ArgumentError", "argument 'b': too many columns for the grid")
    with pytest.raises(ArgumentError, match=(
            "process 0 of the group could not prepare its launch: argument "
            "'b': too many columns")):
        tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)


@pytest.mark.parametrize("op", ["scatter", "copy_engines", "blocks"])
def test_a_first_call_under_capture_raises_before_any_collective(fake, op):
    fake.capturing = True
    with pytest.raises(RuntimeError, match="the first call of a shape "
                                           "cannot be captured"):
        if op == "scatter":
            tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
        else:
            tp._prepare_gather(Matrix(1024, 256), Matrix(256, 512), None, 0,
                               op)
    assert fake.gathers == [] and fake.made == []
    # Once the shape's state exists, a captured call finds it.
    fake.capturing = False
    if op == "scatter":
        tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
        fake.capturing = True
        tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    else:
        tp._prepare_gather(Matrix(1024, 256), Matrix(256, 512), None, 0, op)
        fake.capturing = True
        tp._prepare_gather(Matrix(1024, 256), Matrix(256, 512), None, 0, op)
    assert len(fake.made) == 1
