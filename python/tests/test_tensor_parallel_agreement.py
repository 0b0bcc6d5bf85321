"""The tensor-parallel ops' check that the processes of a group pass the
shapes that must agree, on the CPU: torch.distributed replaced by a fake
whose all_gather_object returns what each rank would pass. Agreeing
shapes make the op's state once, disagreeing ones raise ArgumentError
(the same on every process, since every one sees the same values) before
anything collective is made; what may differ is not compared."""
import os
import sys
import types

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir.ops import tensor_parallel as tp  # noqa: E402
from tk_mlir.runtime import ArgumentError  # noqa: E402

WORLD, RANK = 4, 1


class Matrix:
    def __init__(self, *shape):
        self.shape = shape

    def view(self, *shape):
        return Matrix(*shape)

    def data_ptr(self):
        return 0x1000


class Group:
    group_name = "world"


@pytest.fixture
def fake(monkeypatch):
    """(gathers, made): `gathers` lists the values each all_gather_object
    saw from this rank; set `fake.others` to what the other ranks pass
    (default: the same). `made` lists the states the ops made."""
    state = types.SimpleNamespace(gathers=[], made=[], others=None)
    dist = types.ModuleType("torch.distributed")
    dist.group = types.SimpleNamespace(WORLD=Group())
    dist.get_world_size = lambda group: WORLD

    def all_gather_object(every, mine, group):
        state.gathers.append(mine)
        for r in range(WORLD):
            every[r] = mine if r == RANK or state.others is None \
                else state.others
    dist.all_gather_object = all_gather_object
    torch = types.ModuleType("torch")
    torch.distributed = dist
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.distributed", dist)
    monkeypatch.setattr(tp, "_check", lambda *args, **kwargs: None)
    monkeypatch.setattr(tp, "_communicators", {})
    monkeypatch.setattr(tp, "_gathers", {})
    monkeypatch.setattr(tp, "_blocks", {})

    def made(kind):
        def make(group, *shape):
            state.made.append((kind,) + shape)
            return types.SimpleNamespace(kind=kind, output=None, flags=None)
        return make
    monkeypatch.setattr(tp, "_Communicator", made("communicator"))
    monkeypatch.setattr(tp, "_Gather", made("gather"))

    class Kernel:
        def prepare(self, *args):
            return "launch"
    monkeypatch.setattr(tp, "load_compiled", lambda *args: Kernel())
    return state


def test_the_message_names_the_argument_and_every_rank(fake):
    fake.others = [4096, 1000]
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
    assert (comm.kind, launch) == ("communicator", "launch")
    assert fake.gathers == [[4096, 1024]]
    assert fake.made == [("communicator", WORLD, 1024, 1024)]
    # The shape's state exists: no collective, nothing made again.
    tp._prepare_scatter(a, b, None, 0)
    assert len(fake.gathers) == 1 and len(fake.made) == 1


@pytest.mark.parametrize("others, message", [
    ([8192, 1024], "argument 'a': the processes of the group pass "
                   "different rows"),
    ([4096, 2048], "argument 'b': the processes of the group pass "
                   "different columns")])
def test_a_reduce_scatter_of_other_shapes_raises_before_its_state(
        fake, others, message):
    fake.others = others
    with pytest.raises(ArgumentError, match=message):
        tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    assert fake.made == []


def test_a_reduce_scatter_compares_rows_and_columns_not_the_contraction(
        fake):
    # (Each device's share of the contraction is its own.)
    tp._prepare_scatter(Matrix(4096, 256), Matrix(256, 1024), None, 0)
    assert fake.gathers == [[4096, 1024]]


@pytest.mark.parametrize("communicate", ["copy_engines", "blocks"])
@pytest.mark.parametrize("others, message", [
    ([2048, 8192], "argument 'a': the processes of the group pass "
                   "different rows"),
    ([1024, 4096], "argument 'a': the processes of the group pass "
                   "different columns")])
def test_an_all_gather_of_other_shards_raises_before_its_state(
        fake, monkeypatch, communicate, others, message):
    monkeypatch.setattr(tp, "_Blocks", lambda *args: fake.made.append(args))
    fake.others = others
    a, b = Matrix(1024, 8192), Matrix(8192, 512)
    with pytest.raises(ArgumentError, match=message):
        g, world, group = tp._prepare_gather(a, b, None, 0, communicate)
        tp._all_gather_gemm_blocks(a, b, group, world)
    assert fake.made == []


def test_an_all_gather_compares_the_shard_not_b(fake):
    g, _, _ = tp._prepare_gather(Matrix(1024, 8192), Matrix(8192, 512),
                                 None, 0, "copy_engines")
    assert g.kind == "gather"
    assert fake.gathers == [[1024, 8192]]
    assert fake.made == [("gather", 1024, 8192)]
