"""attention(q, k, v, causal=..., scale=...): softmax(Q Kᵀ · scale) V with the
attention tile programs compiled by tk-opt (kernels/attention/attention_naive.mlir for
head dim 128, kernels/attention/attention_naive_d64.mlir for 64; for head dim 64,
causal and short, the same program with a deeper ring: see `forward_kernel`
and `VARIANTS`).

The compiled kernels are looked up in $TK_MLIR_ARTIFACTS (default
build/artifacts of this checkout), as scripts/setup.sh writes them:
<dir>/<name>/<name>.json, e.g. <dir>/attention_naive/attention_naive.json;
a kernel not found there is compiled from its program on first use, in
process (tk_mlir.compile), and cached on disk.

Gradients go through one of two forms, chosen per head dim and length by
measurement (`CHOICES`, `uses_fused`): the fused kernel, kernels/attention/attention_bwd.mlir
(attention_bwd_d64.mlir for head dim 64; attention_bwd_q80.mlir, an
alternative attention_backward(program=...) runs), where one block per key tile
computes dK and dV and adds its part of dQ into an f32 accumulator; or two
kernels, kernels/attention/attention_bwd_dq.mlir and attention_bwd_dkv.mlir (and their
_d64 twins). attention_backward(..., fused=True/False) picks one explicitly.
Both take Δ = rowsum(dO ∘ O) from its own program, less the gradient of the
log-sum-exp where a loss uses it. The forward is a torch custom op
(torch.ops.tk_mlir.attention_fwd, tk_mlir/torch_ops.py) whose autograd
formula runs the backward (torch.ops.tk_mlir.attention_bwd).
"""
import glob
import math
import os
from typing import NamedTuple, Optional

from ..tracing import compiling, direct, refuse_tangents
from ..runtime import ArgumentError, check_one_device, from_fragments

try:
    import torch
except ImportError:   # the CPU-side tools and tests run without torch
    torch = None


# Head dim -> the forward program the others of that head dim vary (its
# parameters are theirs; its folder and manifest are named alike).
KERNELS = {128: "attention_naive", 64: "attention_naive_d64"}
# Programs compiled a second time with other tk-opt -tile-to-nvidia options,
# under their own name: name -> (program, options); the manifest is
# <artifacts>/<name>/<program>.json.
VARIANTS = {
    "attention_naive_d64_ring4": ("attention_naive_d64",
                                  "stages=4 override-stages=true"),
    "attention_naive_d64_nc": ("attention_naive_d64", "bind=6=false"),
}


class Choice(NamedTuple):
    """A row of CHOICES: for `part` ("forward" or "backward") at head dim
    `dim`, causal or not (`causal`; None: either) and a sequence length in
    [`start`, `stop`) (None: no end), run `kernel`. Backward rows name the
    fused program, or None for the two kernels (BACKWARD). Forward rows
    with `one_tile` launch one tile per block instead of the persistent
    grid."""
    part: str
    dim: int
    causal: Optional[bool]
    start: int
    stop: Optional[int]
    kernel: Optional[str]
    one_tile: bool = False


# What attention() runs: the first row that matches a call. Measured on an
# H100 (docs/performance.md); each row's reason above it.
CHOICES = (
    # Head dim 128, non-causal, from 8192 queries: 176-key tiles (Q from
    # shared memory), 1.8-2.5% faster than the 128-key program at 8192 and
    # 0.9-3.1% at 16384; 2.3-3.8% slower at 4096, level or slower causal.
    Choice("forward", 128, False, 8192, None, "attention_naive_kv176"),
    # Head dim 128 otherwise: 128-query tiles, two consumer warpgroups
    # taking turns on the tensor cores; the persistent grid in snake order
    # overlaps a tile's loads with the previous tile's work.
    Choice("forward", 128, None, 0, None, "attention_naive"),
    # Head dim 64, causal, below 2048 queries: a four-stage K/V ring instead
    # of two, so a warpgroup that skips the key tiles above its rows runs
    # ahead into the next tile: 1.05-1.06x the two-stage ring at 512 and
    # 1024 causal (0.96x non-causal from 2048 on). The 192-query program,
    # which skips per warpgroup, beats the 128-query one
    # (kernels/alternatives/attention_naive_d64_q128.mlir) here too.
    Choice("forward", 64, True, 0, 2048, "attention_naive_d64_ring4"),
    # Head dim 64, causal, from 8192 queries: one tile per block (the
    # hardware's block scheduler balances the tiles' different lengths).
    Choice("forward", 64, True, 8192, None, "attention_naive_d64",
           one_tile=True),
    Choice("forward", 64, True, 0, None, "attention_naive_d64"),
    # Head dim 64, non-causal: the 192-query program compiled for causal =
    # false (`bind`: the causal masks and half steps fold away), 1.00-1.05x
    # the program compiled for both at 512 and 2048.
    Choice("forward", 64, False, 0, None, "attention_naive_d64_nc"),
    # Backward, head dim 128, from 1024 queries: the fused kernel (with the
    # dQ conversion program), 1.06x the two kernels at 1024 (non-causal and
    # causal), 1.01x / 0.91x at 512; head to head with cuDNN at 512 the two
    # kernels are 1.05 / 1.14-1.15x non-causal / causal, the fused one
    # 1.06 / 1.06x. The 80-query fused program (FlashAttention-3's
    # non-causal tile, FUSED_ALTERNATIVES) measures 0.89x attention_bwd at
    # 8192 and 1.00x at 16384, so no row takes it.
    Choice("backward", 128, None, 1024, None, "attention_bwd"),
    Choice("backward", 128, None, 0, None, None),
    # Backward, head dim 64, from 512 queries: the fused program steps over
    # 128 queries: 1.10-1.15x cuDNN head to head at 512 against the two
    # kernels' 0.97-1.05x (calls shorter than 512 were not timed).
    Choice("backward", 64, None, 512, None, "attention_bwd_d64"),
    Choice("backward", 64, None, 0, None, None),
)


def choose(part, dim, seq, causal):
    """The first row of CHOICES for `part` that holds for head dim `dim`,
    `seq` queries and `causal`."""
    for row in CHOICES:
        if row.part == part and row.dim == dim and \
                row.causal in (None, bool(causal)) and seq >= row.start and \
                (row.stop is None or seq < row.stop):
            return row
    raise ValueError(f"no {part} program for head dim {dim}, {seq} queries, "
                     f"causal={bool(causal)}")


BACKWARD = {128: ("attention_bwd_dq", "attention_bwd_dkv"),
            64: ("attention_bwd_dq_d64", "attention_bwd_dkv_d64")}
_DQ_ARGS = ["q", "k", "v", "do", "lse", "delta", "dq", "scale", "causal"]
_DKV_ARGS = ["q", "k", "v", "do", "lse", "delta", "dk", "dv", "scale",
             "causal"]
# Head dim -> the fused backward program (`fused=True`), and the other
# fused backward programs (attention_backward's `program` names one
# of them or FUSED_BACKWARD's): head dim -> names.
FUSED_BACKWARD = {128: "attention_bwd", 64: "attention_bwd_d64"}
FUSED_ALTERNATIVES = {128: ("attention_bwd_q80",)}
_FUSED_ARGS = ["q", "k", "v", "do", "lse", "delta", "dq_accum", "dk", "dv",
               "scale", "causal"]
_ARG_NAMES = {name: args for dq, dkv in BACKWARD.values()
              for name, args in ((dq, _DQ_ARGS), (dkv, _DKV_ARGS))}
_ARG_NAMES.update({name: _FUSED_ARGS for name in FUSED_BACKWARD.values()})
_ARG_NAMES.update({name: _FUSED_ARGS
                   for names in FUSED_ALTERNATIVES.values() for name in names})
# Head dim -> the program computing Δ = rowsum(dO ∘ O) for either form.
DELTA = {128: "attention_bwd_delta", 64: "attention_bwd_delta_d64"}
_ARG_NAMES.update({name: ["o", "do", "delta"] for name in DELTA.values()})
# The program that turns a fused program's row-major f32 dQ accumulator (in
# fragment order) into bf16 dQ, any head dim that is a multiple of 64: 0.5x
# the time of the equivalent torch copy (`runtime.from_fragments`), which
# remains for the transposed accumulator of attention_bwd_q80.
DQ_CONVERT = "attention_bwd_dq_convert"
_ARG_NAMES[DQ_CONVERT] = ["dq_accum", "dq"]
LAYOUTS = ("bhsd", "bshd")


def artifacts_dir():
    default = os.path.join(os.path.dirname(__file__), "..", "..", "..",
                           "build", "artifacts")
    return os.environ.get("TK_MLIR_ARTIFACTS", os.path.normpath(default))


def check_attention_arguments(q, k, v, layout):
    """Validates the inputs of `attention`; returns (batch, heads, kv_heads,
    seq, dim) in [batch, heads, seq, dim] terms. Raises ArgumentError naming
    the argument, ValueError for a bad layout."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    tensors = (("q", q), ("k", k), ("v", v))
    shapes = {name: bhsd_shape(name, t, layout) for name, t in tensors}
    for name, t in tensors:
        if 0 in shapes[name]:   # (k without heads: q's heads / 0 of them)
            raise ArgumentError(f"argument '{name}': empty shape "
                                f"{tuple(t.shape)}")
    batch, heads, seq, dim = shapes["q"]
    if int(dim) not in KERNELS:   # (int: a traced size is unhashable)
        raise ArgumentError(f"argument 'q': head dim {dim} is not supported; "
                            f"kernels exist for {sorted(KERNELS)}")
    kb, kv_heads, kseq, kdim = shapes["k"]
    if (kb, kdim) != (batch, dim):
        raise ArgumentError(f"argument 'k': batch and head dim {(kb, kdim)} "
                            f"must match q's {(batch, dim)}")
    if kseq != seq:
        raise ArgumentError(f"argument 'k': sequence length {kseq} differs "
                            f"from q's {seq}; only equal lengths are "
                            f"supported")
    if shapes["v"] != shapes["k"]:
        raise ArgumentError(f"argument 'v': shape {shapes['v']} (in "
                            f"[batch, heads, seq, dim] order) must match k's "
                            f"{shapes['k']}")
    if heads % kv_heads:
        raise ArgumentError(f"argument 'k': {kv_heads} heads do not divide "
                            f"q's {heads} (GQA needs kv heads | q heads)")
    check_one_device([(f"argument '{name}'", t) for name, t in tensors])
    return batch, heads, kv_heads, seq, dim


def check_attention_backward_arguments(q, k, v, o, lse, do, dlse=None):
    """Validates the inputs of the backward (torch.ops.tk_mlir.attention_bwd,
    all in the "bhsd" layout): q, k and v as `check_attention_arguments`
    takes them, o and do of q's shape and dtype, lse and dlse (None: no
    gradient of the log-sum-exp) f32 [batch, heads, seq], all on q's device;
    returns check_attention_arguments' (batch, heads, kv_heads, seq, dim).
    Raises ArgumentError naming the argument."""
    batch, heads, kv_heads, seq, dim = check_attention_arguments(q, k, v,
                                                                 "bhsd")
    want = (batch, heads, seq, dim)
    for name, t in (("o", o), ("do", do)):
        if bhsd_shape(name, t, "bhsd") != want:
            raise ArgumentError(f"argument '{name}': shape {tuple(t.shape)} "
                                f"must match q's {want}")
    rows = (batch, heads, seq)
    for name, t in (("lse", lse), ("dlse", dlse)):
        if t is None and name == "dlse":
            continue
        if not hasattr(t, "shape"):
            raise ArgumentError(f"argument '{name}': expected a tensor, got "
                                f"{type(t).__name__}")
        if tuple(t.shape) != rows:
            raise ArgumentError(f"argument '{name}': expected shape {rows} "
                                f"(q's [batch, heads, seq]), got "
                                f"{tuple(t.shape)}")
        if str(getattr(t, "dtype", "")) != "torch.float32":
            raise ArgumentError(f"argument '{name}': expected dtype "
                                f"torch.float32, got {t.dtype}")
    check_one_device([(f"argument '{name}'", t) for name, t in (
        ("q", q), ("o", o), ("lse", lse), ("do", do), ("dlse", dlse))])
    return batch, heads, kv_heads, seq, dim


def bhsd_shape(name, t, layout):
    """The [batch, heads, seq, dim] shape of argument `name`, a 4-D bf16
    CUDA tensor in `layout` ("bhsd" or "bshd"); ArgumentError naming it
    otherwise."""
    shape = tuple(getattr(t, "shape", ()))
    if len(shape) != 4:
        raise ArgumentError(
            f"argument '{name}': expected a 4-D tensor "
            f"[{', '.join(_dims(layout))}], got shape {shape}")
    if str(getattr(t, "dtype", "")) != "torch.bfloat16":
        raise ArgumentError(f"argument '{name}': expected dtype "
                            f"torch.bfloat16, got {t.dtype}")
    if not getattr(t, "is_cuda", False):
        raise ArgumentError(f"argument '{name}': expected a CUDA tensor")
    b, x, y, d = shape
    return (b, x, y, d) if layout == "bhsd" else (b, y, x, d)


def _dims(layout):
    return ("batch", "heads", "seq", "dim") if layout == "bhsd" else \
        ("batch", "seq", "heads", "dim")


def programs_dir():
    """The bundled tile programs: the package's copy (an installed wheel),
    else the checkout's kernels/."""
    here = os.path.dirname(os.path.abspath(__file__))
    packaged = os.path.join(here, "..", "programs")
    if os.path.isdir(packaged):
        return os.path.normpath(packaged)
    return os.path.normpath(os.path.join(here, "..", "..", "..", "kernels"))


def compiled_manifest(name, program, options):
    """The manifest of the bundled `program` compiled with -tile-to-nvidia
    `options`: the prebuilt one in <artifacts>/`name`/ when there is one
    (scripts/setup.sh), else compiled now in-process (tk_mlir.compile, cached
    on disk, so once per machine)."""
    path = os.path.join(artifacts_dir(), name, program + ".json")
    if os.path.exists(path):
        return path
    from ..compiler import compile as compile_program
    return compile_program(program_source(program), "sm_90a",
                           options).manifest_path


def program_source(program):
    """The bundled program `program`: programs_dir()/<family>/`program`.mlir
    (FileNotFoundError naming it when there is none)."""
    found = glob.glob(os.path.join(programs_dir(), "*", program + ".mlir"))
    if len(found) != 1:
        raise FileNotFoundError(f"no program {program}.mlir in "
                                f"{programs_dir()}/<family>/")
    return found[0]


_loaded = {}


def load_compiled(name, program, options, names):
    """The kernel `name`: the bundled `program` compiled with -tile-to-nvidia
    `options` (compiled_manifest), loaded once per process. Every kernel
    family's variants load through here."""
    from ..runtime import Kernel
    if name not in _loaded:
        _loaded[name] = Kernel(compiled_manifest(name, program, options),
                               names=names)
    return _loaded[name]


def _kernel(name):
    program, options = VARIANTS.get(name, (name, ""))
    names = _ARG_NAMES.get(
        name, ["q", "k", "v", "o", "lse", "scale", "causal"])
    return load_compiled(name, program,
                         " ".join(filter(None, ["producer-registers=24",
                                                options])), names)


def forward_kernel(dim, seq, causal):
    """Name of the forward kernel for head dim `dim` and sequence length
    `seq` (CHOICES)."""
    return choose("forward", dim, seq, causal).kernel


def attention_forward(q, k, v, causal, scale):
    """O and LSE for contiguous [batch, heads, seq, dim] bf16 tensors."""
    batch, heads, seq, dim = q.shape
    o = torch.empty_like(q)
    lse = torch.empty(batch, heads, seq, device=q.device,
                      dtype=torch.float32)
    _kernel(forward_kernel(dim, seq, causal))(
        q, k, v, o, lse, float(scale), bool(causal),
        one_tile_per_block=one_tile_per_block(dim, seq, causal))
    return o, lse


def one_tile_per_block(dim, seq, causal):
    """Whether the forward for head dim `dim` and `seq` queries launches one
    tile per block instead of the persistent grid (CHOICES)."""
    return choose("forward", dim, seq, causal).one_tile


def row_padding(seq):
    """Elements to append to rows of `seq` f32 values so a TMA copy can read
    them: the backward programs copy L and Δ ([batch, heads, seq]) into
    shared memory with TMA, which needs rows of whole 16 bytes (4 values)."""
    return -seq % 4


def backward_delta(o, do):
    """Δ = rowsum(dO ∘ O) in f32 for contiguous [batch, heads, seq, dim] bf16
    O and dO, by the attention_bwd_delta program: [batch, heads, seq + p]
    with p = row_padding(seq) zeros at the end of each row (the backward
    programs copy rows of Δ with TMA)."""
    batch, heads, seq, dim = o.shape
    delta = torch.empty(batch, heads, seq + row_padding(seq),
                        device=o.device, dtype=torch.float32)
    _kernel(DELTA[dim])(o, do, delta)
    return delta


def uses_fused(dim, seq):
    """Whether attention() runs the fused backward for head dim `dim` and
    `seq` queries (CHOICES)."""
    return choose("backward", dim, seq, False).kernel is not None


def fused_program(dim, seq, causal):
    """Name of the fused backward program for head dim `dim`, `seq` queries
    and `causal`: CHOICES' row, or FUSED_BACKWARD's where the row takes the
    two kernels (a call asking for the fused form)."""
    return choose("backward", dim, seq, causal).kernel or FUSED_BACKWARD[dim]


def _round_up(n, m):
    return -(-n // m) * m


def attention_backward(q, k, v, o, lse, do, causal, scale, fused=None,
                       program=None, dlse=None):
    """dQ, dK, dV for contiguous [batch, heads, seq, dim] tensors, from the
    forward's O and LSE (Δ = rowsum(dO ∘ O) by `backward_delta`).
    fused: True, one kernel that adds dQ into an f32 accumulator (converted
    to bf16 here); False, the dQ and dK/dV kernels; None (default), the
    faster form for the head dim and length (`uses_fused`). program: the
    name of the fused program to run (FUSED_BACKWARD's or one of
    FUSED_ALTERNATIVES for the head dim) instead of `fused_program`'s
    choice. dlse: the gradient of the log-sum-exp, f32 [batch, heads, seq]
    (None: zero)."""
    dim = q.shape[-1]
    if dim not in BACKWARD:
        raise NotImplementedError(
            f"attention backward exists for head dims {sorted(BACKWARD)}, "
            f"not {dim}")
    if program is not None:
        choices = (FUSED_BACKWARD[dim],) + FUSED_ALTERNATIVES.get(dim, ())
        if program not in choices:
            raise ValueError(
                f"program: head dim {dim} has the fused programs "
                f"{list(choices)}, not {program!r}")
        fused = True
    if fused is None:
        fused = uses_fused(dim, q.shape[2])
    delta = backward_delta(o, do)
    if dlse is not None:
        # LSE_i = log Σ_j exp(x_ij), x = scale · Q Kᵀ (natural log, as the
        # forward stores it), so ∂LSE_i/∂x_ij = P_ij and the gradient of x
        # is P ∘ (dP − Δ) + P ∘ dLSE = P ∘ (dP − (Δ − dLSE)): every backward
        # program computes it from Δ − dLSE in place of Δ. Rows past the
        # sequence (the padding) stay zero.
        delta[..., :q.shape[2]] -= dlse
    pad = row_padding(q.shape[2])
    if pad:  # padded rows are past the sequence: never used
        lse = torch.nn.functional.pad(lse, (0, pad))
    if fused:
        kernel = _kernel(program or fused_program(dim, q.shape[2], causal))
        # The f32 dQ accumulator, row-major or (as the manifest says) in
        # fragment order, which takes whole 64-row slabs; a view whose
        # columns are dynamic holds dQ transposed, [batch, heads, dim, seq],
        # the sequence padded to the kernel's column tiles.
        batch, heads, seq, _ = q.shape
        param = kernel.spec.params[_FUSED_ARGS.index("dq_accum")]
        fragments = param.get("layout") == "fragments"
        transposed = fragments and param["shape"][-1] == -1
        if transposed:
            rows = _round_up(seq, param.get("tile_cols", 8))
            shape = (batch, heads, dim, rows)
        else:
            rows = _round_up(seq, 64) if fragments else seq
            shape = (batch, heads, rows, dim)
        dq_accum = torch.zeros(shape, device=q.device, dtype=torch.float32)
        dk, dv = torch.empty_like(k), torch.empty_like(v)
        kernel(q, k, v, do, lse, delta, dq_accum, dk, dv, float(scale),
               bool(causal))
        if not fragments:
            return dq_accum.to(q.dtype), dk, dv
        if transposed:
            dq = from_fragments(dq_accum, q.dtype, transpose=True)
            if rows != seq:
                dq = dq[:, :, :seq].contiguous()
        else:
            dq = torch.empty_like(q)
            _kernel(DQ_CONVERT)(dq_accum, dq)
        return dq, dk, dv
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    dq_name, dkv_name = BACKWARD[dim]
    _kernel(dq_name)(q, k, v, do, lse, delta, dq, float(scale), bool(causal))
    _kernel(dkv_name)(q, k, v, do, lse, delta, dk, dv, float(scale),
                      bool(causal))
    return dq, dk, dv


def refuse_scale_gradient(scale):
    """NotImplementedError naming `scale` when it is a tensor that requires
    grad while grad mode is on: attention() takes the scale as a number
    (float(scale)), which would silently give it no gradient."""
    if torch is not None and isinstance(scale, torch.Tensor) and \
            scale.requires_grad and torch.is_grad_enabled():
        raise NotImplementedError(
            "argument 'scale': a tensor that requires grad; tk_mlir.attention "
            "takes the scale as a number and has no gradient with respect to "
            "it (pass float(scale) or scale.detach() to use its value as a "
            "constant)")


def attention(q, k, v, causal=False, scale=None, layout="bhsd",
              return_lse=False):
    """softmax(q kᵀ · scale) v for bf16 CUDA tensors in layout "bhsd"
    ([batch, heads, seq, dim]) or "bshd" ([batch, seq, heads, dim]); k and v
    may have fewer heads than q (GQA/MQA). scale: a number (default
    1/√dim); a tensor is read as its value, so one that requires grad is
    refused (there is no gradient with respect to the scale). Returns o in
    q's layout, and with return_lse=True also the f32 log-sum-exp
    log Σ_j exp(scale · q_i·k_j) (natural log) [batch, heads, seq].
    Differentiable in q, k and v through o and the log-sum-exp; a torch
    custom op (torch.compile traces it)."""
    if not compiling():   # (under torch.compile the op's fake checks)
        check_attention_arguments(q, k, v, layout)
        needs_grad = torch.is_grad_enabled() and any(
            t.requires_grad for t in (q, k, v))
        if needs_grad and q.shape[-1] not in BACKWARD:
            raise NotImplementedError(
                f"attention backward exists for head dims "
                f"{sorted(BACKWARD)}, not {q.shape[-1]}")
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    else:
        refuse_scale_gradient(scale)
    if layout == "bshd":
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    # torch.ops.tk_mlir.attention_fwd (torch_ops): differentiable; called
    # directly when no gradient is wanted (tracing.direct).
    if direct(q, k, v):
        o, lse = attention_forward(q, k, v, bool(causal), float(scale))
    else:
        refuse_tangents("attention", q, k, v)
        o, lse = torch.ops.tk_mlir.attention_fwd(q, k, v, bool(causal),
                                                 float(scale))
    if layout == "bshd":
        o = o.transpose(1, 2).contiguous()
    return (o, lse) if return_lse else o
