"""The kernel families as torch custom ops (torch.library, namespace
`tk_mlir`): torch.ops.tk_mlir.{gemm, attention_fwd, attention_bwd,
linear_attention, based, ssd_chunk_scan}, and with
tk_mlir.ops.tensor_parallel (imported on its own: it sets NCCL's
environment) gemm_reduce_scatter and all_gather_gemm. Each has a fake (meta)
implementation that checks the arguments and gives the outputs' shapes, so
torch.compile traces the public functions (tk_mlir.attention, ...) without
graph breaks; attention's backward is registered as its autograd formula
(through O and the log-sum-exp), and the forward-only ops register a
backward that raises. Registered when torch is importable (the CPU-side
tools and tests run without it)."""
try:
    import torch
    from torch import Tensor
except ImportError:
    torch = None

REGISTERED = torch is not None and hasattr(torch.library, "custom_op")


def forward_only(name):
    """A backward for forward-only op `name` that says so."""
    def backward(ctx, *grads):
        raise NotImplementedError(
            f"tk_mlir.{name} is forward only: it has no backward; compute "
            f"gradients with another implementation")
    return backward


def keep_nothing(ctx, inputs, output):
    pass


if REGISTERED:
    from typing import Optional, Tuple

    from .ops.attention import (attention_backward, attention_forward,
                                check_attention_arguments,
                                check_attention_backward_arguments)
    from .ops.gemm import check_gemm_operands, gemm_impl
    from .ops.linear_attention import (based_impl, check_based_arguments,
                                   linear_attention_checks,
                                   linear_attention_impl)
    from .ops.ssd import check_ssd_arguments, ssd_impl
    from .tracing import refuse_tangents

    # (Each op's implementation refuses tangents too: one called directly
    # inside a dual level sees them, and PyTorch would drop them.)

    @torch.library.custom_op("tk_mlir::gemm", mutates_args=(),
                             device_types="cuda")
    def gemm(a: Tensor, b: Tensor) -> Tensor:
        refuse_tangents("gemm", a, b)
        return gemm_impl(a, b)

    @gemm.register_fake
    def _(a, b):
        check_gemm_operands(a, b)
        return a.new_empty(a.shape[0], b.shape[1], dtype=torch.bfloat16)

    gemm.register_autograd(forward_only("gemm"), setup_context=keep_nothing)

    @torch.library.custom_op("tk_mlir::attention_fwd", mutates_args=(),
                             device_types="cuda")
    def attention_fwd(q: Tensor, k: Tensor, v: Tensor, causal: bool,
                      scale: float) -> Tuple[Tensor, Tensor]:
        refuse_tangents("attention", q, k, v)
        check_attention_arguments(q, k, v, "bhsd")
        return attention_forward(q, k, v, causal, scale)

    @attention_fwd.register_fake
    def _(q, k, v, causal, scale):
        batch, heads, _, seq, _ = check_attention_arguments(q, k, v, "bhsd")
        return (torch.empty_like(q),
                q.new_empty(batch, heads, seq, dtype=torch.float32))

    # dlse: the gradient of the forward's log-sum-exp (None: zero).
    @torch.library.custom_op("tk_mlir::attention_bwd", mutates_args=(),
                             device_types="cuda")
    def attention_bwd(q: Tensor, k: Tensor, v: Tensor, o: Tensor,
                      lse: Tensor, do: Tensor, causal: bool, scale: float,
                      dlse: Optional[Tensor] = None
                      ) -> Tuple[Tensor, Tensor, Tensor]:
        check_attention_backward_arguments(q, k, v, o, lse, do, dlse)
        return attention_backward(q, k, v, o, lse, do, causal, scale,
                                  dlse=dlse)

    @attention_bwd.register_fake
    def _(q, k, v, o, lse, do, causal, scale, dlse=None):
        check_attention_backward_arguments(q, k, v, o, lse, do, dlse)
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)

    def _attention_setup(ctx, inputs, output):
        q, k, v, causal, scale = inputs
        ctx.save_for_backward(q, k, v, *output)
        ctx.causal, ctx.scale = causal, scale
        # An output no loss uses gets None, not zeros: a loss of O alone
        # then runs no correction of Δ by dLSE.
        ctx.set_materialize_grads(False)

    def _attention_backward(ctx, do, dlse):
        q, k, v, o, lse = ctx.saved_tensors
        if do is None and dlse is None:
            return None, None, None, None, None
        # (With dO = 0 the backward programs compute exactly the gradient
        # through the log-sum-exp alone.)
        do = torch.zeros_like(o) if do is None else do.contiguous()
        dq, dk, dv = torch.ops.tk_mlir.attention_bwd(
            q, k, v, o, lse, do, ctx.causal, ctx.scale, dlse)
        return dq, dk, dv, None, None

    attention_fwd.register_autograd(_attention_backward,
                                    setup_context=_attention_setup)

    @torch.library.custom_op("tk_mlir::linear_attention", mutates_args=(),
                             device_types="cuda")
    def linear_attention(q: Tensor, k: Tensor, v: Tensor,
                         feature_map: Optional[str], normalize: bool,
                         decay: Optional[Tensor], layout: str,
                         return_state: bool) -> Tuple[Tensor, Tensor]:
        refuse_tangents("linear_attention", q, k, v, decay)
        o, state = linear_attention_impl(q, k, v, feature_map, normalize,
                                         decay, layout, return_state)
        return o, state if state is not None else o.new_empty(0)

    @linear_attention.register_fake
    def _(q, k, v, feature_map, normalize, decay, layout, return_state):
        (batch, heads, _, dim), _ = linear_attention_checks(
            q, k, v, feature_map, normalize, decay, layout, return_state)
        state = (q.new_empty(batch, heads, dim, dim, dtype=torch.float32)
                 if return_state else v.new_empty(0))
        return torch.empty_like(v), state

    linear_attention.register_autograd(
        forward_only("linear_attention"), setup_context=keep_nothing)

    @torch.library.custom_op("tk_mlir::based", mutates_args=(),
                             device_types="cuda")
    def based(q: Tensor, k: Tensor, v: Tensor, normalize: bool,
              layout: str) -> Tensor:
        refuse_tangents("based", q, k, v)
        return based_impl(q, k, v, normalize, layout)

    @based.register_fake
    def _(q, k, v, normalize, layout):
        check_based_arguments(q, k, v, layout)
        return torch.empty_like(v)

    based.register_autograd(forward_only("based"),
                            setup_context=keep_nothing)

    @torch.library.custom_op("tk_mlir::ssd_chunk_scan", mutates_args=(),
                             device_types="cuda")
    def ssd_chunk_scan(x: Tensor, dt: Tensor, A: Tensor, B: Tensor,
                       C: Tensor, chunk_size: int, D: Optional[Tensor],
                       z: Optional[Tensor], dt_bias: Optional[Tensor],
                       initial_states: Optional[Tensor], dt_softplus: bool,
                       dt_low: float, dt_high: float,
                       return_final_states: bool) -> Tuple[Tensor, Tensor]:
        refuse_tangents("ssd_chunk_scan", x, dt, A, B, C, D, z, dt_bias,
                        initial_states)
        out, final = ssd_impl(x, dt, A, B, C, chunk_size, D, z, dt_bias,
                              initial_states, dt_softplus, (dt_low, dt_high),
                              return_final_states)
        return out, final if final is not None else out.new_empty(0)

    @ssd_chunk_scan.register_fake
    def _(x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states,
          dt_softplus, dt_low, dt_high, return_final_states):
        batch, _, heads, dim, _, state = check_ssd_arguments(
            x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states,
            (dt_low, dt_high))
        final = (x.new_empty(batch, heads, dim, state, dtype=torch.float32)
                 if return_final_states else x.new_empty(0))
        return torch.empty_like(x), final

    ssd_chunk_scan.register_autograd(forward_only("ssd_chunk_scan"),
                                     setup_context=keep_nothing)
