"""The torch SDPA backends the attention benchmarks time ours against."""
import torch

BACKENDS = {"flash": torch.nn.attention.SDPBackend.FLASH_ATTENTION,
            "cudnn": torch.nn.attention.SDPBackend.CUDNN_ATTENTION}


def sdpa_forward(name, q, k, v, causal, scale):
    """A callable that runs SDPA's `name` backend ("flash" or "cudnn") and
    returns O."""
    backend = BACKENDS[name]

    def call():
        with torch.nn.attention.sdpa_kernel(backend):
            return torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=causal, scale=scale)
    return call


def sdpa_backward(name, q, k, v, do, causal, scale):
    """A callable that runs SDPA's `name` backward for the output gradient
    `do` and returns (dQ, dK, dV). The forward runs once, here, on leaves of
    its own; each call differentiates its retained graph with
    torch.autograd.grad, which returns the gradients instead of adding them
    to the leaves' .grad (out.backward() would time three extra additions
    per call)."""
    leaves = [t.detach().requires_grad_(True) for t in (q, k, v)]
    out = sdpa_forward(name, *leaves, causal, scale)()
    return lambda: torch.autograd.grad(out, leaves, do, retain_graph=True)
