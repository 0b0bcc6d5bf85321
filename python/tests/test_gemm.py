"""CPU tests of the stream-K GEMM wrapper's argument checks (no GPU, no
torch)."""
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
