"""CPU tests of ssd_chunk_scan()'s argument checks and variant choice (no
GPU, no torch)."""
import math
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from test_linear_attention import T  # noqa: E402
from tk_mlir import ArgumentError  # noqa: E402
from tk_mlir.ops.ssd import (MAX_SEGMENTS, check_ssd_arguments,  # noqa: E402
                         kernel_name, segments_for, ssd_chunk_scan, variants)


def args(batch=2, seq=100, heads=4, groups=2, dim=64, state=64):
    return dict(x=T((batch, seq, heads, dim)),
                dt=T((batch, seq, heads), "float32"),
                A=T((heads,), "float32"),
                B=T((batch, seq, groups, state)),
                C=T((batch, seq, groups, state)), chunk_size=64)


def test_shapes():
    assert check_ssd_arguments(**args()) == (2, 100, 4, 64, 2, 64)
    assert check_ssd_arguments(**args(dim=128, state=128, groups=4)) == \
        (2, 100, 4, 128, 4, 128)
    full = args()
    check_ssd_arguments(**full, D=T((4, 64), "float32"), z=T((2, 100, 4, 64)),
                        dt_bias=T((4,), "float32"),
                        initial_states=T((2, 4, 64, 64), "float32"),
                        dt_limit=(0.0, math.inf))


@pytest.mark.parametrize("change,match", [
    (dict(x=T((2, 100, 4))), "argument 'x': expected a 4-D tensor"),
    (dict(x=T((2, 100, 4, 64), "float16")), "argument 'x': expected dtype"),
    (dict(x=T((2, 100, 4, 64), cuda=False, device="cpu")), "argument 'x': expected a CUDA"),
    (dict(x=T((2, 100, 4, 96))), "argument 'x': head dim must be one of"),
    (dict(x=T((2, 0, 4, 64))), "argument 'x': empty shape"),
    (dict(B=T((2, 99, 2, 64))), "argument 'B': expected a 4-D tensor"),
    (dict(B=T((2, 100, 3, 64)), C=T((2, 100, 3, 64))),
     r"argument 'B': groups \(3\) must divide the heads \(4\)"),
    (dict(B=T((2, 100, 2, 32)), C=T((2, 100, 2, 32))),
     "argument 'B': state dim must be one of"),
    (dict(C=T((2, 100, 2, 64), "float32")), "argument 'C': expected dtype"),
    (dict(C=T((2, 100, 2, 64), device="cuda:1")),
     "argument 'C': expected a tensor on cuda:0"),
    (dict(dt=T((2, 100, 5), "float32")), "argument 'dt': expected shape"),
    (dict(dt=T((2, 100, 4), "int32")), "argument 'dt': expected dtype"),
    (dict(A=T((3,), "float32")), "argument 'A': expected shape"),
    (dict(D=T((4, 32), "float32")), "argument 'D': expected shape"),
    (dict(z=T((2, 100, 4, 128))), "argument 'z': expected shape"),
    (dict(dt_bias=T((2,), "float32")), "argument 'dt_bias': expected shape"),
    (dict(initial_states=T((2, 4, 64, 32), "float32")),
     "argument 'initial_states': expected shape"),
    (dict(x=T((2, 100, 4, 64), contiguous=False)),
     "argument 'x': must be contiguous"),
    (dict(B=T((2, 100, 2, 64), contiguous=False)),
     "argument 'B': must be contiguous"),
    (dict(chunk_size=0), "argument 'chunk_size': expected a positive int"),
    (dict(chunk_size=True), "argument 'chunk_size'"),
    (dict(dt_limit=(1.0, 0.5)), "argument 'dt_limit': expected min <= max"),
    (dict(dt_limit="wide"), "argument 'dt_limit': expected a pair"),
    (dict(A=[1.0, 2.0, 3.0, 4.0]), "argument 'A': expected a tensor"),
])
def test_bad_arguments_name_the_argument(change, match):
    with pytest.raises(ArgumentError, match=match):
        check_ssd_arguments(**{**args(), **change})


@pytest.mark.parametrize("name, tensor", [
    ("B", T((2, 100, 2, 64))), ("dt", T((2, 100, 4), "float32")),
    ("A", T((4,), "float32")), ("z", T((2, 100, 4, 64))),
    ("D", T((4,), "float32")), ("dt_bias", T((4,), "float32")),
    ("initial_states", T((2, 4, 64, 64), "float32"))])
def test_every_tensor_must_be_on_x_device(name, tensor):
    tensor.device = "cuda:1"
    with pytest.raises(ArgumentError, match=f"argument '{name}': expected a "
                       f"tensor on cuda:0 \\(x's device\\), got one on "
                       f"cuda:1"):
        check_ssd_arguments(**{**args(), name: tensor})


@pytest.mark.parametrize("name", ["seq_idx", "cu_seqlens"])
def test_unsupported_arguments_are_named(name):
    with pytest.raises(ValueError, match=f"'{name}' is not supported"):
        ssd_chunk_scan(**args(), **{name: T((2, 100), "int32")})
    with pytest.raises(ValueError, match="'return_varlen_states'"):
        ssd_chunk_scan(**args(), return_varlen_states=True)


def test_variants_bind_gate_and_skip():
    v = variants()
    assert len(v) == 8
    assert kernel_name(64, False, False) == "mamba2_ssd"
    assert kernel_name(128, True, True) == "mamba2_ssd_n128_z_d"
    assert v["mamba2_ssd_z"] == ("mamba2_ssd", "bind=12=true,13=false")
    assert v["mamba2_ssd_n128_d"] == ("mamba2_ssd_n128",
                                      "bind=12=false,13=true")


def test_segments_fill_the_last_round():
    # 640 tiles on 264 block slots: three rounds, the last 42% full; two
    # pieces per tile run in five rounds of half a tile (2.5 < 3).
    assert segments_for(640, 128, 264) == 2
    # 256 tiles fit in one round: a split only lengthens the chain.
    assert segments_for(256, 256, 264) == 1
    assert segments_for(264, 128, 264) == 1
    assert segments_for(8, 256, 264) == 1
    # Never more pieces than chunks, nor more than MAX_SEGMENTS.
    assert segments_for(265, 1, 264) == 1
    assert 1 <= segments_for(10**6, 10**6, 264) <= MAX_SEGMENTS
    # 529 tiles: 3 rounds whole, 5 of halves (2.5), 7 of thirds (2.33).
    assert segments_for(529, 64, 264) == 3
    # A split that saves under 5% is not taken: 1000 tiles take 4 rounds
    # whole (3.79 full), 8 of halves, 12 of thirds, 16 of quarters.
    assert segments_for(1000, 64, 264) == 1
