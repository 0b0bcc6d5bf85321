"""ssd_chunk_scan(x, dt, A, B, C, ...): Mamba2's SSD forward with the tile
programs compiled by tk-opt (kernels/ssm/mamba2_ssd*.mlir), a drop-in for the
forward of mamba_ssm's mamba_chunk_scan_combined:

    h_t = exp(dt_t A_h) h_{t-1} + dt_t x_tᵀ B_t     ([P, N] per head)
    y_t = h_t C_t + D_h x_t,   y_t ← y_t · silu(z_t) when z is given

with dt_t = clamp(softplus?(dt_t + dt_bias_h), *dt_limit). One kernel walks
the sequence for every (batch, head, 64 state rows) and keeps the state on
chip; dt's bias, softplus and limits and dt · A are applied beforehand (a
few small elementwise passes over [batch, seq, heads], read by the kernel
as [batch·heads, seq] rows padded to 16 bytes). The kernels are looked up like attention()'s
($TK_MLIR_ARTIFACTS, default build/artifacts).
"""
import functools
import types
import math

from .attention import load_compiled
from ..tracing import compiling, direct, refuse_tangents
from ..runtime import ArgumentError

try:
    import torch
except ImportError:   # the CPU-side tools and tests run without torch
    torch = None


# State dim N -> program; head dim P is any multiple of 64 the program's
# 64-row state blocks cover (64 and 128 are checked on the GPU).
PROGRAMS = {64: "mamba2_ssd", 128: "mamba2_ssd_n128"}
HEAD_DIMS = (64, 128)
ARGS = ["x", "B", "C", "z", "out", "dt", "dA", "D", "initial_states",
        "final_states", "heads", "groups", "gate", "skip", "load_state",
        "store_state", "handoff_states", "handoff_counters", "segments"]
# Longest sequence split: each piece is one more block per tile.
MAX_SEGMENTS = 4
# The z gate and the D skip are compiled in or out (tile-bind of `gate`
# and `skip`): the untaken branches' registers made the consumer spill
# (188 bytes at N = 64) and cost 10-17% (B = 16, H = 16, T = 4096 and
# 16384; B = 8, H = 80, T = 8192, N = 128; H100).
SWITCHES = {"gate": ARGS.index("gate"), "skip": ARGS.index("skip")}


def kernel_name(state, gate, skip):
    """The compiled variant for state dim `state` with or without the gate
    and the skip."""
    return PROGRAMS[state] + ("_z" if gate else "") + ("_d" if skip else "")


@functools.lru_cache(maxsize=None)
def variants():
    """name -> (program, tk-opt -tile-to-nvidia options), as
    scripts/setup.sh builds them (built once, read-only)."""
    return types.MappingProxyType({kernel_name(state, gate, skip): (
        PROGRAMS[state],
        f"bind={SWITCHES['gate']}={str(gate).lower()},"
        f"{SWITCHES['skip']}={str(skip).lower()}")
        for state in PROGRAMS for gate in (False, True)
        for skip in (False, True)})


def segments_for(tiles, chunks, workers):
    """How many consecutive pieces to cut each tile's chunks into. A tile
    (batch, head, 64 state rows) is one chain of chunks; blocks run whole
    tiles, so 640 tiles on 264 block slots (B = 8, H = 80 on an H100 with
    two blocks per multiprocessor) take three rounds, the last 42% full.
    Cut into S pieces, piece k + 1 of a tile starts from the state piece k
    hands over, and the rounds fill up (1280 pieces: 4.85 rounds of half
    the length), while a tile's pieces still run one after another. The
    time in tile lengths is max(ceil(tiles * S / workers), S) / S; a split
    must save 5% to be taken."""
    def cost(s):
        return max(-(-tiles * s // workers), s) / s
    best = 1
    for s in range(2, min(MAX_SEGMENTS, max(chunks, 1)) + 1):
        if cost(s) < 0.95 * cost(best):
            best = s
    return best


def _kernel(name):
    program, options = variants()[name]
    return load_compiled(name, program, options, ARGS)


def _shape(t):
    return tuple(getattr(t, "shape", ()))


def _dtype(t):
    return str(getattr(t, "dtype", "")).replace("torch.", "")


def _expect(name, t, shape, dtypes, device):
    """ArgumentError naming `name` unless t is a tensor of `shape` with a
    dtype in `dtypes` on `device`."""
    if not all(hasattr(t, a) for a in ("shape", "dtype", "device")):
        raise ArgumentError(f"argument '{name}': expected a tensor, got "
                            f"{type(t).__name__}")
    if _shape(t) != tuple(shape):
        raise ArgumentError(f"argument '{name}': expected shape "
                            f"{tuple(shape)}, got {_shape(t)}")
    if _dtype(t) not in dtypes:
        raise ArgumentError(f"argument '{name}': expected dtype "
                            f"{' or '.join('torch.' + d for d in dtypes)}, "
                            f"got {getattr(t, 'dtype', None)}")
    if t.device != device:
        raise ArgumentError(f"argument '{name}': expected a tensor on "
                            f"{device} (x's device), got one on {t.device}")


FLOATS = ("float32", "bfloat16", "float16")


def check_ssd_arguments(x, dt, A, B, C, chunk_size, D=None, z=None,
                        dt_bias=None, initial_states=None,
                        dt_limit=(0.0, math.inf)):
    """Validates ssd_chunk_scan's tensors; returns (batch, seq, heads,
    head dim, groups, state dim). Raises ArgumentError naming the argument."""
    shape = _shape(x)
    if len(shape) != 4:
        raise ArgumentError(f"argument 'x': expected a 4-D tensor [batch, "
                            f"seq, heads, head dim], got shape {shape}")
    if _dtype(x) != "bfloat16":
        raise ArgumentError(f"argument 'x': expected dtype torch.bfloat16, "
                            f"got {getattr(x, 'dtype', None)}")
    if not getattr(x, "is_cuda", False):
        raise ArgumentError(f"argument 'x': expected a CUDA tensor, got one "
                            f"on {getattr(x, 'device', 'the CPU')}")
    batch, seq, heads, dim = shape
    if 0 in shape:
        raise ArgumentError(f"argument 'x': empty shape {shape}")
    if dim not in HEAD_DIMS:
        raise ArgumentError(f"argument 'x': head dim must be one of "
                            f"{HEAD_DIMS}, got {dim}")
    bshape = _shape(B)
    if len(bshape) != 4 or bshape[:2] != (batch, seq):
        raise ArgumentError(f"argument 'B': expected a 4-D tensor [batch="
                            f"{batch}, seq={seq}, groups, state dim], got "
                            f"shape {bshape}")
    groups, state = bshape[2], bshape[3]
    if groups == 0 or heads % groups:
        raise ArgumentError(f"argument 'B': groups ({groups}) must divide "
                            f"the heads ({heads})")
    if int(state) not in PROGRAMS:   # (int: a traced size is unhashable)
        raise ArgumentError(f"argument 'B': state dim must be one of "
                            f"{tuple(PROGRAMS)}, got {state}")
    device = x.device
    _expect("B", B, bshape, ("bfloat16",), device)
    _expect("C", C, bshape, ("bfloat16",), device)
    _expect("dt", dt, (batch, seq, heads), FLOATS, device)
    _expect("A", A, (heads,), FLOATS, device)
    if z is not None:
        _expect("z", z, shape, ("bfloat16",), device)
    if D is not None:
        if _shape(D) not in ((heads,), (heads, dim)):
            raise ArgumentError(f"argument 'D': expected shape ({heads},) or "
                                f"({heads}, {dim}), got {_shape(D)}")
        _expect("D", D, _shape(D), FLOATS, device)
    if dt_bias is not None:
        _expect("dt_bias", dt_bias, (heads,), FLOATS, device)
    if initial_states is not None:
        _expect("initial_states", initial_states,
                (batch, heads, dim, state), FLOATS, device)
    for name, t in (("x", x), ("B", B), ("C", C), ("z", z)):
        if t is not None and not t.is_contiguous():
            raise ArgumentError(f"argument '{name}': must be contiguous (the "
                                f"kernel reads it in place); strides "
                                f"{tuple(t.stride())} (call .contiguous())")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or \
            chunk_size <= 0:
        raise ArgumentError(f"argument 'chunk_size': expected a positive "
                            f"int, got {chunk_size!r}")
    try:
        low, high = (float(v) for v in dt_limit)
    except (TypeError, ValueError):
        raise ArgumentError(f"argument 'dt_limit': expected a pair of floats "
                            f"(min, max), got {dt_limit!r}") from None
    if math.isnan(low) or math.isnan(high) or low > high:
        raise ArgumentError(f"argument 'dt_limit': expected min <= max, got "
                            f"{dt_limit!r}")
    return batch, seq, heads, dim, groups, state


def ssd_chunk_scan(x, dt, A, B, C, chunk_size=64, D=None, z=None,
                   dt_bias=None, initial_states=None, seq_idx=None,
                   cu_seqlens=None, dt_softplus=False,
                   dt_limit=(0.0, math.inf), return_final_states=False,
                   return_varlen_states=False, state_dtype=None):
    """Mamba2's chunked scan, forward, with mamba_chunk_scan_combined's
    arguments and results: x [batch, seq, heads, P] bf16 (P 64 or 128),
    dt [batch, seq, heads], A [heads], B, C [batch, seq, groups, N] bf16
    (N 64 or 128, groups dividing heads), D [heads] or [heads, P],
    z like x, dt_bias [heads], initial_states [batch, heads, P, N]. Returns
    out (like x), and with return_final_states also the state after the
    last position, [batch, heads, P, N] float32 (as mamba_ssm). `chunk_size`
    and `state_dtype` (the dtype of mamba_ssm's per-chunk states, which
    this kernel never writes) are accepted for compatibility: the kernel
    always scans chunks of 64 positions, which gives the same result up to
    rounding. seq_idx, cu_seqlens and return_varlen_states
    are not supported (ValueError naming them). Forward only: backward
    raises NotImplementedError. A torch custom op
    (torch.ops.tk_mlir.ssd_chunk_scan)."""
    for name, value in (("seq_idx", seq_idx), ("cu_seqlens", cu_seqlens),
                        ("return_varlen_states", return_varlen_states)):
        if value is not None and value is not False:
            raise ValueError(f"ssd_chunk_scan: '{name}' is not supported "
                             f"(packed variable-length sequences); pass "
                             f"{'False' if name.startswith('return') else 'None'}")
    if direct(x, dt, A, B, C, D, z, dt_bias, initial_states):
        out, final = ssd_impl(x, dt, A, B, C, chunk_size, D, z, dt_bias,
                              initial_states, bool(dt_softplus), dt_limit,
                              bool(return_final_states))
        return (out, final) if return_final_states else out
    refuse_tangents("ssd_chunk_scan", x, dt, A, B, C, D, z, dt_bias,
                    initial_states)
    if not compiling():
        check_ssd_arguments(x, dt, A, B, C, chunk_size, D, z, dt_bias,
                            initial_states, dt_limit)
    out, final = torch.ops.tk_mlir.ssd_chunk_scan(
        x, dt, A, B, C, int(chunk_size), D, z, dt_bias, initial_states,
        bool(dt_softplus), float(dt_limit[0]), float(dt_limit[1]),
        bool(return_final_states))
    return (out, final) if return_final_states else out


def ssd_impl(x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states,
             dt_softplus, dt_limit, return_final_states):
    """What torch.ops.tk_mlir.ssd_chunk_scan runs: (out, final states or
    None)."""
    import torch.nn.functional as F
    batch, seq, heads, dim, groups, state = check_ssd_arguments(
        x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states, dt_limit)
    device = x.device
    # dt as the kernel reads it: bias, softplus (x above 20 kept, as
    # mamba_ssm), limits; then dt · A; both [batch·heads, seq] f32.
    steps = dt.float()
    if dt_bias is not None:
        steps = steps + dt_bias.float()
    if dt_softplus:
        steps = F.softplus(steps, threshold=20.0)
    if tuple(dt_limit) != (0.0, math.inf):   # as mamba_ssm: clamp only then
        steps = steps.clamp(float(dt_limit[0]), float(dt_limit[1]))
    # Rows padded with zeros to 16-byte multiples: TMA copies the chunks.
    padded = -(-seq // 4) * 4
    rows_dt = torch.empty(2, batch, heads, padded, device=device,
                          dtype=torch.float32)
    if padded != seq:
        rows_dt[..., seq:].zero_()
    rows_dt[0, ..., :seq].copy_(steps.transpose(1, 2))
    torch.mul(steps.transpose(1, 2), A.float()[:, None],
              out=rows_dt[1, ..., :seq])
    steps, decay = rows_dt.view(2, batch * heads, padded).unbind(0)
    rows = batch * heads * dim // 64
    spare = torch.empty(1, 64, state, device=device, dtype=torch.float32)
    if D is not None:
        skip = D.float().reshape(heads, -1).expand(heads, dim)
        skip = skip.reshape(1, heads * dim).contiguous()
    else:
        skip = spare[0, :1, :64]
    if initial_states is not None:
        start = initial_states.float().contiguous().view(rows, 64, state)
    else:
        start = spare
    final = torch.empty(rows, 64, state, device=device,
                        dtype=torch.float32) if return_final_states else spare
    out = torch.empty_like(x)
    width = heads * dim
    kernel = _kernel(kernel_name(state, z is not None, D is not None))
    segments = segments_for(rows, -(-seq // 64), kernel.block_slots(device))
    if segments > 1:
        handoff = torch.empty(rows, 64, state, device=device,
                              dtype=torch.float32)
        counters = torch.zeros(rows, device=device, dtype=torch.int32)
    else:
        handoff, counters = spare, spare.view(-1).view(torch.int32)[:1]
    kernel(
        x.view(batch, seq, width), B.view(batch, seq, groups * state),
        C.view(batch, seq, groups * state),
        (z if z is not None else x).view(batch, seq, width),
        out.view(batch, seq, width), steps, decay, skip, start, final,
        heads, groups, z is not None, D is not None,
        initial_states is not None, bool(return_final_states), handoff,
        counters, segments)
    if not return_final_states:
        return out, None
    return out, final.view(batch, heads, dim, state)
