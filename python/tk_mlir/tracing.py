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
    directly instead of through its torch custom op: eager (not traced by
    torch.compile), every tensor argument a plain torch.Tensor (no fake
    tensors or subclasses that dispatch through the op), and no gradient
    wanted from any of them (with one, the op's autograd formula, or its
    error for a forward-only op, must be recorded). The op's dispatch costs
    tens of microseconds on the host per call, more than small kernels take
    on the GPU (tk_mlir.based, B = H = 16, T = 1024 on an H100: 79 against
    55 us a call)."""
    if torch is None or compiling():
        return False
    grad = torch.is_grad_enabled()
    for t in tensors:
        if t is None:
            continue
        if type(t) is not torch.Tensor or (grad and t.requires_grad):
            return False
    return True
