"""Whether torch.compile is tracing (the public kernel functions then leave
their argument checks to the torch ops' fake implementations, which run on
the traced shapes); False without torch."""
try:
    import torch
except ImportError:   # the CPU-side tools and tests run without torch
    torch = None


def compiling():
    return torch is not None and hasattr(torch, "compiler") and \
        torch.compiler.is_compiling()
