"""tk-mlir's Python runtime: load a kernel compiled by tk-opt (binary +
manifest) and launch it on torch tensors."""

from .attention import attention, check_attention_arguments
from .linear_attention import based, linear_attention
from .runtime import (ArgumentError, Kernel, KernelSpec, ManifestError,
                      check_arguments, grid_size, kernarg_layout,
                      load_manifest, pack_kernargs, pack_parameters,
                      tensor_map_geometry, TileTable)
from .ssd import ssd_chunk_scan

__all__ = [
    "attention", "check_attention_arguments", "linear_attention", "based",
    "ssd_chunk_scan", "ArgumentError", "Kernel", "KernelSpec", "ManifestError",
    "check_arguments", "grid_size", "kernarg_layout", "load_manifest",
    "pack_kernargs", "pack_parameters", "tensor_map_geometry", "TileTable",
]
