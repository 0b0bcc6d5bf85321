"""CPU tests of linear_attention()'s argument checks and program choice (no
GPU, no torch)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tk_mlir import ArgumentError  # noqa: E402
from tk_mlir.ops.linear_attention import (check_arguments,  # noqa: E402
                                      check_based_arguments, check_decay,
                                      program_for, variants)


class T:
    def __init__(self, shape, dtype="bfloat16", cuda=True, contiguous=True,
                 device="cuda:0"):
        self.shape = tuple(shape)
        self.dtype = f"torch.{dtype}"
        self.is_cuda = cuda
        self.device = device
        self._contiguous = contiguous

    def is_contiguous(self):
        return self._contiguous

    def stride(self):
        return (1,) * len(self.shape)


def test_bhsd_and_bshd_shapes():
    q = T((2, 8, 100, 64))
    assert check_arguments(q, q, q, "bhsd") == (2, 8, 100, 64)
    q = T((2, 100, 8, 64))
    assert check_arguments(q, q, q, "bshd") == (2, 8, 100, 64)


@pytest.mark.parametrize("q,k,v,match", [
    (T((2, 8, 100)), T((2, 8, 100, 64)), T((2, 8, 100, 64)),
     "argument 'q': expected a 4-D tensor"),
    (T((2, 8, 100, 64), dtype="float16"), T((2, 8, 100, 64)),
     T((2, 8, 100, 64)), "argument 'q': expected dtype torch.bfloat16"),
    (T((2, 8, 100, 64)), T((2, 8, 100, 64), cuda=False),
     T((2, 8, 100, 64)), "argument 'k': expected a CUDA tensor"),
    (T((2, 8, 100, 64)), T((2, 8, 100, 64)),
     T((2, 8, 100, 64), contiguous=False), "argument 'v': must be contiguous"),
    (T((2, 8, 100, 64)), T((2, 8, 99, 64)), T((2, 8, 100, 64)),
     "argument 'k': shape"),
    (T((2, 8, 100, 64)), T((2, 8, 100, 64)), T((2, 4, 100, 64)),
     "argument 'v': batch, heads and seq"),
    (T((2, 8, 0, 64)), T((2, 8, 0, 64)), T((2, 8, 0, 64)),
     "argument 'q': empty shape"),
    (T((2, 8, 100, 64)), T((2, 8, 100, 64), device="cuda:1"),
     T((2, 8, 100, 64)),
     "argument 'k': on cuda:1, but argument 'q' is on cuda:0"),
    (T((2, 8, 100, 64)), T((2, 8, 100, 64)),
     T((2, 8, 100, 64), device="cuda:1"),
     "argument 'v': on cuda:1, but argument 'q' is on cuda:0"),
])
def test_bad_arguments_name_the_argument(q, k, v, match):
    with pytest.raises(ArgumentError, match=match):
        check_arguments(q, k, v, "bhsd")


def test_bad_layout():
    q = T((1, 1, 1, 64))
    with pytest.raises(ValueError, match="layout must be one of"):
        check_arguments(q, q, q, "sbhd")


def test_program_choice():
    assert program_for("elu1", True, None, 64, 64) == "linear_attention"
    assert program_for(None, False, [0.5], 128, 128) == \
        "linear_attention_decay"
    with pytest.raises(ValueError, match="feature_map must be one of"):
        program_for("relu", True, None, 64, 64)
    with pytest.raises(NotImplementedError, match="no program for "
                       "feature_map='elu1', normalize=False, decay=None, "
                       "head dim 64"):
        program_for("elu1", False, None, 64, 64)
    assert program_for("elu1", True, None, 128, 128) == \
        "linear_attention_d128"
    with pytest.raises(NotImplementedError, match="head dim 96"):
        program_for("elu1", True, None, 96, 96)
    with pytest.raises(NotImplementedError, match="decay=slopes, head dim 64"):
        program_for(None, False, [0.5], 64, 64)
    with pytest.raises(ArgumentError, match="argument 'v': value dim 32"):
        program_for("elu1", True, None, 64, 32)


class Slopes:
    def __init__(self, shape, dtype="float32", device="cuda:0"):
        self.shape = tuple(shape)
        self.dtype = f"torch.{dtype}"
        self.device = device


def test_decay_checks_name_the_argument():
    check_decay(Slopes((8,)), 8, "cuda:0")
    with pytest.raises(ArgumentError, match=r"argument 'decay': expected a "
                       r"tensor of one slope per head, shape \(8,\)"):
        check_decay(Slopes((4,)), 8, "cuda:0")
    with pytest.raises(ArgumentError, match="argument 'decay': expected a "
                       "float tensor"):
        check_decay(Slopes((8,), dtype="int64"), 8, "cuda:0")
    with pytest.raises(ArgumentError, match="argument 'decay': expected a "
                       "tensor on cuda:0"):
        check_decay(Slopes((8,), device="cpu"), 8, "cuda:0")


def test_each_program_has_a_variant_per_layout_based_per_normalize():
    assert variants() == {
        "linear_attention_bhsd": ("linear_attention", "bind=6=false"),
        "linear_attention_bshd": ("linear_attention", "bind=6=true"),
        "linear_attention_d128_bhsd": ("linear_attention_d128",
                                       "bind=6=false"),
        "linear_attention_d128_bshd": ("linear_attention_d128",
                                       "bind=6=true"),
        "linear_attention_decay_bhsd": ("linear_attention_decay",
                                        "bind=8=false"),
        "linear_attention_decay_bshd": ("linear_attention_decay",
                                        "bind=8=true"),
        "based_norm": ("based", "bind=4=true"),
        "based": ("based", "bind=4=false"),
    }


def test_based_dims():
    q, v = T((2, 8, 100, 16)), T((2, 8, 100, 64))
    assert check_based_arguments(q, q, v, "bhsd") == (2, 8, 100, 16)
    with pytest.raises(ArgumentError, match="argument 'q': based takes "
                       "feature dim 16"):
        check_based_arguments(T((2, 8, 100, 32)), T((2, 8, 100, 32)), v,
                              "bhsd")
    with pytest.raises(ArgumentError, match="argument 'v': based takes "
                       "value dim 64"):
        check_based_arguments(q, q, T((2, 8, 100, 128)), "bhsd")


@pytest.mark.parametrize("name", sorted(variants()))
def test_variants_bind_the_parameter_their_names_say(tmp_path, name):
    """Each compiled variant has as many parameters as ARGS names, and the
    one its options bind (bshd or normalize) is that i1 parameter, with the
    bound value in the manifest (skips when tk-opt is not built)."""
    import json
    import subprocess
    from tk_mlir.ops.attention import program_source
    from tk_mlir.ops.linear_attention import ARGS
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    tk_opt = os.path.join(root, "build", "bin", "tk-opt")
    if not os.path.exists(tk_opt):
        pytest.skip("tk-opt is not built")
    program, options = variants()[name]
    out = tmp_path / name
    subprocess.run([tk_opt, program_source(program),
                    f"-tile-to-nvidia=out={out} cubin=false {options}",
                    "-o", os.devnull], check=True, capture_output=True)
    params = json.load(open(out / (program + ".json")))["kernels"][program][
        "params"]
    assert len(params) == len(ARGS[program])
    index, value = options.split("=", 1)[1].split("=")
    bound = params[int(index)]
    assert ARGS[program][int(index)] in ("bshd", "normalize")
    assert bound["dtype"] == "i1" and bound["value"] is (value == "true")
