"""Float32 torch references shared by the GPU checks and benchmarks."""
import torch


def attention_reference(q, k, v, scale, causal):
    """softmax(q kᵀ · scale) v and the log-sum-exp, in float32, for
    [batch, heads, seq, dim] tensors; k and v may have fewer heads (GQA).
    Differentiable when the inputs require grad."""
    group = q.shape[1] // k.shape[1]
    k = k.float().repeat_interleave(group, dim=1)
    v = v.float().repeat_interleave(group, dim=1)
    s = (q.float() @ k.transpose(-1, -2)) * scale
    if causal:
        n = q.shape[2]
        s = s.masked_fill(torch.ones(n, n, device=q.device,
                                     dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v, torch.logsumexp(s, dim=-1)
