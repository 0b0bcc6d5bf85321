"""CPU tests of attention()'s argument checks (no GPU, no torch)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tk_mlir import ArgumentError, check_attention_arguments  # noqa: E402
from tk_mlir.ops.attention import artifacts_dir  # noqa: E402


class T:
    def __init__(self, shape, dtype="bfloat16", cuda=True, device="cuda:0"):
        self.shape = tuple(shape)
        self.dtype = f"torch.{dtype}"
        self.is_cuda = cuda
        self.device = device


def test_bhsd_and_bshd_shapes():
    q, k = T((2, 8, 100, 128)), T((2, 2, 100, 128))
    assert check_attention_arguments(q, k, k, "bhsd") == (2, 8, 2, 100, 128)
    q, k = T((2, 100, 8, 64)), T((2, 100, 4, 64))
    assert check_attention_arguments(q, k, k, "bshd") == (2, 8, 4, 100, 64)


@pytest.mark.parametrize("q,k,v,match", [
    (T((2, 8, 100)), T((2, 8, 100, 128)), T((2, 8, 100, 128)),
     "argument 'q': expected a 4-D tensor"),
    (T((2, 8, 100, 128), dtype="float16"), T((2, 8, 100, 128)),
     T((2, 8, 100, 128)), "argument 'q': expected dtype torch.bfloat16"),
    (T((2, 8, 100, 128)), T((2, 8, 100, 128), cuda=False),
     T((2, 8, 100, 128)), "argument 'k': expected a CUDA tensor"),
    (T((2, 8, 100, 96)), T((2, 8, 100, 96)), T((2, 8, 100, 96)),
     "argument 'q': head dim 96 is not supported"),
    (T((2, 8, 100, 128)), T((2, 8, 100, 64)), T((2, 8, 100, 64)),
     "argument 'k': batch and head dim"),
    (T((2, 8, 100, 128)), T((2, 8, 99, 128)), T((2, 8, 99, 128)),
     "argument 'k': sequence length 99 differs from q's 100"),
    (T((2, 8, 100, 128)), T((2, 8, 100, 128)), T((2, 4, 100, 128)),
     "argument 'v': shape"),
    (T((2, 8, 100, 128)), T((2, 3, 100, 128)), T((2, 3, 100, 128)),
     "argument 'k': 3 heads do not divide q's 8"),
    (T((2, 4, 100, 128)), T((2, 8, 100, 128)), T((2, 8, 100, 128)),
     "argument 'k': 8 heads do not divide q's 4"),
    (T((2, 8, 100, 128)), T((2, 0, 100, 128)), T((2, 0, 100, 128)),
     r"argument 'k': empty shape \(2, 0, 100, 128\)"),
    (T((2, 8, 0, 128)), T((2, 8, 0, 128)), T((2, 8, 0, 128)),
     r"argument 'q': empty shape \(2, 8, 0, 128\)"),
    (T((2, 8, 100, 128)), T((2, 8, 100, 128), device="cuda:1"),
     T((2, 8, 100, 128)),
     "argument 'k': on cuda:1, but argument 'q' is on cuda:0"),
    (T((2, 8, 100, 128)), T((2, 8, 100, 128)),
     T((2, 8, 100, 128), device="cuda:1"),
     "argument 'v': on cuda:1, but argument 'q' is on cuda:0"),
])
def test_bad_arguments_name_the_argument(q, k, v, match):
    with pytest.raises(ArgumentError, match=match):
        check_attention_arguments(q, k, v, "bhsd")


def test_bad_layout():
    q = T((1, 1, 1, 128))
    with pytest.raises(ValueError, match="layout must be one of"):
        check_attention_arguments(q, q, q, "sbhd")


def test_artifacts_dir_from_environment(monkeypatch):
    monkeypatch.setenv("TK_MLIR_ARTIFACTS", "/some/where")
    assert artifacts_dir() == "/some/where"


def _compiled_params(tmp_path, name):
    """The manifest parameters of kernels/<name>.mlir (or of a variant's
    program, compiled with its options) compiled by tk-opt (skips the test
    when tk-opt is not built)."""
    import json
    import subprocess
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    tk_opt = os.path.join(root, "build", "bin", "tk-opt")
    if not os.path.exists(tk_opt):
        pytest.skip("tk-opt is not built")
    from tk_mlir.ops.attention import VARIANTS, program_source
    program, options = VARIANTS.get(name, (name, ""))
    out = tmp_path / name
    subprocess.run([tk_opt, program_source(program),
                    f"-tile-to-nvidia=out={out} cubin=false "
                    f"producer-registers=24 {options}", "-o", os.devnull],
                   check=True, capture_output=True)
    manifest = json.load(open(out / (program + ".json")))
    return manifest["kernels"][program]["params"]


@pytest.mark.parametrize("dim", [128, 64])
def test_backward_argument_names_match_the_kernels(tmp_path, dim):
    """Each backward kernel's manifest lists as many parameters as the names
    attention_backward() passes, and the fused kernel's dQ accumulator is an
    f32 view of the head dim."""
    from tk_mlir.ops.attention import (_ARG_NAMES, BACKWARD, DELTA,
                                   FUSED_BACKWARD)
    for name in (FUSED_BACKWARD[dim], DELTA[dim]) + BACKWARD[dim]:
        params = _compiled_params(tmp_path, name)
        names = _ARG_NAMES[name]
        assert len(params) == len(names), name
        if name == FUSED_BACKWARD[dim]:
            accum = params[names.index("dq_accum")]
            assert accum["dtype"] == "f32" and accum["shape"][-1] == dim


@pytest.mark.parametrize("dim,seq,causal,name", [
    (128, 1, False, "attention_naive"),
    (128, 8191, False, "attention_naive"),
    (128, 8192, False, "attention_naive_kv176"),
    (128, 8192, True, "attention_naive"),
    (128, 16384, False, "attention_naive_kv176"),
    (128, 16384, True, "attention_naive"),
    (64, 16384, False, "attention_naive_d64_nc"),
    (64, 16384, True, "attention_naive_d64"),
    (64, 2048, True, "attention_naive_d64"),
    (64, 2047, True, "attention_naive_d64_ring4"),
    (64, 512, True, "attention_naive_d64_ring4"),
    (64, 1, True, "attention_naive_d64_ring4"),
    (64, 1, False, "attention_naive_d64_nc"),
    (64, 512, False, "attention_naive_d64_nc"),
])
def test_forward_kernel_by_length(dim, seq, causal, name):
    """Head dim 128 runs the 176-key program for non-causal calls from 8192
    queries and the 128-key program otherwise; head dim 64 the 192-query
    program, compiled with a four-stage ring for causal calls shorter than
    2048 and for causal = false for non-causal calls (CHOICES)."""
    from tk_mlir.ops.attention import forward_kernel
    assert forward_kernel(dim, seq, causal) == name


@pytest.mark.parametrize("dim,seq,causal,one_tile", [
    (128, 512, True, False), (128, 16384, True, False),
    (64, 4096, True, False), (64, 8192, True, True), (64, 16384, True, True),
    (64, 16384, False, False), (128, 1, False, False),
])
def test_forward_launch_mode(dim, seq, causal, one_tile):
    """Causal head-dim-64 calls from 8192 queries run one tile per block;
    everything else the persistent (snake-ordered) grid."""
    from tk_mlir.ops.attention import one_tile_per_block
    assert one_tile_per_block(dim, seq, causal) is one_tile


def test_choices_cover_every_call():
    """CHOICES has a forward and a backward row for every supported head
    dim, causal or not, at every length; backward rows name a fused program
    of their head dim or the two kernels."""
    from tk_mlir.ops.attention import (BACKWARD, CHOICES, FUSED_BACKWARD,
                                       KERNELS, choose)
    assert set(KERNELS) == set(BACKWARD) == set(FUSED_BACKWARD)
    for dim in KERNELS:
        for causal in (False, True):
            for seq in (1, 63, 511, 512, 1023, 1024, 2047, 2048, 8191, 8192,
                        1 << 20):
                choose("forward", dim, seq, causal)
                row = choose("backward", dim, seq, causal)
                assert row.kernel in (None, FUSED_BACKWARD[dim])
    assert {row.part for row in CHOICES} == {"forward", "backward"}
    with pytest.raises(ValueError, match="no forward program for head dim"):
        choose("forward", 96, 512, False)


@pytest.mark.parametrize("dim", [128, 64])
def test_other_forward_kernels_take_the_same_arguments(tmp_path, dim):
    """The 176-key program has the 128-key program's parameters, and the
    short causal head-dim-64 variant (a deeper ring) the program's, so
    attention_forward() launches either with the same arguments."""
    from tk_mlir.ops.attention import CHOICES, KERNELS
    names = [KERNELS[dim]] + sorted(
        {row.kernel for row in CHOICES if row.part == "forward" and
         row.dim == dim and row.kernel != KERNELS[dim]})
    assert len(names) > 1
    params = {name: [(p["kind"], p.get("dtype"), p.get("shape"))
                     for p in _compiled_params(tmp_path, name)]
              for name in names}
    for name in names[1:]:
        assert params[name] == params[names[0]]


def test_non_causal_variant_is_bound_to_causal_false(tmp_path):
    """The head-dim-64 non-causal variant is compiled for causal = false:
    its manifest says so and a launch with causal=True is refused naming
    `causal`; the program itself leaves causal open."""
    from tests.test_runtime import FakeTensor
    from tk_mlir import ArgumentError, KernelSpec, check_arguments
    from tk_mlir.ops.attention import KERNELS, forward_kernel
    bound = _compiled_params(tmp_path, forward_kernel(64, 512, False))
    assert bound[6] == {"kind": "scalar", "dtype": "i1", "value": False}
    assert "value" not in _compiled_params(tmp_path, KERNELS[64])[6]
    spec = KernelSpec("k", {"target": "sm_90a", "threads": 512,
                            "shared_memory_bytes": 0, "grid_policy":
                            "persistent", "tiles": [], "cluster": [1, 1, 1],
                            "params": bound, "abi": []})
    names = ["q", "k", "v", "o", "lse", "scale", "causal"]
    views = [FakeTensor((2, 4, 512, 64), "bfloat16") for _ in range(4)]
    args = [*views, FakeTensor((2, 4, 512), "float32"), 0.125]
    check_arguments(spec, (*args, False), names)
    with pytest.raises(ArgumentError, match="'causal' .*: the kernel was compiled"):
        check_arguments(spec, (*args, True), names)


@pytest.mark.parametrize("seq,pad", [(1, 3), (17, 3), (1000, 0), (4096, 0),
                                     (4097, 3), (4098, 2)])
def test_row_padding(seq, pad):
    """L and Δ rows are padded to whole 16 bytes for the TMA copies."""
    from tk_mlir.ops.attention import row_padding
    assert row_padding(seq) == pad
    assert (seq + pad) * 4 % 16 == 0


@pytest.mark.parametrize("name", ["attention_bwd", "attention_bwd_d64",
                                  "attention_bwd_dkv"])
def test_backward_copies_lse_and_delta_with_tma(tmp_path, name):
    """The backward programs read L and Δ through tensor maps, so an unpadded
    odd-length row is refused naming the argument, and the padded rows
    attention_backward() passes are accepted."""
    import json
    from tests.test_runtime import FakeTensor
    from tk_mlir import KernelSpec, check_arguments
    from tk_mlir.ops.attention import _ARG_NAMES, row_padding
    _compiled_params(tmp_path, name)
    entry = json.load(open(tmp_path / name / (name + ".json")))
    spec = KernelSpec(name, entry["kernels"][name])
    names = _ARG_NAMES[name]
    maps = {names[e["param"]] for e in spec.abi if e["kind"] == "tensor_map"}
    assert {"lse", "delta"} <= maps
    if "dq_accum" in names:  # bulk copies into a view in fragment order
        frag = spec.params[names.index("dq_accum")]
        assert frag.get("layout") == "fragments"
        assert "dq_accum" not in maps
    dim = 64 if name.endswith("d64") else 128

    def args(seq, rows):
        out = []
        for n, p in zip(names, spec.params):
            if p["kind"] == "scalar":
                out.append(0.1 if p["dtype"] == "f32" else False)
            elif n in ("lse", "delta"):
                out.append(FakeTensor([1, 2, rows], "float32"))
            elif n == "dq_accum":  # in fragment order: whole 64-row slabs
                out.append(FakeTensor([1, 2, -(-seq // 64) * 64, dim],
                                      "float32"))
            else:
                out.append(FakeTensor([1, 2, seq, dim], "bfloat16"))
        return out

    with pytest.raises(ArgumentError, match="argument 'lse'.*16 bytes"):
        check_arguments(spec, args(17, 17), names)
    check_arguments(spec, args(17, 17 + row_padding(17)), names)
    if "dq_accum" in names:
        unpadded = args(17, 17 + row_padding(17))
        unpadded[names.index("dq_accum")] = FakeTensor([1, 2, 17, dim],
                                                       "float32")
        with pytest.raises(ArgumentError, match="argument 'dq_accum'.*slabs "
                           "of 64; dimension 2 is 17"):
            check_arguments(spec, unpadded, names)


def test_every_head_dim_has_a_backward_form():
    """attention() picks a backward form for each head dim it supports: the
    fused kernel from 1024 queries at head dim 128 and 512 at 64, the two
    kernels below."""
    from tk_mlir.ops.attention import uses_fused
    assert uses_fused(128, 1024) and not uses_fused(128, 1023)
    assert uses_fused(128, 1 << 20) and not uses_fused(128, 512)
    assert uses_fused(64, 512) and not uses_fused(64, 511)


@pytest.mark.parametrize("dim", [128, 64])
def test_delta_program_tiles_and_arguments(tmp_path, dim):
    """The Δ program takes O and dO of the head dim through tensor maps and
    writes an f32 [batch, heads, rows] view; one tile per 64 queries of O,
    so its last tile covers the padding row_padding() adds; a Δ view of the
    wrong dtype is refused naming 'delta'."""
    import json
    from tests.test_runtime import FakeTensor
    from tk_mlir import KernelSpec, check_arguments
    from tk_mlir.ops.attention import _ARG_NAMES, DELTA, row_padding
    name = DELTA[dim]
    params = _compiled_params(tmp_path, name)
    assert [(p["dtype"], p["shape"]) for p in params] == [
        ("bf16", [-1, -1, -1, dim]), ("bf16", [-1, -1, -1, dim]),
        ("f32", [-1, -1, -1])]
    entry = json.load(open(tmp_path / name / (name + ".json")))
    spec = KernelSpec(name, entry["kernels"][name])
    names = _ARG_NAMES[name]
    assert {names[e["param"]] for e in spec.abi
            if e["kind"] == "tensor_map"} == {"o", "do"}
    assert entry["kernels"][name]["tiles"][0] == {
        "axis": 2, "divisor": 64, "param": 0}
    for seq in (1, 17, 4097):
        assert -(-seq // 64) * 64 >= seq + row_padding(seq)
    o = FakeTensor([2, 3, 17, dim], "bfloat16")
    check_arguments(spec, [o, o, FakeTensor([2, 3, 20], "float32")], names)
    with pytest.raises(ArgumentError, match="delta"):
        check_arguments(spec, [o, o, FakeTensor([2, 3, 20], "bfloat16")],
                        names)


def test_q80_backward_holds_dq_transposed_in_whole_column_tiles(tmp_path):
    """The 80-query fused program takes attention_backward()'s arguments,
    its dQ accumulator is the transposed view [batch, heads, 128, seq] in
    fragment order whose manifest asks for whole 80-column tiles, and a
    sequence not padded to them is refused naming the argument."""
    import json
    from tests.test_runtime import FakeTensor
    from tk_mlir import KernelSpec, check_arguments
    from tk_mlir.ops.attention import _ARG_NAMES, FUSED_ALTERNATIVES
    name = "attention_bwd_q80"
    assert name in FUSED_ALTERNATIVES[128]
    params = _compiled_params(tmp_path, name)
    names = _ARG_NAMES[name]
    assert len(params) == len(names)
    accum = params[names.index("dq_accum")]
    assert accum == {"dtype": "f32", "kind": "view", "layout": "fragments",
                     "shape": [-1, -1, 128, -1], "tile_cols": 80}
    entry = json.load(open(tmp_path / name / (name + ".json")))
    spec = KernelSpec(name, entry["kernels"][name])

    def args(cols):
        out = []
        for n, p in zip(names, spec.params):
            if p["kind"] == "scalar":
                out.append(0.1 if p["dtype"] == "f32" else False)
            elif n in ("lse", "delta"):
                out.append(FakeTensor([1, 2, 300], "float32"))
            elif n == "dq_accum":
                out.append(FakeTensor([1, 2, 128, cols], "float32"))
            else:
                out.append(FakeTensor([1, 2, 300, 128], "bfloat16"))
        return out

    check_arguments(spec, args(320), names)
    with pytest.raises(ArgumentError, match=r"argument 'dq_accum' \(#6\): "
                       r"the kernel adds whole tiles of 80 columns to this "
                       r"view in fragment order; dimension 3 is 304, not a "
                       r"multiple of 80 \(pad it\)"):
        check_arguments(spec, args(304), names)


def test_backward_program_must_be_an_alternative():
    """attention_backward(program=...) names a fused program of the head
    dim; anything else is refused before any tensor is touched."""
    from tk_mlir.ops.attention import attention_backward
    q = T([1, 1, 4, 64])
    with pytest.raises(ValueError, match=r"program: head dim 64 has the "
                       r"fused programs \['attention_bwd_d64'\], not "
                       r"'attention_bwd_q80'"):
        attention_backward(q, q, q, q, q, q, False, 0.1,
                           program="attention_bwd_q80")


def test_long_noncausal_backward_program(monkeypatch):
    """attention() takes FUSED_BACKWARD's program at every length (no
    alternative measures faster); a CHOICES row for one of
    FUSED_ALTERNATIVES makes non-causal head-dim calls from its length on
    take it, and leaves shorter, causal and other head dims alone."""
    import importlib
    att = importlib.import_module("tk_mlir.ops.attention")
    assert all(row.kernel in (None, att.FUSED_BACKWARD[row.dim])
               for row in att.CHOICES if row.part == "backward")
    assert att.fused_program(128, 16384, False) == att.FUSED_BACKWARD[128]
    row = att.Choice("backward", 128, False, 8192, None, "attention_bwd_q80")
    assert row.kernel in att.FUSED_ALTERNATIVES[128]
    monkeypatch.setattr(att, "CHOICES", (row,) + att.CHOICES)
    assert att.fused_program(128, 8192, False) == "attention_bwd_q80"
    assert att.fused_program(128, 16384, False) == "attention_bwd_q80"
    assert att.fused_program(128, 8191, False) == att.FUSED_BACKWARD[128]
    assert att.fused_program(128, 16384, True) == att.FUSED_BACKWARD[128]
    assert att.fused_program(64, 16384, False) == att.FUSED_BACKWARD[64]
    # Below the fused form's length a call asking for it gets the default.
    assert att.fused_program(128, 100, False) == att.FUSED_BACKWARD[128]


def test_dq_convert_program_tiles_and_arguments(tmp_path):
    """The dQ conversion program reads the fused programs' f32 accumulator
    (fragment order, any head dim) and writes bf16 dQ row-major; one tile
    per 64 queries of dQ; an accumulator not padded to 64-row slabs or of
    the wrong dtype is refused naming 'dq_accum'."""
    import json
    from tests.test_runtime import FakeTensor
    from tk_mlir import KernelSpec, check_arguments
    from tk_mlir.ops.attention import _ARG_NAMES, DQ_CONVERT
    params = _compiled_params(tmp_path, DQ_CONVERT)
    assert params == [
        {"dtype": "f32", "kind": "view", "layout": "fragments",
         "shape": [-1, -1, -1, -1]},
        {"dtype": "bf16", "kind": "view", "shape": [-1, -1, -1, -1]}]
    entry = json.load(open(tmp_path / DQ_CONVERT / (DQ_CONVERT + ".json")))
    spec = KernelSpec(DQ_CONVERT, entry["kernels"][DQ_CONVERT])
    names = _ARG_NAMES[DQ_CONVERT]
    assert entry["kernels"][DQ_CONVERT]["tiles"][0] == {
        "axis": 2, "divisor": 64, "param": 1}
    for dim in (64, 128):
        dq = FakeTensor([2, 3, 17, dim], "bfloat16")
        check_arguments(spec, [FakeTensor([2, 3, 64, dim], "float32"), dq],
                        names)
        with pytest.raises(ArgumentError, match="argument 'dq_accum'.*slabs "
                           "of 64; dimension 2 is 17"):
            check_arguments(spec, [FakeTensor([2, 3, 17, dim], "float32"),
                                   dq], names)
        with pytest.raises(ArgumentError, match="dq_accum"):
            check_arguments(spec, [FakeTensor([2, 3, 64, dim], "bfloat16"),
                                   dq], names)


# attention() itself, and the torch ops' implementations and fakes, against
# stand-ins for torch.
class Grad(T):
    """A stand-in tensor for attention(): T with requires_grad."""

    def __init__(self, shape, requires_grad=False, **kw):
        super().__init__(shape, **kw)
        self.requires_grad = requires_grad

    def contiguous(self):
        return self

    def transpose(self, *dims):
        return self


@pytest.mark.parametrize("q", [None, Grad(()), 3.0])
def test_attention_checks_q_before_reading_its_shape(q):
    """A q that is no 4-D tensor is refused naming it, before attention()
    reads its head dim."""
    from tk_mlir.ops.attention import attention
    k = Grad((1, 2, 16, 64))
    with pytest.raises(ArgumentError, match="argument 'q': expected a 4-D "
                       "tensor"):
        attention(q, k, k)


class ScaleTensor:
    def __init__(self, value, requires_grad):
        self.value, self.requires_grad = value, requires_grad

    def __float__(self):
        return self.value


@pytest.fixture
def attention_torch(monkeypatch):
    """tk_mlir.ops.attention with a stand-in torch: `grad` is grad mode,
    `calls` the attention_fwd op's arguments."""
    import types
    from tk_mlir.ops import attention as module
    state = types.SimpleNamespace(grad=True, calls=[])

    def attention_fwd(*args):
        state.calls.append(args)
        return "o", "lse"
    monkeypatch.setattr(module, "torch", types.SimpleNamespace(
        Tensor=ScaleTensor, is_grad_enabled=lambda: state.grad,
        ops=types.SimpleNamespace(tk_mlir=types.SimpleNamespace(
            attention_fwd=attention_fwd))))
    monkeypatch.setattr(module, "direct", lambda *tensors: False)
    return module, state


def test_a_scale_that_requires_grad_is_refused(attention_torch):
    """attention() takes the scale as a number: a tensor scale that requires
    grad (grad mode on) is refused naming it; without grad mode, or without
    requires_grad, its value is used."""
    module, state = attention_torch
    q = Grad((1, 2, 16, 64))
    with pytest.raises(NotImplementedError, match="argument 'scale': a "
                       "tensor that requires grad; tk_mlir.attention takes "
                       "the scale as a number and has no gradient"):
        module.attention(q, q, q, scale=ScaleTensor(0.5, True))
    assert state.calls == []
    module.attention(q, q, q, scale=ScaleTensor(0.5, False))
    state.grad = False
    module.attention(q, q, q, scale=ScaleTensor(0.25, True))
    assert [(args[3:]) for args in state.calls] == [(False, 0.5),
                                                     (False, 0.25)]


class OpStandIn:
    """What torch.library.custom_op returns, recording its registrations."""

    def __init__(self, impl):
        self.impl = impl
        self.fake = self.backward = self.setup = None

    def register_fake(self, fn):
        self.fake = fn
        return fn

    def register_autograd(self, backward, setup_context):
        self.backward, self.setup = backward, setup_context

    def __call__(self, *args):
        return self.impl(*args)


def load_torch_ops(monkeypatch, **torch_fields):
    """tk_mlir.torch_ops imported afresh against a stand-in torch whose
    torch.library.custom_op records each op (name -> OpStandIn); the stand-in
    has `torch_fields` besides. Returns (module, ops). The package keeps its
    own torch_ops after the test."""
    import importlib
    import types
    import tk_mlir
    ops = {}

    def custom_op(name, mutates_args, device_types):
        def register(fn):
            op = ops[name.split("::")[1]] = OpStandIn(fn)
            return op
        return register
    fake = types.ModuleType("torch")
    fake.Tensor = object
    fake.library = types.SimpleNamespace(custom_op=custom_op)
    fake.float32, fake.bfloat16 = "torch.float32", "torch.bfloat16"
    for name, value in torch_fields.items():
        setattr(fake, name, value)
    monkeypatch.setitem(sys.modules, "torch", fake)
    monkeypatch.delitem(sys.modules, "tk_mlir.torch_ops", raising=False)
    monkeypatch.setattr(tk_mlir, "torch_ops", tk_mlir.torch_ops)
    module = importlib.import_module("tk_mlir.torch_ops")
    assert module.REGISTERED
    return module, ops


def lse_like(shape, dtype="float32", **kw):
    return T(shape, dtype=dtype, **kw)


Q = T((2, 8, 100, 128))
LSE = lse_like((2, 8, 100))
# q, k, v of each cross-argument mismatch, and the message naming one.
MISMATCHED = [
    ((Q, T((2, 8, 99, 128)), T((2, 8, 99, 128))),
     "argument 'k': sequence length 99 differs from q's 100"),
    ((Q, T((2, 3, 100, 128)), T((2, 3, 100, 128))),
     "argument 'k': 3 heads do not divide q's 8"),
    ((T((2, 4, 100, 128)), Q, Q), "argument 'k': 8 heads do not divide "
     "q's 4"),
    ((Q, T((2, 0, 100, 128)), T((2, 0, 100, 128))),
     "argument 'k': empty shape"),
    ((Q, T((1, 8, 100, 128)), T((1, 8, 100, 128))),
     "argument 'k': batch and head dim"),
    ((Q, Q, T((2, 8, 100, 64))), "argument 'v': shape"),
    ((Q, Q, T((2, 4, 100, 128))), "argument 'v': shape"),
]


@pytest.mark.parametrize("qkv,match", MISMATCHED)
@pytest.mark.parametrize("part", ["impl", "fake"])
def test_attention_fwd_op_checks_its_arguments(monkeypatch, qkv, match,
                                               part):
    """torch.ops.tk_mlir.attention_fwd called directly (not through
    attention()) checks q, k and v against each other, in its
    implementation (before any launch) and its fake."""
    module, ops = load_torch_ops(monkeypatch)
    monkeypatch.setattr(module, "attention_forward", lambda *a: pytest.fail(
        "launched"))
    op = ops["attention_fwd"]
    with pytest.raises(ArgumentError, match=match):
        getattr(op, part)(*qkv, False, 0.1)


@pytest.mark.parametrize("args,match", [
    ((*qkv, Q, LSE, Q), match) for qkv, match in MISMATCHED] + [
    ((Q, Q, Q, T((2, 8, 100, 64)), LSE, Q),
     r"argument 'o': shape \(2, 8, 100, 64\) must match q's"),
    ((Q, Q, Q, Q, LSE, T((2, 8, 99, 128))),
     r"argument 'do': shape \(2, 8, 99, 128\) must match q's"),
    ((Q, Q, Q, Q, LSE, T((2, 8, 100, 128), dtype="float32")),
     "argument 'do': expected dtype torch.bfloat16"),
    ((Q, Q, Q, T((2, 8, 100)), LSE, Q),
     "argument 'o': expected a 4-D tensor"),
    ((Q, Q, Q, Q, lse_like((2, 8, 99)), Q),
     r"argument 'lse': expected shape \(2, 8, 100\) \(q's \[batch, heads, "
     r"seq\]\), got \(2, 8, 99\)"),
    ((Q, Q, Q, Q, lse_like((2, 4, 100)), Q), "argument 'lse': expected "
     "shape"),
    ((Q, Q, Q, Q, lse_like((2, 8, 100), dtype="bfloat16"), Q),
     "argument 'lse': expected dtype torch.float32, got torch.bfloat16"),
    ((Q, Q, Q, Q, None, Q), "argument 'lse': expected a tensor, got "
     "NoneType"),
    ((Q, Q, Q, Q, lse_like((2, 8, 100), device="cuda:1"), Q),
     "argument 'lse': on cuda:1, but argument 'q' is on cuda:0"),
    ((Q, Q, Q, T((2, 8, 100, 128), device="cuda:1"), LSE, Q),
     "argument 'o': on cuda:1, but argument 'q' is on cuda:0"),
    ((Q, Q, Q, Q, LSE, Q, lse_like((2, 8, 1))),
     "argument 'dlse': expected shape"),
    ((Q, Q, Q, Q, LSE, Q, lse_like((2, 8, 100), dtype="float16")),
     "argument 'dlse': expected dtype torch.float32"),
    ((Q, Q, Q, Q, LSE, Q, lse_like((2, 8, 100), cuda=False, device="cpu")),
     "argument 'dlse': on cpu, but argument 'q' is on cuda:0"),
])
@pytest.mark.parametrize("part", ["impl", "fake"])
def test_attention_bwd_op_checks_its_arguments(monkeypatch, args, match,
                                               part):
    """torch.ops.tk_mlir.attention_bwd called directly checks q, k and v as
    the forward does, o and do against q, and lse and dlse (the gradient of
    the log-sum-exp, optional) against q's [batch, heads, seq], in its
    implementation (before any launch) and its fake."""
    module, ops = load_torch_ops(monkeypatch)
    monkeypatch.setattr(module, "attention_backward", lambda *a, **k:
                        pytest.fail("launched"))
    q, k, v, o, lse, do, *dlse = args
    with pytest.raises(ArgumentError, match=match):
        getattr(ops["attention_bwd"], part)(q, k, v, o, lse, do, True, 0.1,
                                            *dlse)


def test_attention_bwd_op_passes_checked_arguments_on(monkeypatch):
    """Matching arguments reach attention_backward, dlse included (GQA:
    k and v with fewer heads); the fake gives dq, dk, dv like q, k, v."""
    module, ops = load_torch_ops(monkeypatch,
                                 empty_like=lambda t: ("empty", t.shape))
    seen = []
    monkeypatch.setattr(module, "attention_backward",
                        lambda *a, **k: seen.append((a, k)) or "grads")
    kv, dlse = T((2, 2, 100, 128)), lse_like((2, 8, 100))
    op = ops["attention_bwd"]
    assert op(Q, kv, kv, Q, LSE, Q, True, 0.1, dlse) == "grads"
    assert seen == [((Q, kv, kv, Q, LSE, Q, True, 0.1), {"dlse": dlse})]
    assert op.fake(Q, kv, kv, Q, LSE, Q, True, 0.1) == (
        ("empty", Q.shape), ("empty", kv.shape), ("empty", kv.shape))


class Ctx:
    """A stand-in for the autograd context of the attention op."""

    def __init__(self):
        self.materialize = True

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def set_materialize_grads(self, value):
        self.materialize = value


class Grads:
    def __init__(self, name):
        self.name = name

    def contiguous(self):
        return self.name + ".contiguous"


@pytest.mark.parametrize("do,dlse,want", [
    # A loss of O alone: no dLSE (grads are not materialized).
    (Grads("do"), None, ("do.contiguous", None)),
    # A loss of the log-sum-exp alone: dO = 0.
    (None, "dlse", ("zeros_like o", "dlse")),
    (Grads("do"), "dlse", ("do.contiguous", "dlse")),
])
def test_attention_autograd_passes_the_lse_gradient(monkeypatch, do, dlse,
                                                    want):
    """The autograd formula of attention_fwd gives attention_bwd the
    gradient of the log-sum-exp as well as dO; an output that no loss uses
    gets None (set_materialize_grads(False)), and dO = 0 stands in for an
    unused O."""
    seen = []

    def attention_bwd(*args):
        seen.append(args)
        return "dq", "dk", "dv"
    import types
    module, ops = load_torch_ops(
        monkeypatch, zeros_like=lambda t: "zeros_like " + t,
        ops=types.SimpleNamespace(tk_mlir=types.SimpleNamespace(
            attention_bwd=attention_bwd)))
    op, ctx = ops["attention_fwd"], Ctx()
    op.setup(ctx, ("q", "k", "v", True, 0.1), ("o", "lse"))
    assert ctx.materialize is False
    assert op.backward(ctx, do, dlse) == ("dq", "dk", "dv", None, None)
    assert seen == [("q", "k", "v", "o", "lse", want[0], True, 0.1,
                     want[1])]


def test_attention_autograd_without_gradients_launches_nothing(monkeypatch):
    module, ops = load_torch_ops(monkeypatch)
    op, ctx = ops["attention_fwd"], Ctx()
    op.setup(ctx, ("q", "k", "v", False, 0.1), ("o", "lse"))
    assert op.backward(ctx, None, None) == (None,) * 5


class Rows:
    """A stand-in for Δ: records the in-place updates of its rows."""

    def __init__(self):
        self.updates = []

    def __getitem__(self, key):
        return RowsView(key)

    def __setitem__(self, key, value):
        self.updates.append((key, value.ops))


class RowsView:
    def __init__(self, key):
        self.key, self.ops = key, []

    def __isub__(self, other):
        self.ops.append(("-=", other))
        return self


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("dlse", [None, "dlse"])
def test_backward_subtracts_the_lse_gradient_from_delta(monkeypatch, fused,
                                                        dlse):
    """attention_backward turns dLSE into the Δ every backward program
    reads: Δ − dLSE over the sequence's rows (the padding stays zero),
    before any backward kernel runs; without dLSE, Δ as its program
    wrote it."""
    import types
    from tk_mlir.ops import attention as module
    delta, launched = Rows(), []
    q = T((1, 2, 1024, 64))   # (no row padding: 1024 is a multiple of 4)

    class Kernel:
        def __init__(self, name):
            self.name = name
            self.spec = types.SimpleNamespace(params=[
                {} for _ in module._FUSED_ARGS])

        def __call__(self, *args):
            launched.append((self.name, [a for a in args if a is delta],
                             list(delta.updates)))
    monkeypatch.setattr(module, "_kernel", Kernel)
    monkeypatch.setattr(module, "backward_delta", lambda o, do: delta)
    # (The fused form's dQ accumulator: row-major f32, converted by .to.)
    accumulator = types.SimpleNamespace(to=lambda dtype: "dq")
    monkeypatch.setattr(module, "torch", types.SimpleNamespace(
        empty_like=lambda t: "empty", zeros=lambda *a, **k: accumulator,
        float32="torch.float32"))
    module.attention_backward(q, q, q, q, "lse", q, True, 0.125,
                              fused=fused, dlse=dlse)
    update = [((Ellipsis, slice(None, 1024)), [("-=", "dlse")])] \
        if dlse else []
    assert delta.updates == update
    assert launched and all(seen == [delta] and updates == update
                            for _, seen, updates in launched)
