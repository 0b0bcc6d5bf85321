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
    if torch is None or compiling():
        return False
    if _active(torch, "jit.is_tracing") or \
            _active(torch, "_C._len_torch_function_stack") or \
            _active(torch, "_C._len_torch_dispatch_stack") or \
            _forward_ad_level(torch) >= 0:
        return False
    plain = (torch.Tensor, getattr(getattr(torch, "nn", None), "Parameter",
                                   torch.Tensor))
    wrapped = _lookup(torch, "_C._functorch.is_functorch_wrapped_tensor")
    grad = torch.is_grad_enabled()
    for t in tensors:
        if t is None:
            continue
        if type(t) not in plain or (grad and t.requires_grad) or \
                (wrapped is not None and wrapped(t)):
            return False
    return True


def _lookup(module, path):
    """module.a.b... or None where this torch has no such function."""
    for name in path.split("."):
        module = getattr(module, name, None)
        if module is None:
            return None
    return module


def _active(module, path):
    """Whether the function at `path` (a flag or a stack depth) reports
    something active; False where this torch has no such function."""
    function = _lookup(module, path)
    return bool(function()) if function is not None else False


def _forward_ad_level(module):
    """The innermost forward-mode AD level, or -1 outside dual_level."""
    level = _lookup(module, "autograd.forward_ad._current_level")
    return level if isinstance(level, int) else -1
