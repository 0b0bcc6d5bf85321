"""tk-mlir's Python package: compile tile programs in-process
(`compile`), load a compiled kernel (binary + manifest) and launch it on
torch tensors, and the bundled kernel families (attention, linear
attention, Based, the Mamba2 SSD scan)."""

__version__ = "0.1.0"

from .ops.attention import attention, check_attention_arguments
from .compiler import Compiled, CompileError, compile
from .ops.gemm import gemm
from .ops.linear_attention import based, linear_attention
from .runtime import (ArgumentError, Kernel, KernelSpec, ManifestError,
                      PreparedLaunch, check_arguments, grid_size,
                      kernarg_layout, load_manifest, pack_kernargs,
                      pack_parameters, tensor_map_geometry, TileTable)
from .ops.ssd import ssd_chunk_scan
from . import torch_ops  # noqa: E402,F401  (registers the torch ops)

__all__ = [
    "__version__", "compile", "Compiled", "CompileError",
    "gemm", "attention", "check_attention_arguments", "linear_attention", "based",
    "ssd_chunk_scan", "ArgumentError", "Kernel", "KernelSpec", "ManifestError",
    "PreparedLaunch",
    "check_arguments", "grid_size", "kernarg_layout", "load_manifest",
    "pack_kernargs", "pack_parameters", "tensor_map_geometry", "TileTable",
]
