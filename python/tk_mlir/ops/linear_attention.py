"""linear_attention(q, k, v, ...): causal linear attention with the tile
programs compiled by tk-opt (kernels/linear_attention/*.mlir), forward only.

    o_t = Σ_{s<=t} (φ(q_t)·φ(k_s)) v_s [/ Σ_{s<=t} φ(q_t)·φ(k_s)]

with φ the feature map (`feature_map="elu1"`: elu(x) + 1). The compiled
kernels are looked up like attention()'s ($TK_MLIR_ARTIFACTS, default
build/artifacts): <dir>/<name>/<program>.json. Each linear-attention
program is compiled once per layout (tile-bind fixes its `bshd` parameter)
and Based's once per value of `normalize` (its tile space comes from o's
shape, so one program reads both layouts); either way both layouts are read
and written in place.
"""

import functools
import types

from .attention import _dims, bhsd_shape, load_compiled
from ..tracing import compiling, direct, refuse_tangents
from ..runtime import ArgumentError, check_one_device

try:
    import torch
except ImportError:   # the CPU-side tools and tests run without torch
    torch = None


LAYOUTS = ("bhsd", "bshd")
FEATURE_MAPS = ("elu1",)
# (feature map, normalize, decayed, head dim) -> program.
PROGRAMS = {
    ("elu1", True, False, 64): "linear_attention",
    ("elu1", True, False, 128): "linear_attention_d128",
    (None, False, True, 128): "linear_attention_decay",
}
# Each program's parameter names, in order (ArgumentError names them).
ARGS = {
    "linear_attention": ["q", "k", "v", "o", "batch", "heads", "bshd"],
    "linear_attention_d128": ["q", "k", "v", "o", "batch", "heads", "bshd"],
    "linear_attention_decay": ["q", "k", "v", "o", "decay", "state", "batch",
                               "heads", "bshd", "store_state"],
    "based": ["q", "k", "v", "o", "normalize"],
}
# Based's feature dim (q, k) and value dim (v).
BASED_DIMS = (16, 64)
# The index of each program's `bshd` parameter (tile-bind binds it).
BSHD_PARAM = {name: args.index("bshd") for name, args in ARGS.items()
              if "bshd" in args}
# Based reads both layouts with one program (its tile space comes from o's
# shape); it is compiled once per value of `normalize` instead.
BASED_VARIANTS = {
    normalize: (f"based{'_norm' if normalize else ''}",
                f"bind={ARGS['based'].index('normalize')}="
                f"{'true' if normalize else 'false'}")
    for normalize in (True, False)}


def kernel_name(program, layout):
    """The compiled variant of `program` for `layout`."""
    return f"{program}_{layout}"


@functools.lru_cache(maxsize=None)
def variants():
    """name -> (program, tk-opt -tile-to-nvidia options) of every compiled
    variant, as scripts/setup.sh builds them (built once, read-only)."""
    found = {kernel_name(p, layout): (p, f"bind={BSHD_PARAM[p]}="
                                         f"{'true' if layout == 'bshd' else 'false'}")
             for p in PROGRAMS.values() for layout in LAYOUTS}
    found.update({name: ("based", options)
                  for name, options in BASED_VARIANTS.values()})
    return types.MappingProxyType(found)


def _kernel(name):
    program, options = variants()[name]
    return load_compiled(name, program, options, ARGS[program])


def check_arguments(q, k, v, layout):
    """Validates q, k, v (v's last dimension may differ from q's); returns
    (batch, heads, seq, dim) in [batch, heads, seq, dim] terms. Raises
    ArgumentError naming the argument, ValueError for a bad layout."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    shapes = {}
    for name, t in (("q", q), ("k", k), ("v", v)):
        shapes[name] = bhsd_shape(name, t, layout)
        if not t.is_contiguous():
            raise ArgumentError(
                f"argument '{name}': must be contiguous in the "
                f"[{', '.join(_dims(layout))}] layout; strides "
                f"{tuple(t.stride())} (call .contiguous())")
        if 0 in t.shape:
            raise ArgumentError(f"argument '{name}': empty shape "
                                f"{tuple(t.shape)}")
    if shapes["k"] != shapes["q"]:
        raise ArgumentError(f"argument 'k': shape {shapes['k']} (in [batch, "
                            f"heads, seq, dim] order) must match q's "
                            f"{shapes['q']}")
    if shapes["v"][:3] != shapes["q"][:3]:
        raise ArgumentError(f"argument 'v': batch, heads and seq "
                            f"{shapes['v'][:3]} must match q's "
                            f"{shapes['q'][:3]}")
    check_one_device([(f"argument '{name}'", t)
                      for name, t in (("q", q), ("k", k), ("v", v))])
    return shapes["q"]


def program_for(feature_map, normalize, decay, dim, value_dim):
    """The program computing this form of linear attention; raises
    ValueError for an unknown feature map, ArgumentError for a value dim
    the program cannot take, NotImplementedError for a form with no
    program."""
    if feature_map is not None and feature_map not in FEATURE_MAPS:
        raise ValueError(f"feature_map must be one of {FEATURE_MAPS} or "
                         f"None, got {feature_map!r}")
    key = (feature_map, bool(normalize), decay is not None, int(dim))
    if key not in PROGRAMS:
        supported = "; ".join(
            f"feature_map={f!r}, normalize={n}, "
            f"decay={'slopes' if d else None}, head dim {h}"
            for f, n, d, h in PROGRAMS)
        raise NotImplementedError(
            f"linear_attention: no program for feature_map={feature_map!r}, "
            f"normalize={bool(normalize)}, "
            f"decay={'slopes' if decay is not None else None}, head dim "
            f"{dim}; there are: {supported}")
    if value_dim != dim:
        raise ArgumentError(f"argument 'v': value dim {value_dim} must be "
                            f"q's head dim {dim} for this program")
    return PROGRAMS[key]


def check_decay(decay, heads, device):
    """Validates per-head slopes: a float tensor [heads] on q's device."""
    shape = tuple(getattr(decay, "shape", ()))
    if shape != (heads,):
        raise ArgumentError(f"argument 'decay': expected a tensor of one "
                            f"slope per head, shape ({heads},), got {shape}")
    if not str(getattr(decay, "dtype", "")).startswith("torch.float") and \
            str(getattr(decay, "dtype", "")) != "torch.bfloat16":
        raise ArgumentError(f"argument 'decay': expected a float tensor, got "
                            f"{decay.dtype}")
    if getattr(decay, "device", None) != device:
        raise ArgumentError(f"argument 'decay': expected a tensor on "
                            f"{device}, got one on "
                            f"{getattr(decay, 'device', None)}")


def linear_attention(q, k, v, feature_map="elu1", normalize=True,
                     decay=None, layout="bhsd", return_state=False):
    """Causal linear attention of bf16 CUDA tensors in layout "bhsd"
    ([batch, heads, seq, dim]) or "bshd" ([batch, seq, heads, dim]).

    feature_map="elu1", normalize=True: o_t = Σ_{s<=t} (φq_t·φk_s) v_s /
    Σ_{s<=t} φq_t·φk_s with φ = elu + 1 (head dims 64 and 128).
    feature_map=None, normalize=False, decay=slopes (a tensor [heads]):
    o_t = Σ_{s<=t} exp(-slope_h (t - s)) (q_t·k_s) v_s (head dim 128); with
    return_state=True also the f32 state after the last position,
    [batch, heads, dim, dim] (Σ_s exp(-slope_h (T - 1 - s)) k_sᵀ v_s).

    Returns o (bf16) in the input layout (and the state). Forward only:
    calling backward on the result raises NotImplementedError. A torch
    custom op (torch.ops.tk_mlir.linear_attention)."""
    if direct(q, k, v, decay):
        o, state = linear_attention_impl(q, k, v, feature_map, normalize,
                                         decay, layout, return_state)
        return (o, state) if return_state else o
    refuse_tangents("linear_attention", q, k, v, decay)
    if not compiling():
        linear_attention_checks(q, k, v, feature_map, normalize, decay,
                                layout, return_state)
    o, state = torch.ops.tk_mlir.linear_attention(
        q, k, v, feature_map, bool(normalize), decay, layout,
        bool(return_state))
    return (o, state) if return_state else o


def linear_attention_checks(q, k, v, feature_map, normalize, decay, layout,
                            return_state):
    """linear_attention's argument checks; returns (batch, heads, seq, dim)
    and the program."""
    batch, heads, seq, dim = check_arguments(q, k, v, layout)
    program = program_for(feature_map, normalize, decay, dim, v.shape[-1])
    if return_state and decay is None:
        raise NotImplementedError("linear_attention: return_state is "
                                  "supported with decay only")
    if decay is not None:
        check_decay(decay, heads, q.device)
    return (batch, heads, seq, dim), program


def linear_attention_impl(q, k, v, feature_map, normalize, decay, layout,
                          return_state):
    """What torch.ops.tk_mlir.linear_attention runs: (o, state or None)."""
    (batch, heads, seq, dim), program = linear_attention_checks(
        q, k, v, feature_map, normalize, decay, layout, return_state)
    if decay is None:
        return _run(program, layout, q, k, v, (batch, heads, seq)), None
    # The per-step log decay of each head, read past the end as 0.
    steps = decay.float()[:, None].expand(heads, seq).contiguous()
    state = torch.empty(batch * heads if return_state else 1, dim, dim,
                        device=q.device, dtype=torch.float32)
    o = _run(program, layout, q, k, v, (batch, heads, seq),
             views=(steps, state), scalars=(bool(return_state),))
    return o, (state.view(batch, heads, dim, dim) if return_state else None)


def _views(layout, shape, tensors):
    """The tensors as the programs' 3-d views: [batch·heads, seq, dim] for
    "bhsd", [batch, seq, heads·dim] for "bshd"."""
    batch, heads, seq = shape
    if layout == "bhsd":
        return [t.view(batch * heads, seq, t.shape[-1]) for t in tensors]
    return [t.view(batch, seq, heads * t.shape[-1]) for t in tensors]


def _run(program, layout, q, k, v, shape, views=(), scalars=()):
    """Launches `program`'s variant for `layout` on q, k, v and a new o
    (then the program's other `views`, its batch, heads and bshd
    parameters, then its other `scalars`); returns o."""
    batch, heads, _ = shape
    o = torch.empty_like(v)
    _kernel(kernel_name(program, layout))(*_views(layout, shape, (q, k, v, o)),
                                          *views, batch, heads,
                                          layout == "bshd", *scalars)
    return o


def check_based_arguments(q, k, v, layout):
    """check_arguments, and Based's dims: feature dim 16 (q, k), value dim
    64 (v)."""
    batch, heads, seq, dim = check_arguments(q, k, v, layout)
    if dim != BASED_DIMS[0]:
        raise ArgumentError(f"argument 'q': based takes feature dim "
                            f"{BASED_DIMS[0]} (q, k), got {dim}")
    if v.shape[-1] != BASED_DIMS[1]:
        raise ArgumentError(f"argument 'v': based takes value dim "
                            f"{BASED_DIMS[1]}, got {v.shape[-1]}")
    return batch, heads, seq, dim


def based(q, k, v, normalize=True, layout="bhsd"):
    """Based linear attention of bf16 CUDA tensors (q, k: feature dim 16;
    v: value dim 64) in layout "bhsd" or "bshd", as FLA's parallel_based
    defines it: with s = (q_t / 4)·k_s and a = 1 + s + s² / 2,
    o_t = Σ_{s<=t} a v_s, divided by Σ_{s<=t} a + 1e-6 when `normalize`.
    Returns o (bf16) in the input layout. Forward only: calling backward on
    the result raises NotImplementedError. A torch custom op
    (torch.ops.tk_mlir.based)."""
    if direct(q, k, v):
        return based_impl(q, k, v, normalize, layout)
    refuse_tangents("based", q, k, v)
    if not compiling():
        check_based_arguments(q, k, v, layout)
    return torch.ops.tk_mlir.based(q, k, v, bool(normalize), layout)


def based_impl(q, k, v, normalize, layout):
    """What torch.ops.tk_mlir.based runs."""
    batch, heads, seq, _ = check_based_arguments(q, k, v, layout)
    o = torch.empty_like(v)
    name, _ = BASED_VARIANTS[bool(normalize)]
    _kernel(name)(*_views(layout, (batch, heads, seq), (q, k, v, o)),
                  bool(normalize))
    return o
