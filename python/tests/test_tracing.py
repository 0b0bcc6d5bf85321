"""CPU tests of tracing.direct, the choice between a public function's
implementation and its torch custom op, against a stand-in for torch (no
GPU, no torch)."""
import os
import sys
import types

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tk_mlir import tracing  # noqa: E402


class Tensor:
    def __init__(self, requires_grad=False):
        self.requires_grad = requires_grad


class Subclass(Tensor):
    pass


class Parameter(Tensor):
    pass


@pytest.fixture
def torch(monkeypatch):
    fake = types.SimpleNamespace(
        Tensor=Tensor, grad=True, tracing=False, jit_tracing=False,
        function_modes=0, dispatch_modes=0, wrapped=set(),
        is_grad_enabled=lambda: fake.grad,
        compiler=types.SimpleNamespace(is_compiling=lambda: fake.tracing),
        jit=types.SimpleNamespace(is_tracing=lambda: fake.jit_tracing),
        nn=types.SimpleNamespace(Parameter=Parameter),
        autograd=types.SimpleNamespace(
            forward_ad=types.SimpleNamespace(
                _current_level=-1, unpack_dual=lambda t: types.SimpleNamespace(
                    tangent=getattr(t, "tangent", None)))))
    fake._C = types.SimpleNamespace(
        _len_torch_function_stack=lambda: fake.function_modes,
        _len_torch_dispatch_stack=lambda: fake.dispatch_modes,
        _functorch=types.SimpleNamespace(
            is_functorch_wrapped_tensor=lambda t: id(t) in fake.wrapped))
    monkeypatch.setattr(tracing, "torch", fake)
    return fake


def test_plain_tensors_without_grad_skip_the_op(torch):
    assert tracing.direct(Tensor(), Tensor(), None)


def test_a_tensor_that_needs_grad_keeps_the_op(torch):
    assert not tracing.direct(Tensor(), Tensor(requires_grad=True))


def test_grad_mode_off_skips_the_op_even_for_grad_tensors(torch):
    torch.grad = False
    assert tracing.direct(Tensor(requires_grad=True))


def test_tensor_subclasses_keep_the_op(torch):
    assert not tracing.direct(Tensor(), Subclass())


def test_torch_compile_tracing_keeps_the_op(torch):
    torch.tracing = True
    assert not tracing.direct(Tensor())


def test_parameters_skip_the_op(torch):
    assert tracing.direct(Parameter())


def test_jit_tracing_keeps_the_op(torch):
    torch.jit_tracing = True
    assert not tracing.direct(Tensor())


@pytest.mark.parametrize("stack", ["function_modes", "dispatch_modes"])
def test_torch_modes_keep_the_op(torch, stack):
    setattr(torch, stack, 1)
    assert not tracing.direct(Tensor())


def test_forward_mode_ad_keeps_the_op(torch):
    torch.autograd.forward_ad._current_level = 0
    assert not tracing.direct(Tensor())


def test_functorch_wrapped_tensors_keep_the_op(torch):
    t = Tensor()
    torch.wrapped.add(id(t))
    assert not tracing.direct(Tensor(), t)


def test_an_older_torch_without_the_mode_queries_still_decides(torch):
    del torch.jit, torch._C, torch.autograd
    assert tracing.direct(Tensor())


def test_without_torch_nothing_is_direct(monkeypatch):
    monkeypatch.setattr(tracing, "torch", None)
    assert not tracing.direct()


# Each public function: direct() chooses between its implementation and its
# op, with the same arguments.
class Shaped:
    """A stand-in tensor for attention's own reshaping: [1, 1, 1, 64]."""
    shape = (1, 1, 1, 64)

    def contiguous(self):
        return self

    def transpose(self, *dims):
        return self


SHAPED = Shaped()
ROUTES = [
    ("tk_mlir.ops.attention", "attention", "attention_forward",
     "attention_fwd", lambda f: f(*(SHAPED,) * 3)),
    ("tk_mlir.ops.linear_attention", "based", "based_impl", "based",
     lambda f: f("q", "k", "v")),
    ("tk_mlir.ops.linear_attention", "linear_attention",
     "linear_attention_impl", "linear_attention",
     lambda f: f("q", "k", "v")),
    ("tk_mlir.ops.gemm", "gemm", "gemm_impl", "gemm", lambda f: f("a", "b")),
    ("tk_mlir.ops.ssd", "ssd_chunk_scan", "ssd_impl", "ssd_chunk_scan",
     lambda f: f("x", "dt", "A", "B", "C")),
]


@pytest.mark.parametrize("module,public,impl,op,call", ROUTES,
                         ids=[r[1] for r in ROUTES])
@pytest.mark.parametrize("direct", [True, False])
def test_public_functions_route_by_direct(monkeypatch, module, public, impl,
                                          op, call, direct):
    import importlib
    mod = importlib.import_module(module)
    seen = []

    def record(name):
        def run(*args):
            seen.append((name, args[:2]))
            return ("out", None)
        return run
    monkeypatch.setattr(mod, impl, record("impl"))
    monkeypatch.setattr(mod, "direct", lambda *tensors: direct)
    monkeypatch.setattr(mod, "compiling", lambda: True)   # no CPU checks
    ops = types.SimpleNamespace(tk_mlir=types.SimpleNamespace(
        **{op: record("op")}))
    monkeypatch.setattr(mod, "torch", types.SimpleNamespace(ops=ops))
    call(getattr(mod, public))
    assert [name for name, _ in seen] == ["impl" if direct else "op"]
    assert seen[0][1] == call(lambda *a: a)[:2]


def test_tangents_are_refused_inside_forward_mode_ad(torch):
    """A kernel function's op path refuses an argument with a tangent
    (forward-mode AD would silently get none, or zeros under
    torch.func.jvp); without one, or outside dual levels, nothing."""
    dual = Tensor()
    dual.tangent = "tangent"
    tracing.refuse_tangents("gemm", dual, None)   # no dual level
    torch.autograd.forward_ad._current_level = 0
    tracing.refuse_tangents("gemm", Tensor(), None, 3)
    with pytest.raises(NotImplementedError, match="tk_mlir.gemm has no "
                       "forward-mode AD formula: an argument carries a "
                       "tangent"):
        tracing.refuse_tangents("gemm", Tensor(), dual)
    torch.tracing = True   # (torch.compile traces: its own rules)
    tracing.refuse_tangents("gemm", dual)
