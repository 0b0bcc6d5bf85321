"""The tensor-parallel ops' way into their torch custom ops, on the CPU
(torch replaced by a fake): a call on plain tensors (or parameters) that
wants no gradient runs the implementation; otherwise (torch.compile
tracing, a gradient wanted, tensor subclasses such as fake tensors, a
torch mode or jit tracing) it calls torch.ops.tk_mlir.<op> with the
group's name, and says so when there is no process group; arguments
that are not tensors go to the implementation, whose checks name them;
the fake implementations' checks give the result's shape without
reading an address."""
import os
import sys
import types

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir.ops import tensor_parallel as tp  # noqa: E402
from tk_mlir.runtime import ArgumentError  # noqa: E402

WORLD = 4


class Tensor:
    """A bf16 matrix on cuda:0 without storage (as a fake tensor)."""
    dtype = "bf16"
    is_cuda = True
    device = types.SimpleNamespace(index=0)

    def __init__(self, *shape, requires_grad=False):
        self.shape = shape
        self.requires_grad = requires_grad

    def dim(self):
        return len(self.shape)

    def is_contiguous(self):
        return True

    def stride(self):
        return (self.shape[1], 1)

    def data_ptr(self):
        raise RuntimeError("no storage")


class Parameter(Tensor):
    pass


class FakeTensor(Tensor):
    pass


class Group:
    def __init__(self, name):
        self.group_name = name


@pytest.fixture
def fake(monkeypatch):
    """`calls` records the implementations and torch ops called."""
    state = types.SimpleNamespace(calls=[], compiling=False, grad=True,
                                  mode=False, level=-1)
    torch = types.ModuleType("torch")
    torch.Tensor = Tensor
    torch.nn = types.SimpleNamespace(Parameter=Parameter)
    torch.is_grad_enabled = lambda: state.grad
    torch.compiler = types.SimpleNamespace(
        is_compiling=lambda: state.compiling)
    torch.bfloat16 = "bf16"
    torch.cuda = types.SimpleNamespace(current_device=lambda: 0)

    def op(name):
        return lambda *args: state.calls.append((name,) + args) or "op"
    torch.ops = types.SimpleNamespace(tk_mlir=types.SimpleNamespace(
        gemm_reduce_scatter=op("op rs"), all_gather_gemm=op("op ag")))
    dist = types.ModuleType("torch.distributed")
    dist.group = types.SimpleNamespace(WORLD=Group("world"))
    dist.get_world_size = lambda group: WORLD
    torch.distributed = dist
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.distributed", dist)
    monkeypatch.setattr(tp, "torch", torch)
    monkeypatch.setattr(tp, "group_named", lambda name: Group(name))
    monkeypatch.setattr(tp, "probes", lambda: types.SimpleNamespace(
        plain=(Tensor, Parameter), active=lambda: state.mode,
        forward_ad=lambda: state.level))
    for name in ("gemm_reduce_scatter_impl", "all_gather_gemm_impl"):
        monkeypatch.setattr(tp, name, lambda *args, name=name: (
            state.calls.append((name,) + args) or "impl"))
    return state


def test_direct_calls_run_the_implementation(fake):
    a, b = Tensor(4096, 256), Tensor(256, 1024)
    assert tp.gemm_reduce_scatter(a, b) == "impl"
    assert tp.all_gather_gemm(a, b, None, "blocks") == "impl"
    assert fake.calls == [("gemm_reduce_scatter_impl", a, b, None),
                          ("all_gather_gemm_impl", a, b, None, "blocks")]


def test_parameters_without_grad_mode_run_directly(fake):
    a, w = Tensor(4096, 256), Parameter(256, 1024, requires_grad=True)
    fake.grad = False
    assert tp.gemm_reduce_scatter(a, w) == "impl"
    fake.grad = True
    assert tp.gemm_reduce_scatter(a, w) == "op"


def test_compiling_goes_through_the_torch_ops_with_the_group_name(fake):
    fake.compiling = True
    a, b = Tensor(4096, 256), Tensor(256, 1024)
    assert tp.gemm_reduce_scatter(a, b) == "op"
    assert tp.gemm_reduce_scatter(a, b, Group("tp")) == "op"
    assert tp.all_gather_gemm(a, b) == "op"
    assert fake.calls == [("op rs", a, b, "world"), ("op rs", a, b, "tp"),
                          ("op ag", a, b, "world", "copy_engines")]


def test_a_torch_mode_or_jit_tracing_goes_through_the_torch_ops(fake):
    fake.mode = True
    a, b = Tensor(4096, 256), Tensor(256, 1024)
    assert tp.gemm_reduce_scatter(a, b) == "op"
    assert tp.all_gather_gemm(a, b) == "op"


def test_forward_mode_ad_goes_through_the_torch_ops(fake):
    """Inside a dual level (torch.autograd.forward_ad, torch.func.jvp) a
    call takes the op's way, where a tangent is refused
    (tracing.refuse_tangents)."""
    fake.level = 0
    a, b = Tensor(4096, 256), Tensor(256, 1024)
    assert tp.gemm_reduce_scatter(a, b) == "op"
    assert tp.all_gather_gemm(a, b) == "op"


def test_no_process_group(fake):
    fake.compiling = True
    sys.modules["torch.distributed"].group.WORLD = None
    with pytest.raises(RuntimeError, match="init_process_group"):
        tp.gemm_reduce_scatter(Tensor(4096, 256), Tensor(256, 1024))


def test_tensor_subclasses_go_through_the_torch_ops(fake):
    a, b = FakeTensor(4096, 256), Tensor(256, 1024)
    assert tp.gemm_reduce_scatter(a, b) == "op"
    assert tp.all_gather_gemm(b, a) == "op"


def test_arguments_that_are_not_tensors_reach_the_checks(fake):
    fake.mode = True
    b = Tensor(256, 1024)
    assert tp.gemm_reduce_scatter([1, 2], b) == "impl"
    assert tp.all_gather_gemm(b, None) == "impl"
    with pytest.raises(ArgumentError, match="'communicate'"):
        tp.all_gather_gemm(b, b, None, "nvlink")


def test_functorch_tensors_met_by_a_direct_call_take_the_torch_ops(
        fake, monkeypatch):
    """A direct call whose implementation meets functorch's tensors
    (torch.vmap's, which have no storage) goes through the op instead,
    whose dispatch handles them."""
    a, b = Tensor(4096, 256), Tensor(256, 1024)

    def transformed(*args):
        fake.calls.append(("impl",))
        raise tp._Transformed()
    for name in ("gemm_reduce_scatter_impl", "all_gather_gemm_impl"):
        monkeypatch.setattr(tp, name, transformed)
    assert tp.gemm_reduce_scatter(a, b) == "op"
    assert tp.all_gather_gemm(a, b, None, "blocks") == "op"
    assert fake.calls == [("impl",), ("op rs", a, b, "world"),
                          ("impl",), ("op ag", a, b, "world", "blocks")]


def test_functorch_tensors_are_found_before_anything_is_made(fake):
    """Where a call meets tensors it has not checked: before the
    shape's agreement, its state or its launch."""
    a, b = Tensor(4096, 256), Tensor(256, 1024)
    a.wrapped = True
    sys.modules["torch"]._C = types.SimpleNamespace(
        _functorch=types.SimpleNamespace(
            is_functorch_wrapped_tensor=lambda t: getattr(t, "wrapped",
                                                          False)))
    with pytest.raises(tp._Transformed):
        tp._prepare_scatter(a, b, None, 0)
    with pytest.raises(tp._Transformed):
        tp._prepare_gather(b, a, None, 0, "copy_engines")
    # Plain tensors, and arguments that are not tensors (the checks name
    # them), pass.
    tp._refuse_transformed(b, b)
    tp._refuse_transformed([1, 2], None)


def test_the_fake_implementations_give_the_result_shape(fake):
    a, b = Tensor(4096, 256), Tensor(256, 1024)
    assert tp.check_fake(a, b, "world", "rows") == (1024, 1024)
    assert tp.check_fake(a, b, "world", "none") == (16384, 1024)


@pytest.mark.parametrize("a, b, split, message", [
    (Tensor(4098, 256), Tensor(256, 1024), "rows",
     "its 4098 rows do not split evenly over 4 devices"),
    (Tensor(4096, 256), Tensor(128, 1024), "none", "has 128 rows"),
    (Tensor(4096, 250), Tensor(250, 1024), "none",
     "rows of 250 bf16 elements are not a multiple of 16 bytes"),
])
def test_the_fake_implementations_check_the_arguments(fake, a, b, split,
                                                       message):
    with pytest.raises(ArgumentError, match=message):
        tp.check_fake(a, b, "world", split)
