"""Launch kernels compiled by ``tk-opt -tile-to-nvidia`` (PTX / cubin) or
``tk-opt -tile-to-amdgpu`` (HSACO) from their binary and JSON manifest.

Everything but the launch itself (argument checks, grid sizing, tensor-map
geometry, parameter and kernel-argument packing) is plain Python and runs
without a GPU; the CUDA driver (NVIDIA) or the HIP runtime (AMD) is loaded
only when a kernel is.
"""

import ctypes
import functools
import json
import math
import os
import re
import struct
import sys
import warnings

MANIFEST_FORMAT = "tk-mlir-manifest-1"

# Element types as the manifest spells them: bytes, torch dtype name, and the
# CUtensorMapDataType used for TMA descriptors.
ELEMENT_TYPES = {
    "bf16": (2, "bfloat16", "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"),
    "f16": (2, "float16", "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"),
    "f32": (4, "float32", "CU_TENSOR_MAP_DATA_TYPE_FLOAT32"),
    "f8E4M3FN": (1, "float8_e4m3fn", "CU_TENSOR_MAP_DATA_TYPE_UINT8"),
    "f8E5M2": (1, "float8_e5m2", "CU_TENSOR_MAP_DATA_TYPE_UINT8"),
    "i32": (4, "int32", "CU_TENSOR_MAP_DATA_TYPE_INT32"),  # counters
}

SWIZZLES = {
    0: "CU_TENSOR_MAP_SWIZZLE_NONE",
    32: "CU_TENSOR_MAP_SWIZZLE_32B",
    64: "CU_TENSOR_MAP_SWIZZLE_64B",
    128: "CU_TENSOR_MAP_SWIZZLE_128B",
}

# ctypes for scalar parameters, by the manifest's ABI type.
SCALAR_CTYPES = {
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}

# struct formats of the scalar types a manifest names (ABI types, and index
# parameters, which travel as i64; i1 parameters take a bool): packing a
# value in one fails where the kernel would receive another value.
SCALAR_FORMATS = {"i32": "<i", "i64": "<q", "index": "<q", "f32": "<f",
                  "f64": "<d"}

# Dimensions a tensor map takes: cuTensorMapEncodeTiled allows 2**32
# elements, but the kernels' TMA coordinates are signed 32-bit, so a
# coordinate of 2**31 or more would wrap and read zeros (write nothing)
# past it. Strides: multiples of 16 bytes below 2**40.
TMA_MAX_DIM = 2**31 - 1
TMA_MAX_STRIDE = 2**40

# Blocks in a grid's x dimension (CUDA's gridDim.x; HIP's as well, which
# also counts the grid's work items, blocks x threads, in 32 bits).
MAX_GRID_X = 2**31 - 1


# Bytes (= alignment) of each ABI entry in an AMDGPU kernel-argument segment.
KERNARG_BYTES = {"view_ptr": 8, "view_dim": 8, "i32": 4, "i64": 8, "f32": 4,
                 "f64": 8}


class ManifestError(ValueError):
    """The manifest is missing, malformed or from another format."""


class ArgumentError(ValueError):
    """A launch argument does not fit the kernel; the message names it."""


class TensorMapGeometry:
    """What cuTensorMapEncodeTiled needs, innermost dimension first."""

    def __init__(self, dtype, address, dims, strides, box, swizzle):
        self.dtype = dtype
        self.address = address
        self.dims = dims
        self.strides = strides
        self.box = box
        self.swizzle = swizzle

    def __repr__(self):
        return (f"TensorMapGeometry({self.dtype}, dims={self.dims}, "
                f"strides={self.strides}, box={self.box}, "
                f"swizzle={self.swizzle})")


class KernelSpec:
    """One kernel of a manifest: its launch shape and ABI."""

    def __init__(self, name, entry):
        self.name = name
        try:
            fields = {f: entry[f] for f in (
                "target", "threads", "shared_memory_bytes", "grid_policy",
                "tiles", "cluster", "params", "abi")}
        except (KeyError, TypeError) as e:
            raise ManifestError(f"kernel '{name}': bad or missing field {e}")
        self.target = fields["target"]
        if not isinstance(self.target, str) or not self.target:
            raise ManifestError(f"kernel '{name}': target must be a "
                                f"non-empty string, got {self.target!r}")
        self.threads = _manifest_int(name, "threads", fields["threads"], 1,
                                     1024)
        self.shared_memory_bytes = _manifest_int(
            name, "shared_memory_bytes", fields["shared_memory_bytes"], 0,
            2**32 - 1)
        self.grid_policy = fields["grid_policy"]
        self.tiles, self.params, self.abi = (
            _manifest_list(name, f, fields[f], dict, "objects")
            for f in ("tiles", "params", "abi"))
        self.cluster = _manifest_list(name, "cluster", fields["cluster"],
                                      int, "integers")
        if len(self.cluster) > 3:
            raise ManifestError(f"kernel '{name}': cluster must list at "
                                f"most 3 dimensions, got {self.cluster}")
        for i, extent in enumerate(self.cluster):
            _manifest_int(name, f"cluster[{i}]", extent, 1, 16)
        for i, bound in enumerate(self.tiles):
            self._check_tile_bound(f"tiles[{i}]", bound)
        for i, e in enumerate(self.abi):
            if "param" in e:
                self._check_param_index(f"abi[{i}].param", e["param"])
        # Blocks that share a multiprocessor (launch blocks_per_sm): a
        # persistent grid starts that many workers per multiprocessor.
        self.blocks_per_sm = _manifest_int(
            name, "blocks_per_sm", entry.get("blocks_per_sm", 1), 1, 32)
        # Grid-level roles (tile.block_roles): blocks started before the
        # tile loops' persistent grid, on multiprocessors of their own.
        self.communication_blocks = _manifest_int(
            name, "communication_blocks",
            entry.get("communication_blocks", 0), 0, 1024)
        # Compiled with wait-timeout-ms: the time limit, the report global
        # and the timed waits' source locations by site.
        self.wait_timeout = entry.get("wait_timeout")
        if self.wait_timeout is not None:
            try:
                w = self.wait_timeout
                self.wait_sites = {int(s["site"]): str(s["location"])
                                   for s in w["sites"]}
                # What each site waits for: a semaphore's phase (the
                # default) or a counter in global memory.
                self.wait_kinds = {int(s["site"]): str(s.get("kind",
                                                             "semaphore"))
                                   for s in w["sites"]}
                self.wait_records = int(w["records"])
                self.wait_limit_ms = int(w["ms"])
                self.wait_report = str(w["report"])
                if self.wait_records <= 0:
                    raise ValueError(f"records {self.wait_records}")
            except (KeyError, TypeError, ValueError) as e:
                raise ManifestError(
                    f"kernel '{name}': bad wait_timeout entry ({e})")
        # A dynamic tile loop takes its tiles from a counter the launcher
        # provides (a hidden parameter).
        self.dynamic_tiles = any(e.get("kind") == "tile_counter"
                                 for e in self.abi)
        # A table tile loop walks a schedule the launcher passes (TileTable).
        self.tile_table = any(e.get("kind") == "tile_table" for e in self.abi)
        if self.grid_policy not in ("tiles", "persistent"):
            raise ManifestError(
                f"kernel '{name}': unknown grid policy '{self.grid_policy}'")
        for i, param in enumerate(self.params):
            kind, dtype = param.get("kind"), param.get("dtype")
            if kind not in ("view", "scalar"):
                raise ManifestError(f"kernel '{name}': params[{i}].kind must "
                                    f"be 'view' or 'scalar', got {kind!r}")
            if kind == "view" and dtype not in ELEMENT_TYPES:
                raise ManifestError(
                    f"kernel '{name}': unsupported element type '{dtype}'")
            if kind == "scalar" and dtype != "i1" and \
                    dtype not in SCALAR_FORMATS:
                raise ManifestError(f"kernel '{name}': params[{i}].dtype: "
                                    f"unsupported scalar type {dtype!r}")

    def _check_param_index(self, field, index):
        """`index`, manifest field `field`, checked to number a parameter."""
        return _manifest_int(self.name, field, index, 0, len(self.params) - 1)

    def _check_tile_bound(self, field, bound):
        """A tile-space bound: {"const": n}, an index parameter {"param":
        p}, the launch's device count {"device_count": true}, a view's
        dimension over a divisor {"param": p, "axis": a, "divisor": d}, or
        the product of two bounds {"product": [b, c]}."""
        if "device_count" in bound:
            if bound["device_count"] is not True:
                raise ManifestError(f"kernel '{self.name}': "
                                    f"{field}.device_count must be true, got "
                                    f"{bound['device_count']!r}")
            return
        if "const" in bound:
            _manifest_int(self.name, f"{field}.const", bound["const"], 0,
                          2**63 - 1)
            return
        if "product" in bound:
            factors = bound["product"]
            if not isinstance(factors, list) or len(factors) != 2 or \
                    not all(isinstance(f, dict) for f in factors):
                raise ManifestError(f"kernel '{self.name}': {field}.product "
                                    f"must list two bounds, got {factors!r}")
            for i, factor in enumerate(factors):
                self._check_tile_bound(f"{field}.product[{i}]", factor)
            return
        param = self._check_param_index(f"{field}.param", bound.get("param"))
        if "axis" in bound or "divisor" in bound:
            rank = len(self.params[param].get("shape", ()))
            _manifest_int(self.name, f"{field}.axis", bound.get("axis"), 0,
                          rank - 1)
            _manifest_int(self.name, f"{field}.divisor", bound.get("divisor"),
                          1, 2**63 - 1)


def _manifest_int(kernel, field, value, low, high):
    """`value`, manifest field `field` of `kernel`, checked to be an
    integer in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int) or \
            not low <= value <= high:
        raise ManifestError(f"kernel '{kernel}': {field} must be an integer "
                            f"in [{low}, {high}], got {value!r}")
    return value


def _manifest_list(kernel, field, value, item, items):
    """`value`, manifest field `field` of `kernel`, checked to be a list of
    `item` instances (`items` names them)."""
    if not isinstance(value, list) or \
            not all(isinstance(v, item) for v in value):
        raise ManifestError(f"kernel '{kernel}': {field} must be a list of "
                            f"{items}, got {value!r}")
    return list(value)


def load_manifest(path):
    """Reads a manifest; returns (folder, dict of KernelSpec, binary names)."""
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise ManifestError(f"cannot read manifest '{path}': {e}")
    except json.JSONDecodeError as e:
        raise ManifestError(f"manifest '{path}' is not JSON: {e}")
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise ManifestError(
            f"manifest '{path}' is not a {MANIFEST_FORMAT} manifest")
    kernels = data.get("kernels")
    if not isinstance(kernels, dict) or not kernels:
        raise ManifestError(f"manifest '{path}' lists no kernels")
    specs = {name: KernelSpec(name, entry) for name, entry in kernels.items()}
    binaries = {k: data[k] for k in ("ptx", "cubin", "hsaco") if k in data}
    for kind, binary in binaries.items():
        if not isinstance(binary, str) or not binary:
            raise ManifestError(f"manifest '{path}': {kind} must name a "
                                f"file, got {binary!r}")
    return os.path.dirname(os.path.abspath(path)), specs, binaries


def _arg_name(index, names):
    if names and index < len(names):
        return f"argument '{names[index]}' (#{index})"
    return f"argument #{index}"


def _dtype_name(tensor):
    return str(getattr(tensor, "dtype", "")).replace("torch.", "")


def check_arguments(spec, args, names=None):
    """Checks each launch argument against the kernel's parameters and
    raises ArgumentError naming the first that does not fit."""
    if len(args) != len(spec.params):
        raise ArgumentError(
            f"kernel '{spec.name}' takes {len(spec.params)} arguments, "
            f"got {len(args)}")
    tma_views = {e["param"] for e in spec.abi if e["kind"] == "tensor_map"}
    views, spans = [], []
    for i, (param, arg) in enumerate(zip(spec.params, args)):
        where = _arg_name(i, names)
        if param["kind"] == "scalar":
            _check_scalar(where, param["dtype"], arg)
            if "value" in param:
                _check_bound(where, param["dtype"], param["value"], arg)
            continue
        _check_devices(where, param, arg, spans)
        _check_view(where, param, arg, needs_tma=i in tma_views)
        views.append((where, arg))
    check_one_device(views)
    # The kernels divide and compare tile-space bounds unsigned: a negative
    # one would be about 2**64 tiles (a persistent loop that never ends).
    for i in sorted(set().union(*(bound_params(b) for b in spec.tiles))):
        if args[i] < 0:
            raise ArgumentError(f"{_arg_name(i, names)}: bounds the tile "
                                f"space, so it cannot be negative, got "
                                f"{args[i]}")


def _check_devices(where, param, arg, spans):
    """A multi-device view takes DeviceViews of at most its `devices`
    copies, every such argument of a call of the same devices and rank
    (`spans` collects them); a plain view takes a tensor."""
    devices = param.get("devices")
    multi = hasattr(arg, "addresses")
    if not devices:
        if multi:
            raise ArgumentError(f"{where}: the kernel takes one tensor here, "
                                f"not a multi-device view")
        return
    if not multi:
        raise ArgumentError(f"{where}: the kernel takes a multi-device view "
                            f"here (tk_mlir.multi_device.DeviceViews), got "
                            f"{type(arg).__name__}")
    if not 1 <= arg.world <= devices:
        raise ArgumentError(f"{where}: spans {arg.world} devices; the kernel "
                            f"was compiled for at most {devices}")
    for address in arg.addresses:
        if address % 16:
            raise ArgumentError(f"{where}: every device's copy must be "
                                f"16-byte aligned, one is at {address:#x}")
    if spans and (arg.world, arg.rank) != spans[0][1:]:
        raise ArgumentError(
            f"{where}: device {arg.rank} of {arg.world}, but {spans[0][0]} is "
            f"device {spans[0][2]} of {spans[0][1]}; the multi-device views "
            f"of one call must agree")
    spans.append((where, arg.world, arg.rank))


def check_one_device(tensors):
    """Raises ArgumentError unless the tensors of `tensors`, (where, tensor)
    pairs (None for an absent tensor), share one device; it names the first
    that is elsewhere than the first tensor."""
    first = None
    for where, t in tensors:
        if t is None:
            continue
        device = getattr(t, "device", None)
        if first is None:
            first = where, device
        elif device != first[1]:
            raise ArgumentError(f"{where}: on {device}, but {first[0]} is on "
                                f"{first[1]}; the tensors of one call must "
                                f"share a device")


def _check_scalar(where, dtype, arg):
    """Raises ArgumentError unless `arg` is a value of scalar type `dtype`
    (a parameter's or an ABI type) that the kernel can receive: a bool for
    i1, an int in range for the integer types (received unchanged), a
    finite number in range for the float types (rounded to the type, as C
    converts a double argument)."""
    if dtype == "i1":
        if not isinstance(arg, bool):
            raise ArgumentError(f"{where}: expected a bool, got "
                                f"{type(arg).__name__}")
        return
    floating = dtype.startswith("f")
    if floating:
        if isinstance(arg, bool) or not isinstance(arg, (int, float)):
            raise ArgumentError(f"{where}: expected a number, got "
                                f"{type(arg).__name__}")
    elif isinstance(arg, bool) or not isinstance(arg, int):
        raise ArgumentError(f"{where}: expected an int, got "
                            f"{type(arg).__name__}")
    try:
        struct.pack(SCALAR_FORMATS[dtype], arg)
        fits = not floating or math.isfinite(arg)
    except (struct.error, OverflowError):
        fits = False
    if not fits and floating:
        raise ArgumentError(f"{where}: expected a finite {dtype} value, got "
                            f"{arg!r}")
    if not fits:
        raise ArgumentError(f"{where}: {arg} is out of range for {dtype}")


def _scalar_value(spec, entry, args, names):
    """The value of ABI scalar `entry` for `args`, checked against its
    parameter's type and the ABI type it travels as (ArgumentError naming
    the argument where the kernel would receive another value)."""
    index = entry["param"]
    where, arg = _arg_name(index, names), args[index]
    _check_scalar(where, spec.params[index]["dtype"], arg)
    abi_type = entry["type"]
    if abi_type not in SCALAR_CTYPES:
        raise ManifestError(f"kernel '{spec.name}': unsupported scalar ABI "
                            f"type {abi_type!r}")
    value = int(arg) if abi_type.startswith("i") else float(arg)
    _check_scalar(where, abi_type, value)
    return value


def _patched_scalar(spec, entry, args, names):
    """The value a launch writes for ABI scalar `entry` over packed
    parameters (_scalar_value's checks, then a tile-bound parameter's
    compiled value)."""
    index = entry["param"]
    value = _scalar_value(spec, entry, args, names)
    param = spec.params[index]
    if "value" in param:
        _check_bound(_arg_name(index, names), param["dtype"], param["value"],
                     args[index])
    return value


def _check_bound(where, dtype, value, arg):
    """A parameter compiled for one value (tile-bind): the launch must pass
    that value."""
    def f32(x):
        return struct.unpack("f", struct.pack("f", x))[0]
    if (f32(arg) != f32(value)) if dtype == "f32" else (arg != value):
        raise ArgumentError(f"{where}: the kernel was compiled for the value "
                            f"{value!r} (tile.bound), got {arg!r}")


def _check_view(where, param, t, needs_tma):
    if not all(hasattr(t, a) for a in ("shape", "stride", "dtype",
                                       "data_ptr")):
        raise ArgumentError(f"{where}: expected a tensor, got "
                            f"{type(t).__name__}")
    size, torch_name, _ = ELEMENT_TYPES[param["dtype"]]
    if _dtype_name(t) != torch_name:
        raise ArgumentError(f"{where}: expected dtype {torch_name}, got "
                            f"{_dtype_name(t)}")
    if not getattr(t, "is_cuda", False):
        raise ArgumentError(f"{where}: expected a CUDA tensor, got one on "
                            f"{getattr(t, 'device', 'the CPU')}")
    shape = list(t.shape)
    declared = list(param["shape"])
    if len(shape) != len(declared):
        raise ArgumentError(f"{where}: expected {len(declared)} dimensions, "
                            f"got {len(shape)}")
    for d, (got, want) in enumerate(zip(shape, declared)):
        if want >= 0 and got != want:
            raise ArgumentError(f"{where}: dimension {d} must be {want}, "
                                f"got {got}")
        if got == 0:
            raise ArgumentError(f"{where}: dimension {d} is empty")
    stride = list(t.stride())
    expected = 1
    for d in reversed(range(len(shape))):
        if shape[d] != 1 and stride[d] != expected:
            raise ArgumentError(f"{where}: must be contiguous (row-major); "
                                f"stride of dimension {d} is {stride[d]}, "
                                f"expected {expected}")
        expected *= shape[d]
    if t.data_ptr() % 16:
        raise ArgumentError(f"{where}: data must be 16-byte aligned, address "
                            f"is {t.data_ptr():#x}")
    if needs_tma and len(shape) > 1 and (shape[-1] * size) % 16:
        raise ArgumentError(f"{where}: async copies (TMA) need rows that are "
                            f"a multiple of 16 bytes; the last dimension "
                            f"{shape[-1]} x {size} bytes is not")
    if param.get("layout") == "fragments" and shape[-2] % 64:
        raise ArgumentError(f"{where}: a view in fragment order holds rows in "
                            f"slabs of 64; dimension {len(shape) - 2} is "
                            f"{shape[-2]}, not a multiple of 64 (pad it)")
    tile_cols = param.get("tile_cols")
    if tile_cols and shape[-1] % tile_cols:
        raise ArgumentError(f"{where}: the kernel adds whole tiles of "
                            f"{tile_cols} columns to this view in fragment "
                            f"order; dimension {len(shape) - 1} is "
                            f"{shape[-1]}, not a multiple of {tile_cols} "
                            f"(pad it)")
    align = param.get("row_alignment")
    if align and (shape[-1] * size) % align:
        raise ArgumentError(f"{where}: copies into LDS need rows that are a "
                            f"multiple of {align} bytes; the last dimension "
                            f"{shape[-1]} x {size} bytes is not")


def fragment_order_axes(lead, rows, cols):
    """How a [*lead, rows, cols] view in fragment order (GlobalType in
    docs/dialect: 64-row slabs in the wgmma accumulator's order) is read
    back row-major: view the tensor with `shape`, permute its axes by
    `perm`, reshape to [*lead, rows, cols]. Within a slab the offset's digits
    are, most significant first, c / 8, r / 16, r % 8, (c % 8) / 2,
    (r / 8) % 2, c % 2."""
    if rows % 64 or cols % 8:
        raise ValueError(f"fragment order needs rows a multiple of 64 and "
                         f"columns a multiple of 8, got {rows} x {cols}")
    n = len(lead)
    shape = list(lead) + [rows // 64, cols // 8, 4, 8, 4, 2, 2]
    # to slab, r / 16, (r / 8) % 2, r % 8, c / 8, (c % 8) / 2, c % 2
    perm = list(range(n)) + [n + i for i in (0, 2, 5, 3, 1, 4, 6)]
    return shape, perm


def from_fragments(t, dtype=None, transpose=False):
    """A contiguous torch tensor [..., rows, cols] written in fragment order
    (a kernel parameter whose manifest entry says "layout": "fragments") as
    the row-major tensor it stands for, converted to `dtype` in the same
    copy; with transpose=True as its transpose [..., cols, rows] (still one
    copy)."""
    *lead, rows, cols = t.shape
    shape, perm = fragment_order_axes(lead, rows, cols)
    dtype = dtype or t.dtype
    if transpose:
        out = t.new_empty((*lead, cols, rows), dtype=dtype)
        target = out.transpose(-1, -2)
    else:
        out = target = t.new_empty(t.shape, dtype=dtype)
    target.view([shape[i] for i in perm]).copy_(t.view(shape).permute(perm))
    return out


def grid_tiles(spec, args):
    """Number of output tiles, from the manifest's tile-space bounds."""
    total = 1
    for bound in spec.tiles:
        total *= bound_extent(bound, args)
    return total


def bound_extent(bound, args):
    """The extent of one tile-space bound of a manifest for `args`."""
    if "const" in bound:
        return bound["const"]
    if "device_count" in bound:
        span = _device_span(args)
        if span is None:
            raise ArgumentError("the tile space counts the launch's devices, "
                                "but no argument is a multi-device view")
        return span.world
    if "product" in bound:
        lhs, rhs = bound["product"]
        return bound_extent(lhs, args) * bound_extent(rhs, args)
    if "axis" not in bound:  # an index parameter
        return int(args[bound["param"]])
    dim = args[bound["param"]].shape[bound["axis"]]
    return -(-dim // bound["divisor"])


def _device_span(args):
    """The first multi-device view (DeviceViews) among `args`, which gives
    the launch's device index and count, or None."""
    return next((a for a in args if hasattr(a, "addresses")), None)


def bound_params(bound):
    """The index parameters (not view dimensions) a tile-space bound
    reads."""
    if "product" in bound:
        return set().union(*(bound_params(b) for b in bound["product"]))
    if "param" in bound and "axis" not in bound:
        return {bound["param"]}
    return set()


def grid_size(spec, args, multiprocessors, one_tile_per_block=False,
              balanced=True):
    """Blocks to launch. The unit of work is the cluster (one block without
    clusters): one per tile, or for persistent kernels at most as many as
    fit on the multiprocessors at once; every block of a cluster shares
    its tiles; a kernel with blocks_per_sm = B runs B workers per
    multiprocessor. one_tile_per_block launches a persistent kernel with one tile
    per block anyway (its tile loop then runs once per block): the hardware
    balances tiles of different work better than a static order.

    balanced: a persistent grid gets only as many workers as its busiest
    worker's tile count needs (512 tiles on 132 multiprocessors: 4 tiles
    each for 128 workers instead of 4 for 116 and 3 for 16; the same number
    of rounds, fewer blocks competing for power and memory; measured in
    docs/performance.md). Kernels that split the last round's work
    themselves (stream-K) pass False to use every multiprocessor, and
    kernels whose blocks take tiles as they go (a `dynamic` tile loop) get
    every multiprocessor anyway."""
    tiles = grid_tiles(spec, args)
    if spec.dynamic_tiles and tiles >= 2**32:
        raise ArgumentError(f"kernel '{spec.name}': {tiles} tiles; its blocks "
                            f"take tiles from a 32-bit counter, so a launch "
                            f"holds fewer than 2**32")
    cluster = spec.cluster[0] if spec.cluster else 1
    # Grid-level roles: the communicating blocks come first and keep their
    # multiprocessors; the tile loops get the rest.
    communicating = getattr(spec, "communication_blocks", 0)
    if spec.grid_policy == "persistent" and not one_tile_per_block:
        slots = multiprocessors * getattr(spec, "blocks_per_sm", 1)
        if communicating >= slots:
            raise ArgumentError(
                f"kernel '{spec.name}': its {communicating} communicating "
                f"blocks leave none of the {slots} blocks this device runs "
                f"at once to compute")
        slots -= communicating
        workers = max(1, min(tiles, slots // cluster))
        if balanced and tiles > 0 and not spec.dynamic_tiles:
            rounds = -(-tiles // workers)
            workers = -(-tiles // rounds)
    else:
        workers = max(1, tiles)
    return communicating + workers * cluster


def check_grid(spec, blocks):
    """Raises ArgumentError unless one launch of `spec`'s kernel holds
    `blocks` blocks (MAX_GRID_X; on AMD also fewer than 2**32 threads)."""
    limit = MAX_GRID_X
    if spec.target.startswith("gfx"):
        limit = min(limit, (2**32 - 1) // spec.threads)
    if blocks > limit:
        raise ArgumentError(f"kernel '{spec.name}': the launch needs {blocks} "
                            f"blocks; a grid of {spec.threads}-thread blocks "
                            f"on {spec.target} holds at most {limit}")


class TileTable:
    """The schedule of a kernel whose tile loop walks a table (`foreach_tile
    ... table`): `blocks[b]` lists the tile ordinals (indices in the tile
    loop's order) block b runs, one after another; the launch starts one
    block per list. `words` is what the kernel reads: the lists' offsets
    (len(blocks) + 1 of them), then the ordinals and a padding word, as
    32-bit integers."""

    def __init__(self, blocks):
        self.blocks = tuple(tuple(int(t) for t in block) for block in blocks)
        if not self.blocks:
            raise ValueError("a tile table needs at least one block")
        offsets = [0]
        for block in self.blocks:
            offsets.append(offsets[-1] + len(block))
        # (A padding word ends the table: each step of the kernel's walk
        # reads the next step's ordinal, the last one past the end.)
        words = offsets + [t for block in self.blocks for t in block] + [0]
        if len(words) >= 2**31 or any(w < 0 or w >= 2**31 for w in words):
            raise ValueError("a tile table's ordinals and offsets must fit "
                             "in 31 bits")
        self.words = words
        self.tiles = offsets[-1]

    @classmethod
    def strided(cls, tiles, workers):
        """The static walk without `snake`: block b runs b, b + workers, ..."""
        return cls([range(b, tiles, workers) for b in range(workers)])

    def check(self, tiles, name="tile_table"):
        """Raises ArgumentError naming `name` unless every ordinal in
        [0, tiles) appears exactly once."""
        seen = [False] * tiles
        for b, block in enumerate(self.blocks):
            for t in block:
                if t >= tiles:
                    raise ArgumentError(
                        f"argument '{name}': block {b} has tile {t}, but "
                        f"the launch has {tiles} tiles")
                if seen[t]:
                    raise ArgumentError(
                        f"argument '{name}': tile {t} appears twice")
                seen[t] = True
        if self.tiles != tiles:
            raise ArgumentError(
                f"argument '{name}': {self.tiles} tiles listed, the launch "
                f"has {tiles}")


def tensor_map_geometry(entry, tensor, dtype, where="tensor"):
    """The TMA descriptor geometry of ABI entry `entry` over `tensor`;
    ArgumentError naming `where` (the argument) where it exceeds what a
    descriptor holds."""
    size = ELEMENT_TYPES[dtype][0]
    shape = list(tensor.shape)
    for d, extent in enumerate(shape):
        if not 1 <= extent <= TMA_MAX_DIM:
            raise ArgumentError(f"{where}: the kernels' TMA copies address "
                                f"at most 2**31 - 1 elements per dimension "
                                f"(32-bit signed coordinates); dimension {d} "
                                f"has {extent}")
    dims = list(reversed(shape))
    strides = []
    running = size
    for d in reversed(range(len(shape) - 1)):
        running *= shape[d + 1]
        if running % 16 or running >= TMA_MAX_STRIDE:
            raise ArgumentError(f"{where}: a TMA descriptor takes strides "
                                f"that are multiples of 16 bytes below "
                                f"2**40; dimension {d}'s is {running} bytes")
        strides.append(running)
    box = list(reversed(entry["box"]))
    return TensorMapGeometry(dtype, tensor.data_ptr(), dims, strides, box,
                             entry["swizzle"])


def pack_parameters(spec, args, encode_tensor_map, tile_counter=None,
                    tile_table=None, names=None):
    """Builds the kernel's parameter buffer in ABI order. Returns (keepalive,
    pointer array); `encode_tensor_map(geometry)` returns 128 bytes.
    `tile_counter`: the device address of the two zeroed 32-bit words a
    kernel with a dynamic tile loop takes its tiles from; `tile_table`: the
    device address of a table tile loop's words (TileTable.words). A scalar
    or tensor map the kernel would receive changed raises ArgumentError
    naming the argument (`names` as check_arguments takes them)."""
    values = []
    hidden = {"tile_counter": ("tile counter", tile_counter),
              "tile_table": ("tile table", tile_table)}
    # A kernel with multi-device views: the launch's device index and count,
    # from its (checked to agree) DeviceViews arguments.
    span = _device_span(args)
    for entry in spec.abi:
        kind = entry["kind"]
        if kind in hidden:
            what, address = hidden[kind]
            if not address:
                raise ManifestError(f"kernel '{spec.name}' takes a {what}; "
                                    f"none was given")
            values.append(ctypes.c_void_p(address))
            continue
        if kind in ("device_id", "device_count"):
            if span is None:
                raise ManifestError(f"kernel '{spec.name}' takes a {kind} "
                                    f"but has no multi-device view")
            values.append(ctypes.c_int32(
                span.rank if kind == "device_id" else span.world))
            continue
        arg = args[entry["param"]]
        device = entry.get("device")
        if device is not None and device >= arg.world:
            # A copy past the launch's devices: never addressed.
            values.append(ctypes.c_void_p(0) if kind == "view_ptr"
                          else (ctypes.c_ubyte * 128)())
            continue
        if kind == "view_ptr":
            values.append(ctypes.c_void_p(
                arg.data_ptr() if device is None else arg.addresses[device]))
        elif kind == "view_dim":
            values.append(ctypes.c_int64(arg.shape[entry["axis"]]))
        elif kind == "scalar":
            value = _scalar_value(spec, entry, args, names)
            values.append(SCALAR_CTYPES[entry["type"]](value))
        elif kind == "tensor_map":
            geometry = tensor_map_geometry(entry, arg, entry["dtype"],
                                           _arg_name(entry["param"], names))
            if device is not None:
                geometry.address = arg.addresses[device]
            raw = encode_tensor_map(geometry)
            if len(raw) != 128:
                raise ManifestError("a tensor map must be 128 bytes")
            buf = (ctypes.c_ubyte * 128).from_buffer_copy(raw)
            values.append(buf)
        else:
            raise ManifestError(f"unknown ABI entry kind '{kind}'")
    pointers = (ctypes.c_void_p * len(values))(
        *[ctypes.addressof(v) for v in values])
    return values, pointers


def kernarg_layout(spec):
    """Where each ABI entry of an AMD kernel sits in its kernel-argument
    segment: (offset, bytes, entry), each entry at its natural alignment in
    ABI order, as the AMDGPU back end lays out explicit arguments."""
    layout, offset = [], 0
    for entry in spec.abi:
        kind = entry["kind"]
        key = entry.get("type") if kind == "scalar" else kind
        size = KERNARG_BYTES.get(key)
        if size is None:
            raise ManifestError(f"kernel '{spec.name}': ABI entry {entry} has "
                                f"no AMD kernel-argument form")
        offset = -(-offset // size) * size
        layout.append((offset, size, entry))
        offset += size
    return layout


def pack_kernargs(spec, args, names=None):
    """The explicit kernel-argument bytes of an AMD kernel for `args`; a
    scalar the kernel would receive changed raises ArgumentError naming the
    argument (`names` as check_arguments takes them)."""
    layout = kernarg_layout(spec)
    end = layout[-1][0] + layout[-1][1] if layout else 0
    buf = bytearray(end)
    for offset, size, entry in layout:
        arg = args[entry["param"]]
        if entry["kind"] == "view_ptr":
            struct.pack_into("<Q", buf, offset, arg.data_ptr())
        elif entry["kind"] == "view_dim":
            struct.pack_into("<q", buf, offset, arg.shape[entry["axis"]])
        else:
            struct.pack_into(SCALAR_FORMATS[entry["type"]], buf, offset,
                             _scalar_value(spec, entry, args, names))
    return bytes(buf)


# A wgmma whose A operand is a register list (the accumulator list, then a
# second list instead of a shared-memory descriptor).
_REGISTER_A_WGMMA = re.compile(rb"wgmma\.mma_async[^;]*\}\s*,\s*\{")


# The buffer of a kernel compiled with wait-timeout-ms that the host reads
# after a launch fails: a u32 count of timed-out waits at byte 0, then
# 32-byte records from byte 32, each six u32 (site, block, thread, then for
# a semaphore wait the parity and the semaphore's shared address, for a
# counter wait the value waited for and the low 32 bits of the counter's
# global address; written = 1, stored last).
WAIT_HEADER_BYTES = 32
WAIT_RECORD_BYTES = 32


def wait_report_bytes(spec):
    return WAIT_HEADER_BYTES + WAIT_RECORD_BYTES * spec.wait_records


def decode_wait_reports(spec, raw):
    """One message per written record of `raw` (a wait report buffer of a
    kernel `spec` describes): which block and thread waited, where and for
    what."""
    count = struct.unpack_from("<I", raw, 0)[0]
    messages = []
    for i in range(min(count, spec.wait_records)):
        site, block, thread, parity, address, written = struct.unpack_from(
            "<6I", raw, WAIT_HEADER_BYTES + WAIT_RECORD_BYTES * i)
        if written != 1:
            continue
        where = spec.wait_sites.get(site, f"unknown site {site}")
        if getattr(spec, "wait_kinds", {}).get(site) == "counter":
            value = parity - 2**32 if parity >= 2**31 else parity
            what = (f"a counter in global memory (address ending "
                    f"{address:#010x}) to reach {value}")
        else:
            what = (f"the phase of parity {parity} of the semaphore at "
                    f"shared address {address:#x}")
        messages.append(
            f"kernel {spec.name}, block {block}, thread {thread}: waited "
            f"over {spec.wait_limit_ms} ms at {where} for {what}")
    if count > spec.wait_records:
        messages.append(f"({count - spec.wait_records} more timed-out waits "
                        f"not recorded)")
    return messages


def jit_warning(ptx, driver_version):
    """The warning for loading `ptx` (bytes) through the driver's JIT, whose
    compiler is the driver's CUDA release (`driver_version`, as
    cuDriverGetVersion reports it: 13000 for 13.0), or None. The 13.0
    compiler (ptxas 13.0.88, and the JIT of driver 580.159.04) can reuse the
    registers of a wgmma's register A operand while a later wgmma still
    reads them (docs/nvidia.md, "Assembler"); tk-opt warns the same way
    when it assembles a cubin."""
    if driver_version >= 13010 or not _REGISTER_A_WGMMA.search(ptx):
        return None
    return (f"JIT-compiling PTX that reads a wgmma's A operand from "
            f"registers with the driver's CUDA {driver_version // 1000}."
            f"{driver_version % 1000 // 10} compiler, which can reuse those "
            f"registers while they are still needed (wrong results; fixed "
            f"in 13.1): assemble a cubin with ptxas 13.1 or newer "
            f"(tk-opt does when CUDA_ROOT names such a toolkit)")


class Kernel:
    """A kernel loaded from a manifest, callable on torch tensors: through
    the CUDA driver for NVIDIA targets, the HIP runtime for AMD ones (gfx*),
    which this project compiles for but has not run on (no AMD GPU)."""

    def __init__(self, manifest_path, name=None, names=None,
                 balanced_grid=True):
        folder, specs, binaries = load_manifest(manifest_path)
        if name is None:
            if len(specs) != 1:
                raise ManifestError(f"manifest has kernels {sorted(specs)}; "
                                    f"name one")
            name = next(iter(specs))
        if name not in specs:
            raise ManifestError(f"no kernel '{name}' in the manifest; it has "
                                f"{sorted(specs)}")
        self.spec = specs[name]
        self.names = names
        self.amd = self.spec.target.startswith("gfx")
        if self.amd:
            from . import hip_driver as driver
            kind = "hsaco"
            if kind not in binaries:
                raise ManifestError("manifest of an AMD kernel names no hsaco")
        else:
            from . import cuda_driver as driver
            kind = "cubin" if "cubin" in binaries else "ptx"
            if kind not in binaries:
                raise ManifestError("manifest names no cubin or ptx")
        self._cuda = driver
        binary = binaries[kind]
        try:
            with open(os.path.join(folder, binary), "rb") as f:
                image = f.read()
        except OSError as e:
            raise ManifestError(f"manifest '{manifest_path}' names {kind} "
                                f"'{binary}', which cannot be read: {e}")
        if kind == "ptx":
            message = jit_warning(image, driver.driver_version())
            if message:
                warnings.warn(message, RuntimeWarning, stacklevel=2)
        self._image = image
        # Compiled with wait-timeout-ms: a host-mapped buffer per device the
        # kernel records timed-out waits in before it traps (wait_timeouts()).
        self._wants_wait_report = (self.spec.wait_timeout is not None and
                                   bool(self.spec.wait_sites) and
                                   not self.amd)
        # (module, function, wait-report buffer) by device ordinal: a module
        # is loaded on each device the kernel is launched on, the first on
        # the current device here (so a binary that does not load fails
        # now).
        self._loaded = {}
        self._on_device(driver.current_device())
        # Packed parameters (TMA descriptors included) by argument identity,
        # so repeated calls on the same tensors skip the host-side encoding.
        self._packed = {}
        # Scalars a call may change without packing again (the tensor maps
        # are the costly part): on NVIDIA, those no tile bound reads. Their
        # slots in the packed parameters are rewritten per call.
        grid_params = set().union(*(bound_params(t)
                                    for t in self.spec.tiles))
        self._scalar_slots = [] if self.amd else [
            (i, e) for i, e in enumerate(self.spec.abi)
            if e["kind"] == "scalar" and e["param"] not in grid_params]
        self._patched = {e["param"] for _, e in self._scalar_slots}
        # Persistent grids balanced over their rounds (grid_size).
        self.balanced_grid = balanced_grid
        # Tile counters of a dynamic tile loop, by (device, stream): two
        # zeroed words each, which every launch leaves zero again. Launches
        # on one stream run one after another; two streams get two counters.
        self._tile_counters = {}
        # Tile tables on the device, by (id(table), device): (table, words
        # tensor), the table kept so that its id stays its own.
        self._tile_tables = {}
        # Multiprocessors by device ordinal (block_slots).
        self._multiprocessors = {}

    def close(self):
        """Unloads the kernel's module and frees its wait-report buffer;
        calling the kernel afterwards raises RuntimeError. Idempotent, and
        run when the Kernel is garbage-collected or leaves a `with` block.
        Waits for the device's queued work first (a launch may still be
        running). Best effort: after a launch trapped, the CUDA context is
        unusable and the driver cannot free anything (the process's exit
        does)."""
        loaded = getattr(self, "_loaded", None) or {}
        self._loaded = None
        self._packed = {}
        self._tile_counters = {}
        self._tile_tables = {}
        driver = getattr(self, "_cuda", None)
        if driver is None:
            return

        def quietly(call, *args):
            try:
                call(*args)
            except Exception:  # context gone (a launch trapped)
                pass
        for device, (module, _, buffer) in loaded.items():
            # A launch still queued may run the module and write the buffer.
            quietly(driver.synchronize, device)
            if buffer is not None:
                quietly(driver.free_host, device, buffer)
            quietly(driver.unload_module, device, module)

    @property
    def closed(self):
        return getattr(self, "_loaded", None) is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        # Not at interpreter exit: the process's end frees everything, and
        # waiting there for a kernel that hangs would keep it from ending.
        if not sys.is_finalizing():
            self.close()

    def _on_device(self, device):
        """(module, function, wait-report buffer) of this kernel on `device`
        (ordinal), its module loaded there on first use."""
        loaded = self._loaded.get(device)
        if loaded is None:
            module, function = self._cuda.load_function(
                device, self._image, self.spec.name,
                self.spec.shared_memory_bytes)
            buffer = None
            if self._wants_wait_report:
                buffer = self._cuda.attach_wait_report(
                    device, module, self.spec.wait_report,
                    wait_report_bytes(self.spec))
            loaded = self._loaded[device] = (module, function, buffer)
        return loaded

    def grid(self, *args, one_tile_per_block=False):
        """Blocks of a launch on `args`, on their device."""
        device = device_index(_cuda_device(args), self._cuda)
        return grid_size(self.spec, args,
                         self._cuda.multiprocessor_count(device),
                         one_tile_per_block, self.balanced_grid)

    def block_slots(self, device=None):
        """How many blocks of this kernel `device` (a torch device, "cuda:N"
        or an ordinal; None: the current one) runs at once: blocks_per_sm on
        each multiprocessor (what a persistent grid launches)."""
        index = device_index(device, self._cuda)
        count = self._multiprocessors.get(index)
        if count is None:   # (a driver query: once per device)
            count = self._multiprocessors[index] = \
                self._cuda.multiprocessor_count(index)
        return count * self.spec.blocks_per_sm

    def tile_counter(self, args, stream=None):
        """The device address of this kernel's tile counter for the device
        of `args`' first tensor and `stream` (default: torch's current)."""
        import torch
        device = _cuda_device(args)
        if device is None:  # check_arguments names the wrong argument
            return None
        handle = _stream_handle(device, stream)
        key = (str(device), handle)
        counter = self._tile_counters.get(key)
        if counter is None:
            # Zeroed on the stream that launches with it, which need not
            # wait for torch's current one.
            if handle == torch.cuda.current_stream(device).cuda_stream:
                counter = torch.zeros(2, dtype=torch.int32, device=device)
            else:
                with torch.cuda.stream(torch.cuda.ExternalStream(
                        handle, device=device)):
                    counter = torch.zeros(2, dtype=torch.int32,
                                          device=device)
            self._tile_counters[key] = counter
        return counter.data_ptr()

    def table_words(self, args, table):
        """`table`'s words (TileTable) as an int32 tensor on the device of
        `args`' first tensor, checked against the launch's tiles once per
        number of tiles (a table of another launch's tiles would skip
        tiles, or walk past the tile space)."""
        import torch
        device = _cuda_device(args)
        if device is None:  # check_arguments names the wrong argument
            return None
        tiles = grid_tiles(self.spec, args)
        key = (id(table), str(device), tiles)
        entry = self._tile_tables.get(key)
        if entry is None:
            table.check(tiles)
            words = torch.tensor(table.words, dtype=torch.int32,
                                 device=device)
            if len(self._tile_tables) >= 64:
                self._tile_tables.pop(next(iter(self._tile_tables)))
            entry = self._tile_tables[key] = (table, words)
        return entry[1]

    def __call__(self, *args, stream=None, one_tile_per_block=False,
                 tile_table=None):
        """Launches on `args`. tile_table: a TileTable for a kernel whose
        tile loop walks one (default: the plain strided walk over the grid
        `grid` gives); it sets the number of blocks."""
        self._check_open()
        self._check_tile_table(tile_table, one_tile_per_block)
        counter = None
        if self.spec.dynamic_tiles:
            counter = self.tile_counter(args, stream)
        try:
            key = (_cache_key(args, self._patched), bool(one_tile_per_block),
                   counter, id(tile_table))
            packed = self._packed.get(key)
        except TypeError:   # an unhashable argument: _pack's checks name it
            key = packed = None
        if packed is not None and self._scalar_slots:
            self._patch_scalars(packed[0][0], args)
        if packed is None:
            packed = self._pack(args, counter, one_tile_per_block,
                                tile_table)
            if key is not None:
                if len(self._packed) >= 64:
                    self._packed.pop(next(iter(self._packed)))
                self._packed[key] = packed
        (_, pointers), grid, _, device = packed
        self._launch(device, grid, pointers, stream)

    def prepare(self, *args, stream=None, one_tile_per_block=False,
                tile_table=None):
        """The launch on `args` checked and packed now, as a PreparedLaunch
        whose calls queue it again with only scalars changed: for launchers
        that repeat one launch and whose host time shows. Arguments as
        for a call; `stream` only picks the tile counter of a kernel with a
        dynamic tile loop (a launch on another stream raises
        ArgumentError)."""
        self._check_open()
        self._check_tile_table(tile_table, one_tile_per_block)
        counter = used = None
        if self.spec.dynamic_tiles:
            counter = self.tile_counter(args, stream)
            used = _stream_handle(_cuda_device(args), stream)
        return PreparedLaunch(self, self._pack(args, counter,
                                               one_tile_per_block,
                                               tile_table), used)

    def _check_open(self):
        if self.closed:
            raise RuntimeError(f"kernel '{self.spec.name}' is closed")

    def _check_tile_table(self, tile_table, one_tile_per_block):
        if tile_table is None:
            return
        if not self.spec.tile_table:
            raise ArgumentError(
                f"argument 'tile_table': kernel '{self.spec.name}' does "
                f"not walk a tile table (no 'table' tile loop)")
        if not isinstance(tile_table, TileTable):
            raise ArgumentError(f"argument 'tile_table': expected a "
                                f"TileTable, got "
                                f"{type(tile_table).__name__}")
        if one_tile_per_block:
            raise ArgumentError("argument 'tile_table': cannot be given "
                                "with one_tile_per_block")

    def _pack(self, args, counter, one_tile_per_block, tile_table):
        """Checks `args` and packs a launch on them: (parameters, grid,
        (tile table, its words), device ordinal)."""
        check_arguments(self.spec, args, self.names)
        grid = self.grid(*args, one_tile_per_block=one_tile_per_block)
        words = None
        if self.spec.tile_table:
            if tile_table is None:
                tile_table = TileTable.strided(
                    grid_tiles(self.spec, args), grid)
            words = self.table_words(args, tile_table)
            grid = len(tile_table.blocks)
        check_grid(self.spec, grid)
        device = device_index(_cuda_device(args), self._cuda)
        if self.amd:
            params = (None, pack_kernargs(self.spec, args, self.names))
        else:
            params = pack_parameters(
                self.spec, args,
                functools.partial(self._cuda.encode_tensor_map, device),
                counter, None if words is None else words.data_ptr(),
                self.names)
        # (The table and its words live as long as the packing: a cache
        # key holds the table's id.)
        return params, grid, (tile_table, words), device

    def _launch(self, device, grid, pointers, stream):
        try:
            function = self._on_device(device)[1]
            self._cuda.launch(device, function, grid, self.spec, pointers,
                              stream)
        except RuntimeError as error:  # e.g. after an earlier launch trapped
            timed_out = self.wait_timeouts()
            if not timed_out:
                raise
            raise RuntimeError(f"{error}; waits that timed out: " +
                               "; ".join(timed_out)) from error

    def _patch_scalars(self, values, args):
        """Writes this call's scalars into packed parameters `values`
        (checked as pack_parameters checks them)."""
        for slot, entry in self._scalar_slots:
            values[slot].value = _patched_scalar(self.spec, entry, args,
                                                 self.names)

    def wait_timeouts(self):
        """Messages for the waits that ran past the kernel's time limit
        (compiled with wait-timeout-ms; [] otherwise or when none did). The
        buffer is host memory, so this works after the launch failed and
        the CUDA context is no longer usable."""
        buffers = [(device, buffer) for device, (_, _, buffer)
                   in sorted((self._loaded or {}).items())
                   if buffer is not None]
        messages = []
        for device, buffer in buffers:
            found = decode_wait_reports(self.spec, ctypes.string_at(
                buffer, wait_report_bytes(self.spec)))
            if len(buffers) > 1:
                found = [f"device {device}: {m}" for m in found]
            messages += found
        return messages


class PreparedLaunch:
    """One launch of a Kernel on fixed arguments (Kernel.prepare), checked
    and packed once into parameters of its own. A call queues it on
    `stream` (default: PyTorch's current stream of its device), first
    writing `scalars`, a dict from argument name (or index) to value, of
    the scalars no tile bound reads (the others set the grid: prepare
    again). A scalar keeps the value last written (at first, the prepared
    one); a call whose scalars do not all check writes none of them. It
    skips what a Kernel call repeats per launch, the argument checks and
    the lookup of the packed launch by every argument's address, shape and
    strides, which take most of a cached call's host time. A kernel with a
    dynamic tile loop takes its tiles from a counter of the stream it was
    prepared for: a launch on another stream raises ArgumentError."""

    def __init__(self, kernel, packed, stream=None):
        self._kernel = kernel
        (self._values, self._pointers), self.grid, self._keep, \
            self.device = packed
        self._stream = stream
        self._slots = {}
        for slot, entry in kernel._scalar_slots:
            index = entry["param"]
            self._slots[index] = (slot, entry)
            if kernel.names and index < len(kernel.names):
                self._slots[kernel.names[index]] = (slot, entry)

    def __call__(self, scalars=None, stream=None):
        # (The stream first: a refused launch leaves the scalars alone.)
        if self._stream is not None:
            used = _stream_handle(self.device, stream)
            if used != self._stream:
                raise ArgumentError(
                    f"argument 'stream': kernel '{self._kernel.spec.name}' "
                    f"takes its tiles from a counter of the stream it was "
                    f"prepared for ({self._stream:#x}), not {used:#x}: "
                    f"prepare a launch for that stream")
        self.set(scalars)
        self._kernel._launch(self.device, self.grid, self._pointers, stream)

    def set(self, scalars):
        """Writes `scalars` (as a call takes them) into the parameters
        without launching: all of them once each checks."""
        kernel = self._kernel
        kernel._check_open()
        writes = {}
        for key, value in (scalars or {}).items():
            found = None if isinstance(key, bool) else self._slots.get(key)
            if found is None:
                what = ("an AMD kernel's launch is packed once, its scalars "
                        "with it" if kernel.amd else
                        "one a tile bound reads sets the grid: prepare "
                        "again")
                raise ArgumentError(
                    f"argument {key!r}: kernel '{kernel.spec.name}' has no "
                    f"scalar argument of that name or index that a "
                    f"prepared launch can change ({what})")
            slot, entry = found
            index = entry["param"]
            if slot in writes:
                raise ArgumentError(f"{_arg_name(index, kernel.names)}: "
                                    f"given twice (by name and index)")
            writes[slot] = _patched_scalar(kernel.spec, entry,
                                           {index: value}, kernel.names)
        for slot, written in writes.items():
            self._values[slot].value = written


def _stream_handle(device, stream):
    """`stream` as an int, or PyTorch's current stream of `device`."""
    if stream is not None:
        return int(stream)
    import torch
    return torch.cuda.current_stream(device).cuda_stream


def device_index(device, driver):
    """The ordinal of `device`: a torch.device, "cuda:N" or an int; None or
    a device without an index: `driver`'s current device."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str):
        index = int(device.split(":", 1)[1]) if ":" in device else None
    else:
        index = getattr(device, "index", None)
    return driver.current_device() if index is None else index


def _cuda_device(args):
    """The device of the first CUDA tensor in `args` (None without one)."""
    return next((a.device for a in args if getattr(a, "is_cuda", False)),
                None)


def _cache_key(args, patched=()):
    """What a launch's packed parameters depend on: each tensor's address,
    dtype, device, shape and strides (and a multi-device view's addresses
    and rank), each scalar's type, and the value of each scalar not in
    `patched` (the argument indices whose values a call writes itself)."""
    return tuple((a.data_ptr(), a.dtype, a.device, tuple(a.shape),
                  a.stride(), getattr(a, "addresses", None),
                  getattr(a, "rank", None)) if hasattr(a, "data_ptr")
                 else (type(a).__name__,) if i in patched
                 else (type(a).__name__, a) for i, a in enumerate(args))
