"""CPU tests of attention()'s argument checks (no GPU, no torch)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tk_mlir import ArgumentError, check_attention_arguments  # noqa: E402
from tk_mlir.attention import artifacts_dir  # noqa: E402


class T:
    def __init__(self, shape, dtype="bfloat16", cuda=True):
        self.shape = tuple(shape)
        self.dtype = f"torch.{dtype}"
        self.is_cuda = cuda


def test_bhsd_and_bshd_shapes():
    q, k = T((2, 8, 100, 128)), T((2, 2, 100, 128))
    assert check_attention_arguments(q, k, k, "bhsd") == (2, 8, 2, 100, 128)
    q, k = T((2, 100, 8, 64)), T((2, 100, 4, 64))
    assert check_attention_arguments(q, k, k, "bshd") == (2, 8, 4, 100, 64)


@pytest.mark.parametrize("q,k,v,match", [
    (T((2, 8, 100)), T((2, 8, 100, 128)), T((2, 8, 100, 128)),
     "argument 'q': expected a 4-D tensor"),
    (T((2, 8, 100, 128), dtype="float16"), T((2, 8, 100, 128)),
     T((2, 8, 100, 128)), "argument 'q': expected dtype torch.bfloat16"),
    (T((2, 8, 100, 128)), T((2, 8, 100, 128), cuda=False),
     T((2, 8, 100, 128)), "argument 'k': expected a CUDA tensor"),
    (T((2, 8, 100, 96)), T((2, 8, 100, 96)), T((2, 8, 100, 96)),
     "argument 'q': head dim 96 is not supported"),
    (T((2, 8, 100, 128)), T((2, 8, 100, 64)), T((2, 8, 100, 64)),
     "argument 'k': batch and head dim"),
    (T((2, 8, 100, 128)), T((2, 8, 99, 128)), T((2, 8, 99, 128)),
     "argument 'k': sequence length 99 differs from q's 100"),
    (T((2, 8, 100, 128)), T((2, 8, 100, 128)), T((2, 4, 100, 128)),
     "argument 'v': shape"),
    (T((2, 8, 100, 128)), T((2, 3, 100, 128)), T((2, 3, 100, 128)),
     "argument 'k': 3 heads do not divide q's 8"),
])
def test_bad_arguments_name_the_argument(q, k, v, match):
    with pytest.raises(ArgumentError, match=match):
        check_attention_arguments(q, k, v, "bhsd")


def test_bad_layout():
    q = T((1, 1, 1, 128))
    with pytest.raises(ValueError, match="layout must be one of"):
        check_attention_arguments(q, q, q, "sbhd")


def test_artifacts_dir_from_environment(monkeypatch):
    monkeypatch.setenv("TK_MLIR_ARTIFACTS", "/some/where")
    assert artifacts_dir() == "/some/where"


@pytest.mark.parametrize("dim", [128, 64])
def test_backward_argument_names_match_the_kernels(tmp_path, dim):
    """Each backward kernel's manifest lists as many parameters as the names
    attention_backward() passes, and the fused kernel's dQ accumulator is an
    f32 view of the head dim."""
    import json
    import subprocess
    from tk_mlir.attention import (_ARG_NAMES, BACKWARD, FUSED_BACKWARD)
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    tk_opt = os.path.join(root, "build", "bin", "tk-opt")
    if not os.path.exists(tk_opt):
        pytest.skip("tk-opt is not built")
    for name in (FUSED_BACKWARD[dim],) + BACKWARD[dim]:
        out = tmp_path / name
        subprocess.run([tk_opt, os.path.join(root, "kernels", name + ".mlir"),
                        f"-tile-to-nvidia=out={out} cubin=false "
                        "producer-registers=24", "-o", os.devnull],
                       check=True, capture_output=True)
        manifest = json.load(open(out / (name + ".json")))
        params = manifest["kernels"][name]["params"]
        names = _ARG_NAMES[name]
        assert len(params) == len(names), name
        if name == FUSED_BACKWARD[dim]:
            accum = params[names.index("dq_accum")]
            assert accum["dtype"] == "f32" and accum["shape"][-1] == dim
