"""Marks the outputs of forward-only kernels: where an input requires grad,
the output joins the autograd graph through a function whose backward
raises, so a training loop fails at backward() with a message naming the
kernel instead of silently getting no gradients."""

_functions = {}


def forward_only(output, inputs, what):
    """`output` (or a tuple of outputs), marked as computed from `inputs`
    by `what` (the user-facing name) when grad is enabled and any input
    requires it; unchanged otherwise."""
    import torch
    if not torch.is_grad_enabled() or not any(
            getattr(t, "requires_grad", False) for t in inputs):
        return output
    if what not in _functions:
        message = (f"{what} is forward only: it has no backward; compute "
                   f"gradients with another implementation")

        class Function(torch.autograd.Function):
            @staticmethod
            def forward(ctx, n, *tensors):
                return tuple(t.clone() for t in tensors[:n])

            @staticmethod
            def backward(ctx, *grads):
                raise NotImplementedError(message)
        _functions[what] = Function
    outputs = output if isinstance(output, tuple) else (output,)
    tensors = [t for t in inputs if t is not None]
    marked = _functions[what].apply(len(outputs), *outputs, *tensors)
    return marked if isinstance(output, tuple) else marked[0]
