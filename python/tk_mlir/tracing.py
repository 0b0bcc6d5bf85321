"""Whether torch.compile is tracing (the public kernel functions then leave
their argument checks to the torch ops' fake implementations, which run on
the traced shapes), and whether a call can skip its torch custom op;
False without torch."""
try:
    import torch
except ImportError:   # the CPU-side tools and tests run without torch
    torch = None


def compiling():
    return torch is not None and hasattr(torch, "compiler") and \
        torch.compiler.is_compiling()


def direct(*tensors):
    """True when a public kernel function may run its implementation
    directly instead of through its torch custom op: eager, with nothing
    that has to see the op — torch.compile or torch.jit tracing, a torch
    function or dispatch mode (FakeTensorMode, FlopCounterMode, a default
    device), forward-mode AD, functorch transforms (vmap, grad) — every
    tensor argument a plain torch.Tensor or nn.Parameter, and no gradient
    wanted from any of them (with one, the op's autograd formula, or its
    error for a forward-only op, must be recorded). The op's dispatch costs
    tens of microseconds on the host per call, more than small kernels take
    on the GPU (tk_mlir.based, B = H = 16, T = 1024 on an H100: 63 against
    48 us of host time a call)."""
    # (Compiling first: what torch.compile traces must not reach probes(),
    # whose cache it would then guard on.)
    if torch is None or compiling():
        return False
    found = probes()
    if found.active() or found.forward_ad() >= 0:
        return False
    plain, wrapped = found.plain, found.wrapped
    grad = torch.is_grad_enabled()
    for t in tensors:
        if t is None:
            continue
        if type(t) not in plain or (grad and t.requires_grad) or \
                (wrapped is not None and wrapped(t)):
            return False
    return True


def refuse_tangents(name, *tensors):
    """Raises NotImplementedError when forward-mode AD
    (torch.autograd.forward_ad, torch.func.jvp) gives any of `tensors` a
    tangent: the kernels have no forward-mode formula, and PyTorch runs a
    custom op whose inputs want no gradient without one, so the result
    would silently have no tangent, or under torch.func.jvp a zero one
    (torch 2.11, one H200). Outside forward-mode AD it reads one
    attribute; skipped while torch.compile traces."""
    if torch is None or compiling() or probes().forward_ad() < 0:
        return
    unpack = torch.autograd.forward_ad.unpack_dual
    for t in tensors:
        if isinstance(t, torch.Tensor) and unpack(t).tangent is not None:
            raise NotImplementedError(
                f"tk_mlir.{name} has no forward-mode AD formula: an "
                f"argument carries a tangent (torch.autograd.forward_ad or "
                f"torch.func.jvp); compute forward-mode derivatives with "
                f"another implementation")


class _Probes:
    """What direct() asks of `module` (torch) besides whether it is
    compiling, looked up once: each lookup is a chain of attribute reads,
    and direct() runs before every call of the public functions (4.3
    against 1.9 us a call on a 2-core x86 machine, with a stand-in for
    torch). `active()`: jit tracing, or a torch function or dispatch mode."""

    def __init__(self, module):
        self.module = module
        # (torch._C's own functions where they exist: torch.jit.is_tracing
        # is two Python calls around _C._is_tracing.)
        tracing = (_lookup(module, "_C._is_tracing") or
                   _lookup(module, "jit.is_tracing") or _never)
        functions = _lookup(module, "_C._len_torch_function_stack") or _never
        dispatch = _lookup(module, "_C._len_torch_dispatch_stack") or _never
        self.active = lambda: tracing() or functions() or dispatch()
        forward_ad = _lookup(module, "autograd.forward_ad")
        self.forward_ad = lambda: _level(forward_ad)
        self.plain = (module.Tensor, getattr(getattr(module, "nn", None),
                                             "Parameter", module.Tensor))
        self.wrapped = _lookup(module,
                               "_C._functorch.is_functorch_wrapped_tensor")


def _never():
    return False


_cached = None


def probes():
    """The _Probes of the current `torch` (tests put a stand-in there)."""
    global _cached
    if _cached is None or _cached.module is not torch:
        _cached = _Probes(torch)
    return _cached


def _level(forward_ad):
    """The innermost forward-mode AD level, or -1 outside dual_level (or
    where this torch has no forward-mode AD)."""
    level = getattr(forward_ad, "_current_level", None)
    return level if isinstance(level, int) else -1


def _lookup(module, path):
    """module.a.b... or None where this torch has no such function."""
    for name in path.split("."):
        module = getattr(module, name, None)
        if module is None:
            return None
    return module
