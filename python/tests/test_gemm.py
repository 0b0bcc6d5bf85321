"""CPU tests of the GEMM argument checks, the gemm op's fake and backward,
and the stream-K wrapper's scratch memory (no GPU; stand-ins for torch)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from test_runtime import FakeTensor  # noqa: E402
from tk_mlir import ArgumentError  # noqa: E402
from tk_mlir.ops.gemm import check_gemm_arguments  # noqa: E402


def test_matching_operands():
    check_gemm_arguments(FakeTensor((256, 64)), FakeTensor((64, 128)),
                         FakeTensor((256, 128)))


@pytest.mark.parametrize("a, b, c, match", [
    (FakeTensor((256, 64), cuda=False), FakeTensor((64, 128)),
     FakeTensor((256, 128)), "argument 'A': expected a CUDA tensor"),
    (FakeTensor((256, 64)), [[1.0]], FakeTensor((256, 128)),
     "argument 'B': expected a tensor, got list"),
    (FakeTensor((256, 64)), FakeTensor((64, 128)), FakeTensor((256,)),
     r"argument 'C': expected a 2-D tensor, got shape \(256,\)"),
    (FakeTensor((256, 64)), FakeTensor((128, 256)), FakeTensor((16, 16)),
     r"argument 'B': 128 rows, but A has 64 columns \(A \[M, K\] @ "
     r"B \[K, N\]\)"),
    (FakeTensor((256, 64)), FakeTensor((64, 128)), FakeTensor((16, 16)),
     r"argument 'C': expected shape \(256, 128\) \(A's rows, B's columns\), "
     r"got \(16, 16\)"),
    (FakeTensor((256, 64)), FakeTensor((64, 128), device="cuda:1"),
     FakeTensor((256, 128)),
     "argument 'B': on cuda:1, but argument 'A' is on cuda:0"),
    (FakeTensor((256, 64)), FakeTensor((64, 128)),
     FakeTensor((256, 128), cuda=False),
     "argument 'C': on cpu, but argument 'A' is on cuda:0"),
])
def test_bad_operands_name_the_argument(a, b, c, match):
    with pytest.raises(ArgumentError, match=match):
        check_gemm_arguments(a, b, c)


@pytest.mark.parametrize("a, b, match", [
    (FakeTensor((256, 64), dtype="float16"), FakeTensor((64, 128)),
     "argument 'A': expected dtype torch.bfloat16, got torch.float16"),
    (FakeTensor((256, 64)), FakeTensor((64, 128), dtype="float32"),
     "argument 'B': expected dtype torch.bfloat16, got torch.float32"),
    (FakeTensor((0, 64)), FakeTensor((64, 128)),
     r"argument 'A': empty shape \(0, 64\)"),
    (FakeTensor((256, 64)), FakeTensor((64, 0)),
     r"argument 'B': empty shape \(64, 0\)"),
    (FakeTensor((256, 64), stride=(1, 256)), FakeTensor((64, 128)),
     r"argument 'A': must be contiguous \(row-major\); strides \(1, 256\)"),
    (FakeTensor((256, 60)), FakeTensor((60, 128)),
     "argument 'A': 60 columns; the kernel's TMA copies need rows of whole "
     "16 bytes"),
    (FakeTensor((256, 64)), FakeTensor((64, 100)),
     "argument 'B': 100 columns"),
    (FakeTensor((256, 64)), FakeTensor((32, 128)),
     "argument 'B': 32 rows, but A has 64 columns"),
])
def test_operands_the_launch_would_refuse(a, b, match):
    """check_gemm_operands (the gemm op's fake) refuses from the metadata
    alone what a launch of the kernel refuses: dtype, empty, strided and
    TMA-misaligned operands, besides check_gemm_arguments' shapes."""
    from tk_mlir.ops.gemm import check_gemm_operands
    with pytest.raises(ArgumentError, match=match):
        check_gemm_operands(a, b)


def test_gemm_op_fake_checks_and_gives_bf16(monkeypatch):
    """The gemm op's fake checks A and B as the launch would and gives C
    as the implementation makes it: bf16 [M, N], whatever A's dtype."""
    from test_attention import load_torch_ops
    _, ops = load_torch_ops(monkeypatch)
    made = []

    class Operand(FakeTensor):
        def new_empty(self, *shape, dtype):
            made.append((shape, dtype))
            return "c"
    fake = ops["gemm"].fake
    assert fake(Operand((256, 64)), Operand((64, 128))) == "c"
    assert made == [((256, 128), "torch.bfloat16")]
    with pytest.raises(ArgumentError, match="argument 'A': expected dtype"):
        fake(Operand((256, 64), dtype="float16"), Operand((64, 128)))
    with pytest.raises(ArgumentError, match="argument 'B': 32 rows"):
        fake(Operand((256, 64)), Operand((32, 128)))


def test_gemm_op_backward_says_it_is_forward_only(monkeypatch):
    """gemm registers a backward, as the other forward-only ops do, that
    raises NotImplementedError saying so."""
    from test_attention import load_torch_ops
    module, ops = load_torch_ops(monkeypatch)
    for name in ("gemm", "linear_attention", "based", "ssd_chunk_scan"):
        op = ops[name]
        assert op.setup is module.keep_nothing, name
        with pytest.raises(NotImplementedError, match=f"tk_mlir.{name} is "
                           f"forward only: it has no backward"):
            op.backward(None, "grad")


class Streams:
    """A stand-in for torch on one device: its current stream, the stream
    each zero-filled tensor was queued on, and torch.cuda.stream()."""

    def __init__(self, current):
        import contextlib
        import types
        self.current, self.fills = current, []
        streams = self

        class Zeros:
            def __init__(self, *shape, dtype, device):
                self.shape, self.dtype = shape, dtype
                streams.fills.append((shape, dtype, device, streams.current))

        @contextlib.contextmanager
        def stream(external):
            before, streams.current = streams.current, external.handle
            yield
            streams.current = before
        self.cuda = types.SimpleNamespace(
            current_stream=lambda device: types.SimpleNamespace(
                cuda_stream=streams.current),
            ExternalStream=lambda handle, device: types.SimpleNamespace(
                handle=handle),
            stream=stream)
        self.zeros, self.float32, self.int32 = Zeros, "f32", "i32"


def test_stream_k_scratch_is_zeroed_on_the_launch_stream(monkeypatch):
    """StreamKGemm's workspace and counters belong to the device and stream
    of the launch and are zero-filled on that stream, so the kernel runs
    after the fill (a fill on torch's current stream would not be ordered
    before a launch on another); a larger grid gets a larger pair on the
    same stream."""
    from tk_mlir.ops import gemm as module
    streams = Streams(current=0x50)
    monkeypatch.setattr(module, "torch", streams)
    monkeypatch.setitem(sys.modules, "torch", streams)
    launches, grid = [], {"blocks": 4}
    kernel = module.StreamKGemm.__new__(module.StreamKGemm)
    kernel._scratch = {}

    class Launcher:
        def grid(self, *args):
            return grid["blocks"]

        def __call__(self, a, b, c, work, counters, stream=None):
            launches.append((work, counters, stream, streams.current))
    kernel.kernel = Launcher()
    a, b, c = FakeTensor((256, 64)), FakeTensor((64, 128)), \
        FakeTensor((256, 128))
    kernel(a, b, c, stream=0x60)
    kernel(a, b, c, stream=0x60)
    kernel(a, b, c)
    grid["blocks"] = 8
    kernel(a, b, c, stream=0x60)
    on = {}
    for shape, _, device, stream in streams.fills:
        on.setdefault(stream, []).append(shape)
    # (the pair for one block sizes the grid, then the grid's pair)
    assert on == {0x60: [(256, 256), (2,), (1024, 256), (8,),
                         (2048, 256), (16,)],
                  0x50: [(256, 256), (2,), (1024, 256), (8,)]}
    assert streams.current == 0x50
    assert [(s, current) for _, _, s, current in launches] == [
        (0x60, 0x50), (0x60, 0x50), (None, 0x50), (0x60, 0x50)]
    first, second, other, grown = launches
    assert first[0] is second[0] and first[1] is second[1]
    assert other[0] is not first[0] and grown[0] is not first[0]
    assert grown[0].shape == (2048, 256) and grown[1].shape == (16,)
