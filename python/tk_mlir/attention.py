"""attention(q, k, v, causal=..., scale=...): softmax(Q Kᵀ · scale) V with the
attention tile programs compiled by tk-opt (kernels/attention_naive.mlir for
head dim 128, kernels/attention_naive_d64.mlir for 64).

The compiled kernels are looked up in $TK_MLIR_ARTIFACTS (default
build/artifacts of this checkout), as scripts/setup.sh writes them:
<dir>/attention_naive/attention_naive.json and
<dir>/attention_naive_d64/attention_naive_d64.json.

Forward only: gradients are not implemented yet, and asking for them
raises NotImplementedError rather than returning wrong ones.
"""
import math
import os

from .runtime import ArgumentError

# Head dim -> kernel name (its folder and manifest are named alike).
KERNELS = {128: "attention_naive", 64: "attention_naive_d64"}
LAYOUTS = ("bhsd", "bshd")


def artifacts_dir():
    default = os.path.join(os.path.dirname(__file__), "..", "..", "build",
                           "artifacts")
    return os.environ.get("TK_MLIR_ARTIFACTS", os.path.normpath(default))


def check_attention_arguments(q, k, v, layout):
    """Validates the inputs of `attention`; returns (batch, heads, kv_heads,
    seq, dim) in [batch, heads, seq, dim] terms. Raises ArgumentError naming
    the argument, ValueError for a bad layout."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    shapes = {}
    for name, t in (("q", q), ("k", k), ("v", v)):
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
        shapes[name] = (b, x, y, d) if layout == "bhsd" else (b, y, x, d)
    batch, heads, seq, dim = shapes["q"]
    if dim not in KERNELS:
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
    return batch, heads, kv_heads, seq, dim


def _dims(layout):
    return ("batch", "heads", "seq", "dim") if layout == "bhsd" else \
        ("batch", "seq", "heads", "dim")


_loaded = {}


def _kernel(dim):
    from .runtime import Kernel
    name = KERNELS[dim]
    if name not in _loaded:
        path = os.path.join(artifacts_dir(), name, name + ".json")
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"no compiled kernel at {path}; run scripts/setup.sh or "
                f"tk-opt kernels/{name}.mlir -tile-to-nvidia=\"out="
                f"{os.path.dirname(path)} producer-registers=24\"")
        _loaded[name] = Kernel(path, names=["q", "k", "v", "o", "lse",
                                            "scale", "causal"])
    return _loaded[name]


def attention(q, k, v, causal=False, scale=None, layout="bhsd",
              return_lse=False):
    """softmax(q kᵀ · scale) v for bf16 CUDA tensors in layout "bhsd"
    ([batch, heads, seq, dim]) or "bshd" ([batch, seq, heads, dim]); k and v
    may have fewer heads than q (GQA/MQA). Returns o in q's layout, and with
    return_lse=True also the f32 log-sum-exp [batch, heads, seq]."""
    import torch
    check_attention_arguments(q, k, v, layout)
    if torch.is_grad_enabled() and any(
            t.requires_grad for t in (q, k, v)):
        raise NotImplementedError(
            "attention backward is not implemented yet; call under "
            "torch.no_grad() or with inputs that do not require grad")
    if layout == "bshd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    q, k, v = (t.contiguous() for t in (q, k, v))
    batch, heads, seq, dim = q.shape
    if scale is None:
        scale = 1.0 / math.sqrt(dim)
    o = torch.empty_like(q)
    lse = torch.empty(batch, heads, seq, device=q.device,
                      dtype=torch.float32)
    _kernel(dim)(q, k, v, o, lse, float(scale), bool(causal))
    if layout == "bshd":
        o = o.transpose(1, 2).contiguous()
    return (o, lse) if return_lse else o
