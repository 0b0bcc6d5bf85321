"""CPU tests of the runtime: manifests, argument checks, grid sizing, TMA
geometry and parameter packing. No GPU, no CUDA driver, no torch."""

import ctypes
import json
import os
import struct
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tk_mlir import (ArgumentError, KernelSpec, ManifestError,  # noqa: E402
                     TileTable, check_arguments, grid_size, load_manifest,
                     pack_parameters, tensor_map_geometry)
from tk_mlir import runtime  # noqa: E402
from tk_mlir.runtime import _cache_key, fragment_order_axes, jit_warning  # noqa: E402,E501


class FakeTensor:
    """Just enough of a torch tensor for the runtime's checks."""

    def __init__(self, shape, dtype="bfloat16", cuda=True, ptr=0x10000,
                 stride=None, device=None):
        self.shape = tuple(shape)
        self.dtype = f"torch.{dtype}"
        self.is_cuda = cuda
        self.device = device or ("cuda:0" if cuda else "cpu")
        self._ptr = ptr
        if stride is None:
            stride, running = [], 1
            for extent in reversed(shape):
                stride.insert(0, running)
                running *= extent
        self._stride = tuple(stride)

    def stride(self):
        return self._stride

    def data_ptr(self):
        return self._ptr


def gemm_entry():
    """The manifest entry tk-opt writes for kernels/gemm/gemm.mlir."""
    view = {"kind": "view", "dtype": "bf16", "shape": [-1, -1]}
    abi = []
    for p in range(3):
        abi.append({"kind": "view_ptr", "param": p})
        abi += [{"kind": "view_dim", "param": p, "axis": a} for a in (0, 1)]
    abi += [
        {"kind": "tensor_map", "param": 0, "box": [128, 64], "swizzle": 128,
         "dtype": "bf16"},
        {"kind": "tensor_map", "param": 1, "box": [64, 64], "swizzle": 128,
         "dtype": "bf16"},
        {"kind": "tensor_map", "param": 2, "box": [64, 64], "swizzle": 128,
         "dtype": "bf16"},
    ]
    return {
        "target": "sm_90a", "threads": 384, "shared_memory_bytes": 214064,
        "grid_policy": "persistent", "cluster": [1, 1, 1],
        "tiles": [{"param": 0, "axis": 0, "divisor": 128},
                  {"param": 1, "axis": 1, "divisor": 256}],
        "params": [view, view, view], "abi": abi,
    }


@pytest.fixture
def gemm():
    return KernelSpec("gemm", gemm_entry())


def gemm_args(m=4000, n=3000, k=1000):
    return (FakeTensor((m, k), ptr=0x100000), FakeTensor((k, n), ptr=0x200000),
            FakeTensor((m, n), ptr=0x300000))


# ---------------------------------------------------------------- manifests

def write(tmp_path, data):
    path = tmp_path / "k.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def test_manifest_round_trip(tmp_path):
    path = write(tmp_path, {"format": "tk-mlir-manifest-1", "ptx": "k.ptx",
                            "kernels": {"gemm": gemm_entry()}})
    folder, specs, binaries = load_manifest(path)
    assert folder == str(tmp_path)
    assert specs["gemm"].threads == 384
    assert binaries == {"ptx": "k.ptx"}


@pytest.mark.parametrize("data, message", [
    ("not json", "is not JSON"),
    ({"format": "other"}, "is not a tk-mlir-manifest-1 manifest"),
    ({"format": "tk-mlir-manifest-1", "kernels": {}}, "lists no kernels"),
    ({"format": "tk-mlir-manifest-1", "kernels": {"k": {"threads": 1}}},
     "kernel 'k': bad or missing field"),
    ({"format": "tk-mlir-manifest-1", "cubin": None,
      "kernels": {"gemm": gemm_entry()}}, "cubin must name a file, got None"),
])
def test_bad_manifests(tmp_path, data, message):
    with pytest.raises(ManifestError, match=message):
        load_manifest(write(tmp_path, data))


def test_missing_manifest(tmp_path):
    with pytest.raises(ManifestError, match="cannot read manifest"):
        load_manifest(str(tmp_path / "absent.json"))


def test_unknown_grid_policy():
    entry = gemm_entry()
    entry["grid_policy"] = "dynamic"
    with pytest.raises(ManifestError, match="unknown grid policy 'dynamic'"):
        KernelSpec("gemm", entry)


def _set(entry, path, value):
    """`entry` with the field at `path` (keys and indices) set to `value`."""
    *parents, last = path
    for key in parents:
        entry = entry[key]
    entry[last] = value


@pytest.mark.parametrize("path, value, message", [
    (["threads"], -1, r"threads must be an integer in \[1, 1024\], got -1"),
    (["threads"], 0, r"threads must be an integer in \[1, 1024\], got 0"),
    (["threads"], 1025, r"threads must be an integer in \[1, 1024\]"),
    (["threads"], 384.5, r"threads must be an integer .* got 384.5"),
    (["threads"], "384", r"threads must be an integer .* got '384'"),
    (["shared_memory_bytes"], -1,
     r"shared_memory_bytes must be an integer in \[0, 4294967295\], got -1"),
    (["target"], 90, "target must be a non-empty string, got 90"),
    (["tiles"], "abc", "tiles must be a list of objects, got 'abc'"),
    (["tiles"], [1], r"tiles must be a list of objects, got \[1\]"),
    (["params"], {"kind": "view"}, "params must be a list of objects"),
    (["abi"], None, "abi must be a list of objects, got None"),
    (["cluster"], [0, 1, 1], r"cluster\[0\] must be an integer in \[1, 16\]"),
    (["cluster"], [1, 1, 1, 1], "cluster must list at most 3 dimensions"),
    (["tiles", 0, "param"], 3, r"tiles\[0\].param must be an integer in "
                               r"\[0, 2\], got 3"),
    (["tiles", 1, "divisor"], 0, r"tiles\[1\].divisor must be an integer "
                                 r"in \[1, "),
    (["tiles", 1, "axis"], 2, r"tiles\[1\].axis must be an integer in "
                              r"\[0, 1\], got 2"),
    (["abi", 4, "param"], -1, r"abi\[4\].param must be an integer in "
                              r"\[0, 2\], got -1"),
    (["params", 2], {"kind": "scalar", "dtype": "i8"},
     r"params\[2\].dtype: unsupported scalar type 'i8'"),
    (["params", 2], {"kind": "tensor"},
     r"params\[2\].kind must be 'view' or 'scalar', got 'tensor'"),
])
def test_bad_manifest_fields_are_named(path, value, message):
    entry = gemm_entry()
    _set(entry, path, value)
    with pytest.raises(ManifestError, match="kernel 'gemm': " + message):
        KernelSpec("gemm", entry)


def test_tile_bounds_of_every_form_are_accepted():
    entry = gemm_entry()
    entry["params"].append({"kind": "scalar", "dtype": "index"})
    entry["tiles"] = [{"const": 3}, {"param": 3},
                      {"param": 0, "axis": 1, "divisor": 64}]
    assert len(KernelSpec("gemm", entry).tiles) == 3


# ---------------------------------------------------------------- arguments

def test_good_arguments(gemm):
    check_arguments(gemm, gemm_args(), ["A", "B", "C"])


def test_wrong_count(gemm):
    with pytest.raises(ArgumentError, match="takes 3 arguments, got 2"):
        check_arguments(gemm, gemm_args()[:2])


@pytest.mark.parametrize("index, tensor, message", [
    (0, FakeTensor((64, 64), dtype="float16"),
     "argument 'A' \\(#0\\): expected dtype bfloat16, got float16"),
    (1, FakeTensor((64, 64), cuda=False),
     "argument 'B' \\(#1\\): expected a CUDA tensor"),
    (2, FakeTensor((64,)),
     "argument 'C' \\(#2\\): expected 2 dimensions, got 1"),
    (0, FakeTensor((64, 64), stride=(1, 64)),
     "argument 'A' \\(#0\\): must be contiguous"),
    (1, FakeTensor((64, 64), ptr=0x1008),
     "argument 'B' \\(#1\\): data must be 16-byte aligned"),
    (2, FakeTensor((64, 1001)),
     "argument 'C' \\(#2\\): async copies \\(TMA\\) need rows that are a "
     "multiple of 16 bytes"),
    (0, FakeTensor((0, 64)), "argument 'A' \\(#0\\): dimension 0 is empty"),
    (1, [[1.0]], "argument 'B' \\(#1\\): expected a tensor, got list"),
])
def test_bad_arguments_name_the_argument(gemm, index, tensor, message):
    args = list(gemm_args())
    args[index] = tensor
    with pytest.raises(ArgumentError, match=message):
        check_arguments(gemm, args, ["A", "B", "C"])


def test_static_dimensions_are_checked():
    entry = gemm_entry()
    entry["params"][1] = {"kind": "view", "dtype": "bf16",
                          "shape": [-1, 256]}
    spec = KernelSpec("gemm", entry)
    with pytest.raises(ArgumentError, match="dimension 1 must be 256, got 3000"):
        check_arguments(spec, gemm_args())


def stream_k_spec():
    """kernels/alternatives/gemm_streamk.mlir's parameters: gemm's plus an f32 workspace
    and i32 counters (plain views, no tensor maps)."""
    entry = gemm_entry()
    entry["params"].append({"kind": "view", "dtype": "f32", "shape": [-1, -1]})
    entry["params"].append({"kind": "view", "dtype": "i32", "shape": [-1]})
    for p in (3, 4):
        entry["abi"].append({"kind": "view_ptr", "param": p})
    return KernelSpec("gemm_streamk", entry)


def test_stream_k_workspace_and_counters():
    spec = stream_k_spec()
    work = FakeTensor((256 * 132, 256), dtype="float32", ptr=0x400000)
    counters = FakeTensor((264,), dtype="int32", ptr=0x500000)
    names = ["A", "B", "C", "W", "F"]
    check_arguments(spec, (*gemm_args(), work, counters), names)
    with pytest.raises(ArgumentError,
                       match="argument 'F' \\(#4\\): expected dtype int32, "
                             "got float32"):
        check_arguments(spec, (*gemm_args(), work,
                               FakeTensor((264,), dtype="float32")), names)
    with pytest.raises(ArgumentError,
                       match="argument 'W' \\(#3\\): expected dtype float32"):
        check_arguments(spec, (*gemm_args(), counters, counters), names)


def test_scalar_arguments():
    entry = gemm_entry()
    entry["params"].append({"kind": "scalar", "dtype": "f32"})
    entry["params"].append({"kind": "scalar", "dtype": "i1"})
    spec = KernelSpec("k", entry)
    check_arguments(spec, (*gemm_args(), 0.5, True))
    with pytest.raises(ArgumentError, match="argument #3: expected a number"):
        check_arguments(spec, (*gemm_args(), "x", True))
    with pytest.raises(ArgumentError, match="argument #4: expected a bool"):
        check_arguments(spec, (*gemm_args(), 0.5, 1))


def test_bound_scalar_arguments():
    """A parameter compiled for one value (tile-bind; "value" in the
    manifest) accepts that value only, naming the argument otherwise."""
    entry = gemm_entry()
    entry["params"].append({"kind": "scalar", "dtype": "f32", "value": 0.1})
    entry["params"].append({"kind": "scalar", "dtype": "i1", "value": False})
    entry["params"].append({"kind": "scalar", "dtype": "i32", "value": 7})
    spec = KernelSpec("k", entry)
    # 0.1 is compared as the f32 the kernel was compiled for.
    check_arguments(spec, (*gemm_args(), struct.unpack("f", struct.pack(
        "f", 0.1))[0], False, 7))
    check_arguments(spec, (*gemm_args(), 0.1, False, 7))
    names = ["a", "b", "c", "scale", "causal", "n"]
    for args, name in [((0.2, False, 7), "scale"), ((0.1, True, 7), "causal"),
                       ((0.1, False, 8), "n")]:
        with pytest.raises(ArgumentError, match=f"'{name}' .*: the kernel was "
                           "compiled for the value .* got"):
            check_arguments(spec, (*gemm_args(), *args), names)


def scalar_spec(dtype):
    """GEMM with one more parameter, a scalar of `dtype` (#3), packed as
    tk-opt does: i1 as i32, index as i64."""
    entry = gemm_entry()
    entry["params"].append({"kind": "scalar", "dtype": dtype})
    passed = {"i1": "i32", "index": "i64"}.get(dtype, dtype)
    entry["abi"].insert(9, {"kind": "scalar", "param": 3, "type": passed})
    return KernelSpec("k", entry)


@pytest.mark.parametrize("dtype, value, message", [
    ("i32", 2**40 + 5, "1099511627781 is out of range for i32"),
    ("i32", -2**31 - 1, "-2147483649 is out of range for i32"),
    ("i64", 2**63, "9223372036854775808 is out of range for i64"),
    ("index", -2**63 - 1, "-9223372036854775809 is out of range for index"),
    ("f32", float("nan"), "expected a finite f32 value, got nan"),
    ("f32", float("inf"), "expected a finite f32 value, got inf"),
    ("f32", 1e39, "expected a finite f32 value, got 1e\\+39"),
    ("f64", -float("inf"), "expected a finite f64 value, got -inf"),
    pytest.param("f64", 10**400, "expected a finite f64 value",
                 id="f64-10**400"),
])
def test_scalars_that_would_change_are_refused(dtype, value, message):
    names = ["A", "B", "C", "heads"]
    with pytest.raises(ArgumentError, match=r"argument 'heads' \(#3\): " +
                       message):
        check_arguments(scalar_spec(dtype), (*gemm_args(), value), names)
    with pytest.raises(ArgumentError, match=r"argument 'heads' \(#3\): " +
                       message):
        pack_parameters(scalar_spec(dtype), (*gemm_args(), value),
                        lambda g: b"\0" * 128, names=names)


@pytest.mark.parametrize("dtype, value", [
    ("i32", 2**31 - 1), ("i32", -2**31), ("i64", 2**63 - 1),
    ("index", 2**63 - 1), ("f32", 3.4028234663852886e38), ("f64", 1e300),
    ("i1", True)])
def test_scalars_at_the_ends_of_their_range_are_packed(dtype, value):
    spec = scalar_spec(dtype)
    check_arguments(spec, (*gemm_args(), value))
    _, pointers = pack_parameters(spec, (*gemm_args(), value),
                                  lambda g: b"\0" * 128)
    ctype = runtime.SCALAR_CTYPES[spec.abi[9]["type"]]
    assert ctype.from_address(pointers[9]).value == value


def test_attention_scale_must_be_finite():
    names = ["q", "k", "v", "o", "lse", "scale", "causal"]
    view4 = {"kind": "view", "dtype": "bf16", "shape": [-1, -1, -1, 128]}
    entry = {"target": "sm_90a", "threads": 384, "shared_memory_bytes": 0,
             "grid_policy": "tiles", "cluster": [1, 1, 1], "tiles": [],
             "params": [view4] * 4 + [
                 {"kind": "view", "dtype": "f32", "shape": [-1, -1, -1]},
                 {"kind": "scalar", "dtype": "f32"},
                 {"kind": "scalar", "dtype": "i1"}], "abi": []}
    q = FakeTensor((1, 2, 64, 128))
    args = [q, q, q, q, FakeTensor((1, 2, 64), "float32"), float("nan"),
            False]
    with pytest.raises(ArgumentError, match=r"argument 'scale' \(#5\): "
                       r"expected a finite f32 value, got nan"):
        check_arguments(KernelSpec("attention", entry), args, names)


def test_tensors_of_one_launch_share_a_device(gemm):
    a, b, c = gemm_args()
    on_1 = FakeTensor(b.shape, ptr=0x200000, device="cuda:1")
    with pytest.raises(ArgumentError, match=r"argument 'B' \(#1\): on "
                       r"cuda:1, but argument 'A' \(#0\) is on cuda:0"):
        check_arguments(gemm, (a, on_1, c), ["A", "B", "C"])
    with pytest.raises(ArgumentError, match=r"argument #2: on cuda:1, but "
                       r"argument #0 is on cuda:0"):
        check_arguments(gemm, (a, b, FakeTensor(c.shape, device="cuda:1")))


# --------------------------------------------------------------- launching

def test_grid_sizes(gemm):
    # 4000 x 3000 output in 128 x 256 tiles: 32 x 12 = 384 tiles, 3 rounds
    # on 132 multiprocessors: 128 workers of 3 tiles each (balanced), or
    # all 132 (120 of them with 3 tiles, 12 with 2).
    assert grid_size(gemm, gemm_args(), multiprocessors=132) == 128
    assert grid_size(gemm, gemm_args(), 132, balanced=False) == 132
    # 512 tiles (4096 x 4096): 4 rounds, 128 workers; 528 tiles: 132.
    assert grid_size(gemm, gemm_args(m=4096, n=4096), 132) == 128
    assert grid_size(gemm, gemm_args(m=4224, n=4096), 132) == 132
    # 2048 tiles: 16 rounds, 128 workers; 7168 tiles: 55 rounds, 131.
    assert grid_size(gemm, gemm_args(m=8192, n=8192), 132) == 128
    assert grid_size(gemm, gemm_args(m=8192, n=28672), 132) == 131
    assert grid_size(gemm, gemm_args(m=128, n=256), 132) == 1
    # A persistent kernel may still be launched with one tile per block.
    assert grid_size(gemm, gemm_args(), 132, one_tile_per_block=True) == 384
    entry = gemm_entry()
    entry["grid_policy"] = "tiles"
    assert grid_size(KernelSpec("k", entry), gemm_args(), 132) == 384


def test_grid_hands_tiles_to_whole_clusters():
    entry = gemm_entry()
    entry["cluster"] = [2, 1, 1]
    # Persistent: at most as many 2-block clusters as fit on 131 SMs (65),
    # each a worker over the 384 tiles: 6 rounds, balanced over 64 workers.
    assert grid_size(KernelSpec("k", entry), gemm_args(), 131) == 128
    assert grid_size(KernelSpec("k", entry), gemm_args(), 131,
                     balanced=False) == 130
    # Fewer tiles than clusters that fit: one cluster per tile.
    assert grid_size(KernelSpec("k", entry), gemm_args(m=129, n=264), 132) == 8
    entry["grid_policy"] = "tiles"
    # 129 x 264 in 128 x 256 tiles: 2 x 2 = 4 tiles, two blocks each.
    assert grid_size(KernelSpec("k", entry), gemm_args(m=129, n=264), 132) == 8
    assert grid_size(KernelSpec("k", entry), gemm_args(m=64, n=64), 132) == 2


def test_grid_from_constants_and_index_params():
    entry = gemm_entry()
    entry["grid_policy"] = "tiles"
    entry["tiles"] = [{"const": 3}, {"param": 3}]
    entry["params"].append({"kind": "scalar", "dtype": "index"})
    assert grid_size(KernelSpec("k", entry), (*gemm_args(), 5), 132) == 15


def test_grids_beyond_the_hardware_limit_are_refused(gemm):
    runtime.check_grid(gemm, 2**31 - 1)
    with pytest.raises(ArgumentError, match="kernel 'gemm': the launch needs "
                       "2147483648 blocks; a grid of 384-thread blocks on "
                       "sm_90a holds at most 2147483647"):
        runtime.check_grid(gemm, 2**31)
    # HIP counts work items (blocks x threads) in 32 bits.
    entry = gemm_entry()
    entry.update(target="gfx950", threads=512)
    amd = KernelSpec("k", entry)
    runtime.check_grid(amd, (2**32 - 1) // 512)
    for blocks in ((2**32 - 1) // 512 + 1, 2**32 + 5):
        with pytest.raises(ArgumentError, match=f"needs {blocks} blocks; a "
                           f"grid of 512-thread blocks on gfx950 holds at "
                           f"most 8388607"):
            runtime.check_grid(amd, blocks)


def test_tensor_map_geometry_is_innermost_first():
    a = FakeTensor((4000, 1000), ptr=0x100000)
    g = tensor_map_geometry({"box": [128, 64], "swizzle": 128}, a, "bf16")
    assert g.dims == [1000, 4000]
    assert g.strides == [2000]          # bytes between rows
    assert g.box == [64, 128]
    assert g.swizzle == 128
    assert g.address == 0x100000


def test_tensor_map_geometry_rank4():
    q = FakeTensor((2, 16, 1024, 128))
    g = tensor_map_geometry({"box": [1, 1, 128, 64], "swizzle": 128}, q,
                            "bf16")
    assert g.dims == [128, 1024, 16, 2]
    assert g.strides == [256, 256 * 1024, 256 * 1024 * 16]
    assert g.box == [64, 128, 1, 1]


def test_tensor_map_limits_name_the_argument():
    entry = {"box": [64], "swizzle": 0}
    tensor_map_geometry(entry, FakeTensor((2**31 - 1,)), "bf16")
    # (cuTensorMapEncodeTiled takes 2**32, but the kernels' coordinates are
    # signed 32-bit.)
    with pytest.raises(ArgumentError, match=r"argument 'x' \(#0\): the "
                       r"kernels' TMA copies address at most 2\*\*31 - 1 "
                       r"elements per dimension \(32-bit signed "
                       r"coordinates\); dimension 0 has 2147483648"):
        tensor_map_geometry(entry, FakeTensor((2**31,)), "bf16",
                            where="argument 'x' (#0)")
    entry = {"box": [1, 1, 64], "swizzle": 0}
    tensor_map_geometry(entry, FakeTensor((2, 2**20, 2**19 - 8)), "bf16")
    with pytest.raises(ArgumentError, match=r"argument #1: a TMA descriptor "
                       r"takes strides that are multiples of 16 bytes below "
                       r"2\*\*40; dimension 0's is 1099511627776 bytes"):
        tensor_map_geometry(entry, FakeTensor((2, 2**20, 2**19)), "bf16",
                            where="argument #1")
    with pytest.raises(ArgumentError, match="dimension 1's is 14 bytes"):
        tensor_map_geometry({"box": [1, 1, 8], "swizzle": 0},
                            FakeTensor((3, 4, 7)), "bf16")


def test_packed_tensor_maps_name_the_argument(gemm):
    a, b, c = gemm_args()
    wide = FakeTensor((2**32 + 64, 64), ptr=0x100000)
    with pytest.raises(ArgumentError, match=r"argument 'A' \(#0\): the "
                       r"kernels' TMA copies address at most"):
        pack_parameters(gemm, (wide, b, c), lambda g: b"\0" * 128,
                        names=["A", "B", "C"])


def test_parameters_are_packed_in_abi_order(gemm):
    seen = []

    def encode(geometry):
        seen.append(geometry)
        return bytes([len(seen)]) * 128

    args = gemm_args()
    keep, pointers = pack_parameters(gemm, args, encode)
    assert len(pointers) == 12
    # A's pointer, then its dims, then B's.
    assert ctypes.c_void_p.from_address(pointers[0]).value == 0x100000
    assert ctypes.c_int64.from_address(pointers[1]).value == 4000
    assert ctypes.c_int64.from_address(pointers[2]).value == 1000
    assert ctypes.c_void_p.from_address(pointers[3]).value == 0x200000
    assert ctypes.c_int64.from_address(pointers[8]).value == 3000
    # Three 128-byte descriptors, in order, A's with a 64 x 128 box.
    for i in range(3):
        raw = ctypes.string_at(pointers[9 + i], 128)
        assert raw == bytes([i + 1]) * 128
    assert seen[0].box == [64, 128] and seen[1].box == [64, 64]


def test_scalars_are_packed_by_type():
    entry = gemm_entry()
    entry["params"].append({"kind": "scalar", "dtype": "f32"})
    entry["abi"].insert(9, {"kind": "scalar", "param": 3, "type": "f32"})
    spec = KernelSpec("k", entry)
    _, pointers = pack_parameters(spec, (*gemm_args(), 0.25),
                                  lambda g: b"\0" * 128)
    raw = ctypes.string_at(pointers[9], 4)
    assert struct.unpack("<f", raw)[0] == 0.25


def dynamic_entry():
    """The GEMM entry as a `dynamic` tile loop lowers it: a hidden tile
    counter after the scalars, before the tensor maps."""
    entry = gemm_entry()
    entry["abi"].insert(9, {"kind": "tile_counter"})
    return entry


def test_dynamic_tile_loops_get_every_multiprocessor(gemm):
    spec = KernelSpec("k", dynamic_entry())
    assert spec.dynamic_tiles and not gemm.dynamic_tiles
    # 384 tiles: the balanced grid would take 128 workers; blocks that take
    # tiles as they go use all 132 (and never more than the tiles).
    assert grid_size(spec, gemm_args(), 132) == 132
    assert grid_size(spec, gemm_args(m=129, n=264), 132) == 4
    assert grid_size(spec, gemm_args(), 132, one_tile_per_block=True) == 384




def table_entry():
    """The GEMM entry as a `table` tile loop lowers it: a hidden tile-table
    pointer after the scalars, before the tensor maps."""
    entry = gemm_entry()
    entry["abi"].insert(9, {"kind": "tile_table"})
    return entry


def test_tile_table_words_and_checks():
    table = TileTable([[2, 0], [], (1,)])
    assert table.blocks == ((2, 0), (), (1,)) and table.tiles == 3
    # Offsets (blocks + 1), the ordinals, a padding word.
    assert table.words == [0, 2, 2, 3, 2, 0, 1, 0]
    table.check(3)
    with pytest.raises(ArgumentError, match="'tile_table': block 0 has tile "
                       "2, but the launch has 2 tiles"):
        table.check(2)
    with pytest.raises(ArgumentError, match="'tile_table': tile 1 appears "
                       "twice"):
        TileTable([[0, 1], [1]]).check(3)
    with pytest.raises(ArgumentError, match="'tile_table': 2 tiles listed, "
                       "the launch has 3"):
        TileTable([[0, 1]]).check(3)
    with pytest.raises(ValueError, match="at least one block"):
        TileTable([])
    with pytest.raises(ValueError, match="31 bits"):
        TileTable([[-1]])
    assert TileTable.strided(5, 2).blocks == ((0, 2, 4), (1, 3))
    assert TileTable.strided(1, 3).blocks == ((0,), (), ())


def test_table_tile_loops_are_marked(gemm):
    spec = KernelSpec("k", table_entry())
    assert spec.tile_table and not gemm.tile_table
    assert not spec.dynamic_tiles


@pytest.mark.parametrize("entry, hidden, what", [
    (dynamic_entry, "tile_counter", "tile counter"),
    (table_entry, "tile_table", "tile table")])
def test_hidden_pointers_are_packed_in_their_place(entry, hidden, what):
    spec = KernelSpec("k", entry())
    _, pointers = pack_parameters(spec, gemm_args(), lambda g: b"\0" * 128,
                                  **{hidden: 0x300000})
    assert len(pointers) == 13
    assert ctypes.c_void_p.from_address(pointers[9]).value == 0x300000
    with pytest.raises(ManifestError, match=f"takes a {what}"):
        pack_parameters(spec, gemm_args(), lambda g: b"\0" * 128)


def test_encoder_must_return_128_bytes(gemm):
    with pytest.raises(ManifestError, match="128 bytes"):
        pack_parameters(gemm, gemm_args(), lambda g: b"\0" * 64)


def test_cache_key_follows_tensors_and_scalars():
    a, b, c = gemm_args()
    assert _cache_key((a, b, c)) == _cache_key(gemm_args())
    assert _cache_key((a, b, c)) != _cache_key(gemm_args(m=3999))
    assert _cache_key((a, 1)) != _cache_key((a, 2))


def _fragment_offset(r, c, cols):
    """docs/dialect's fragment order, written out independently."""
    rr = r % 64
    return (r // 64 * 64 * cols + 512 * (c // 8)
            + 4 * (32 * (rr // 16) + 4 * (rr % 8) + c % 8 // 2)
            + 2 * (rr // 8 % 2) + c % 2)


def _permuted_source(shape, perm, out_index):
    """The flat source offset that element `out_index` (a flat index into
    the permuted, reshaped tensor) reads: what view(shape).permute(perm)
    does, without torch."""
    out_shape = [shape[p] for p in perm]
    digits = []
    for extent in reversed(out_shape):
        digits.insert(0, out_index % extent)
        out_index //= extent
    source = [0] * len(shape)
    for axis, digit in zip(perm, digits):
        source[axis] = digit
    flat = 0
    for extent, digit in zip(shape, source):
        flat = flat * extent + digit
    return flat


@pytest.mark.parametrize("lead,rows,cols", [([], 64, 64), ([], 128, 8),
                                            ([2, 3], 192, 128), ([1], 64, 32)])
def test_from_fragments_axes_invert_the_fragment_order(lead, rows, cols):
    shape, perm = fragment_order_axes(lead, rows, cols)
    matrices = 1
    for extent in lead:
        matrices *= extent
    for m in range(matrices):
        for r in range(rows):
            for c in range(cols):
                out = (m * rows + r) * cols + c
                want = m * rows * cols + _fragment_offset(r, c, cols)
                assert _permuted_source(shape, perm, out) == want


def test_fragment_order_needs_whole_slabs():
    with pytest.raises(ValueError, match="rows a multiple of 64 and columns "
                       "a multiple of 8, got 100 x 64"):
        fragment_order_axes([], 100, 64)


def test_fragment_views_need_64_row_slabs():
    frag = {"kind": "view", "dtype": "f32", "shape": [-1, -1, -1, 128],
            "layout": "fragments"}
    entry = {"target": "sm_90a", "threads": 384, "shared_memory_bytes": 0,
             "grid_policy": "tiles", "cluster": [1, 1, 1], "tiles": [],
             "params": [frag], "abi": [{"kind": "view_ptr", "param": 0}]}
    spec = KernelSpec("k", entry)
    check_arguments(spec, [FakeTensor([1, 2, 4160, 128], "float32")])
    with pytest.raises(ArgumentError, match=r"argument 'dq_accum' \(#0\): a "
                       r"view in fragment order holds rows in slabs of 64; "
                       r"dimension 2 is 4097, not a multiple of 64 \(pad "
                       r"it\)"):
        check_arguments(spec, [FakeTensor([1, 2, 4097, 128], "float32")],
                        names=["dq_accum"])


# What tk-opt writes for a wgmma with A from registers (attention's P V) and
# from shared memory (the GEMM), abridged to the operands.
REGISTER_A_PTX = (b"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                  b"{%r228, %r229}, {%r223, %r224, %r225, %r226}, %rd282, "
                  b"p, 1, 1, 1;")
SHARED_A_PTX = (b"wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                b"{%r1, %r2}, %rd10, %rd11, p, 1, 1, 0, 0;\n"
                b"wgmma.commit_group.sync.aligned;\n{ .reg .pred p; }")


def test_jit_warning_for_register_a_with_a_13_0_driver():
    message = jit_warning(REGISTER_A_PTX, 13000)
    assert "driver's CUDA 13.0 compiler" in message
    assert "ptxas 13.1 or newer" in message


@pytest.mark.parametrize("ptx, version", [
    (REGISTER_A_PTX, 13010),   # a 13.1 driver's compiler
    (REGISTER_A_PTX, 13050),
    (SHARED_A_PTX, 13000),     # no register A operand
])
def test_no_jit_warning(ptx, version):
    assert jit_warning(ptx, version) is None


# ------------------------------------------------------- wait time limits

def timed_entry():
    entry = gemm_entry()
    entry["wait_timeout"] = {
        "ms": 250, "records": 4, "report": "__tk_wait_report",
        "sites": [{"site": 0, "location": "k.mlir:10:3"},
                  {"site": 2, "location": "k.mlir:30:5"}]}
    return entry


def report_buffer(count, records):
    """A wait report buffer as the kernel writes it: the count, then
    (site, block, thread, parity, address, written) records from byte 32."""
    raw = bytearray(runtime.wait_report_bytes(KernelSpec("g", timed_entry())))
    struct.pack_into("<I", raw, 0, count)
    for i, record in enumerate(records):
        struct.pack_into("<6I", raw, 32 + 32 * i, *record)
    return bytes(raw)


def test_wait_timeout_entry_is_read():
    spec = KernelSpec("gemm", timed_entry())
    assert spec.wait_sites == {0: "k.mlir:10:3", 2: "k.mlir:30:5"}
    assert (spec.wait_limit_ms, spec.wait_records, spec.wait_report) == \
        (250, 4, "__tk_wait_report")
    assert KernelSpec("gemm", gemm_entry()).wait_timeout is None
    assert runtime.wait_report_bytes(spec) == 32 + 4 * 32


@pytest.mark.parametrize("field", ["ms", "records", "report", "sites"])
def test_bad_wait_timeout_entries(field):
    entry = timed_entry()
    del entry["wait_timeout"][field]
    with pytest.raises(ManifestError, match="kernel 'gemm': bad wait_timeout"):
        KernelSpec("gemm", entry)


def test_wait_timeout_needs_records():
    entry = timed_entry()
    entry["wait_timeout"]["records"] = 0
    with pytest.raises(ManifestError, match="bad wait_timeout entry"):
        KernelSpec("gemm", entry)


def test_wait_reports_name_block_thread_and_source_line():
    spec = KernelSpec("gemm", timed_entry())
    raw = report_buffer(2, [(2, 7, 96, 1, 0x2408, 1), (0, 3, 0, 0, 0x10, 1)])
    assert runtime.decode_wait_reports(spec, raw) == [
        "kernel gemm, block 7, thread 96: waited over 250 ms at k.mlir:30:5 "
        "for the phase of parity 1 of the semaphore at shared address 0x2408",
        "kernel gemm, block 3, thread 0: waited over 250 ms at k.mlir:10:3 "
        "for the phase of parity 0 of the semaphore at shared address 0x10"]


def test_counter_wait_reports_name_the_value_and_address():
    entry = timed_entry()
    entry["wait_timeout"]["sites"] = [
        {"site": 0, "location": "k.mlir:10:3", "kind": "semaphore"},
        {"site": 1, "location": "ag.mlir:52:5", "kind": "counter"}]
    spec = KernelSpec("gemm", entry)
    assert spec.wait_kinds == {0: "semaphore", 1: "counter"}
    raw = report_buffer(2, [(1, 9, 0, 7, 0xdeadbe00, 1),
                            (1, 2, 128, 2**32 - 3, 0x40, 1)])
    assert runtime.decode_wait_reports(spec, raw) == [
        "kernel gemm, block 9, thread 0: waited over 250 ms at ag.mlir:52:5 "
        "for a counter in global memory (address ending 0xdeadbe00) to "
        "reach 7",
        "kernel gemm, block 2, thread 128: waited over 250 ms at "
        "ag.mlir:52:5 for a counter in global memory (address ending "
        "0x00000040) to reach -3"]


def test_wait_reports_skip_unwritten_records_and_count_overflow():
    spec = KernelSpec("gemm", timed_entry())
    assert runtime.decode_wait_reports(spec, report_buffer(0, [])) == []
    # Claimed but not yet marked written (the trap came first): skipped.
    raw = report_buffer(1, [(0, 1, 32, 0, 0x10, 0)])
    assert runtime.decode_wait_reports(spec, raw) == []
    # More waits timed out than the buffer holds; an unknown site.
    raw = report_buffer(6, [(5, 1, 32, 0, 0x10, 1)] * 4)
    messages = runtime.decode_wait_reports(spec, raw)
    assert len(messages) == 5
    assert "at unknown site 5 for" in messages[0]
    assert messages[-1] == "(2 more timed-out waits not recorded)"


class FakeDriver:
    """Stands in for tk_mlir.cuda_driver: records what the Kernel loads,
    allocates, launches and releases, and on which device."""

    def __init__(self, fail_release=False, current=0):
        self.loaded, self.unloaded, self.freed, self.events = [], [], [], []
        self.fail_release = fail_release
        self.current = current
        self.maps, self.loaded_on = [], []

    def current_device(self):
        return self.current

    def driver_version(self):
        return 13000

    def multiprocessor_count(self, device=None):
        return 132

    def encode_tensor_map(self, device, geometry):
        self.maps.append(device)
        return b"\0" * 128

    def launch(self, device, function, grid, spec, pointers, stream):
        self.events.append(("launch", grid) if device == 0
                           else ("launch", grid, device, function))

    def load_function(self, device, image, name, shared_memory_bytes):
        module = f"module{len(self.loaded)}"
        self.loaded.append(module)
        self.loaded_on.append(device)
        return module, f"{module}.{name}"

    def attach_wait_report(self, device, module, symbol, size):
        return 0x1000 + len(self.loaded)

    def synchronize(self, device):
        self.events.append("synchronize" if device == 0
                           else ("synchronize", device))
        if self.fail_release:
            raise RuntimeError("cuCtxSynchronize failed: context lost")

    def unload_module(self, device, module):
        self.events.append("unload")
        if self.fail_release:
            raise RuntimeError("cuModuleUnload failed: context lost")
        self.unloaded.append(module)

    def free_host(self, device, host):
        self.events.append("free")
        if self.fail_release:
            raise RuntimeError("cuMemFreeHost failed: context lost")
        self.freed.append(host)


def _fake_cuda_kernel(tmp_path, monkeypatch, driver, wait_timeout,
                      table=False, **fields):
    import tk_mlir
    entry = {"target": "sm_90a", "threads": 128, "shared_memory_bytes": 0,
             "grid_policy": "persistent" if table else "tiles",
             "cluster": [1, 1, 1],
             "tiles": [{"param": 0, "axis": 0, "divisor": 64}],
             "params": [{"kind": "view", "dtype": "bf16", "shape": [-1, 64]}],
             "abi": [{"kind": "view_ptr", "param": 0}]}
    if table:
        entry["abi"].append({"kind": "tile_table"})
    entry.update(fields)
    if wait_timeout:
        entry["wait_timeout"] = {"ms": 100, "records": 4,
                                 "report": "__tk_wait_report",
                                 "sites": [{"site": 0, "location": "k.mlir:3"}]}
    # (A gfx target: an AMD kernel, `driver` standing in for hip_driver.)
    amd = entry["target"].startswith("gfx")
    binary, module = ("hsaco", "hip_driver") if amd else \
        ("cubin", "cuda_driver")
    manifest = {"format": "tk-mlir-manifest-1", binary: "k." + binary,
                "kernels": {"k": entry}}
    (tmp_path / "k.json").write_text(json.dumps(manifest))
    (tmp_path / ("k." + binary)).write_bytes(b"\x7fELF")
    monkeypatch.setitem(sys.modules, "tk_mlir." + module, driver)
    monkeypatch.setattr(tk_mlir, module, driver, raising=False)
    return runtime.Kernel(str(tmp_path / "k.json"))


@pytest.mark.parametrize("wait_timeout", [False, True])
def test_close_unloads_the_module_and_frees_the_wait_report(
        tmp_path, monkeypatch, wait_timeout):
    driver = FakeDriver()
    kernel = _fake_cuda_kernel(tmp_path, monkeypatch, driver, wait_timeout)
    assert not kernel.closed and driver.loaded == ["module0"]
    kernel.close()
    assert kernel.closed
    assert driver.unloaded == ["module0"]
    assert driver.freed == ([0x1001] if wait_timeout else [])
    # Queued launches finish before anything is released.
    assert driver.events == (["synchronize"] +
                             (["free"] if wait_timeout else []) + ["unload"])
    assert kernel.wait_timeouts() == []
    kernel.close()  # idempotent: nothing released twice
    assert driver.unloaded == ["module0"]
    with pytest.raises(RuntimeError, match="kernel 'k' is closed"):
        kernel(FakeTensor((64, 64), "bfloat16"))


def test_block_slots_count_blocks_per_multiprocessor(tmp_path, monkeypatch):
    kernel = _fake_cuda_kernel(tmp_path, monkeypatch, FakeDriver(), False)
    assert kernel.block_slots() == 132
    kernel.spec.blocks_per_sm = 2
    assert kernel.block_slots() == 264


def test_block_slots_ask_the_driver_once_per_device(tmp_path, monkeypatch):
    driver = FakeDriver()
    asked = []
    driver.multiprocessor_count = lambda device=None: asked.append(device) \
        or 132
    kernel = _fake_cuda_kernel(tmp_path, monkeypatch, driver, False)
    assert [kernel.block_slots(0), kernel.block_slots(0),
            kernel.block_slots(1)] == [132, 132, 132]
    assert asked == [0, 1]


def test_kernel_is_a_context_manager_and_closes_when_collected(
        tmp_path, monkeypatch):
    import gc
    driver = FakeDriver()
    with _fake_cuda_kernel(tmp_path, monkeypatch, driver, True) as kernel:
        assert not kernel.closed
    assert kernel.closed and driver.unloaded == ["module0"]
    _fake_cuda_kernel(tmp_path, monkeypatch, driver, True)
    gc.collect()
    assert driver.unloaded == ["module0", "module1"]
    assert driver.freed == [0x1001, 0x1002]


def test_close_after_the_context_is_lost_does_not_raise(tmp_path,
                                                        monkeypatch):
    driver = FakeDriver(fail_release=True)
    kernel = _fake_cuda_kernel(tmp_path, monkeypatch, driver, True)
    kernel.close()
    assert kernel.closed


def _scalar_kernel(tmp_path, monkeypatch, driver, names=None):
    """A kernel of a view, an f32 scalar and an index scalar a tile bound
    reads (it sets the grid)."""
    view = {"kind": "view", "dtype": "bf16", "shape": [-1, 64]}
    kernel = _fake_cuda_kernel(
        tmp_path, monkeypatch, driver, False, tiles=[{"param": 2}],
        params=[view, {"kind": "scalar", "dtype": "f32"},
                {"kind": "scalar", "dtype": "index"}],
        abi=[{"kind": "view_ptr", "param": 0},
             {"kind": "scalar", "param": 1, "type": "f32"},
             {"kind": "scalar", "param": 2, "type": "i64"}])
    kernel.names = names
    return kernel


class _Recording(FakeDriver):
    """Records each launch's grid, stream and scalar parameters."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def launch(self, device, function, grid, spec, pointers, stream):
        self.seen.append((grid, stream,
                          ctypes.c_float.from_address(pointers[1]).value,
                          ctypes.c_int64.from_address(pointers[2]).value))


def test_a_prepared_launch_repeats_with_only_its_scalars_changed(
        tmp_path, monkeypatch):
    driver = _Recording()
    kernel = _scalar_kernel(tmp_path, monkeypatch, driver,
                            names=["x", "scale", "tiles"])
    x = FakeTensor((64, 64))
    launch = kernel.prepare(x, 1.5, 3)
    assert isinstance(launch, runtime.PreparedLaunch) and launch.grid == 3
    assert driver.seen == []          # preparing launches nothing
    launch()
    launch({"scale": 2.5}, stream=7)
    launch({1: -1.0})                 # by index too
    # A Kernel call packs its own parameters: the prepared ones keep
    # their last scalar.
    kernel(x, 9.0, 3)
    launch()
    assert driver.seen == [(3, None, 1.5, 3), (3, 7, 2.5, 3),
                           (3, None, -1.0, 3), (3, None, 9.0, 3),
                           (3, None, -1.0, 3)]
    assert kernel._packed and len(kernel._packed) == 1


def test_a_prepared_launch_checks_what_it_is_given(tmp_path, monkeypatch):
    driver = _Recording()
    kernel = _scalar_kernel(tmp_path, monkeypatch, driver,
                            names=["x", "scale", "tiles"])
    x = FakeTensor((64, 64))
    with pytest.raises(ArgumentError, match="argument 'x' \\(#0\\): "
                       "expected dtype bfloat16, got float32"):
        kernel.prepare(FakeTensor((64, 64), "float32"), 1.5, 3)
    with pytest.raises(ArgumentError, match="argument 'tile_table': kernel "
                       "'k' does not walk a tile table"):
        kernel.prepare(x, 1.5, 3, tile_table=TileTable([[0]]))
    launch = kernel.prepare(x, 1.5, 3)
    # A call whose scalars do not all check writes none.
    with pytest.raises(ArgumentError, match="argument 'tiles'"):
        launch({"scale": 2.5, "tiles": 4})
    with pytest.raises(ArgumentError, match="argument 'scale' \\(#1\\): "
                       "given twice \\(by name and index\\)"):
        launch({"scale": 2.5, 1: 3.5})
    with pytest.raises(ArgumentError, match="argument True: kernel 'k' has "
                       "no scalar argument"):
        launch({True: 2.5})
    launch()
    assert driver.seen == [(3, None, 1.5, 3)]
    driver.seen.clear()
    with pytest.raises(ArgumentError, match="argument 'tiles': kernel 'k' "
                       "has no scalar argument of that name or index that "
                       "a prepared launch can change \\(one a tile bound "
                       "reads sets the grid: prepare again\\)"):
        launch({"tiles": 4})
    with pytest.raises(ArgumentError, match="argument 'bias': kernel 'k' "
                       "has no scalar argument"):
        launch({"bias": 1.0})
    with pytest.raises(ArgumentError, match="argument 'scale' \\(#1\\): "
                       "expected a number, got str"):
        launch({"scale": "2"})
    with pytest.raises(ArgumentError, match="argument 'scale' \\(#1\\): "
                       "expected a finite f32 value, got inf"):
        launch({"scale": float("inf")})
    assert driver.seen == []
    kernel.close()
    with pytest.raises(RuntimeError, match="kernel 'k' is closed"):
        launch()
    with pytest.raises(RuntimeError, match="kernel 'k' is closed"):
        kernel.prepare(x, 1.5, 3)


def test_a_prepared_launch_of_a_bound_scalar_checks_its_value(
        tmp_path, monkeypatch):
    driver = _Recording()
    kernel = _scalar_kernel(tmp_path, monkeypatch, driver)
    kernel.spec.params[1]["value"] = 0.5   # compiled for one value
    launch = kernel.prepare(FakeTensor((64, 64)), 0.5, 3)
    with pytest.raises(ArgumentError, match="argument #1: the kernel was "
                       "compiled for the value 0.5 \\(tile.bound\\), got "
                       "0.25"):
        launch({1: 0.25})
    # The type first: a string is named as such (and so by a Kernel call).
    with pytest.raises(ArgumentError, match="argument #1: expected a number, "
                       "got str"):
        launch({1: "0.5"})
    with pytest.raises(ArgumentError, match="argument #1: expected a number, "
                       "got str"):
        kernel(FakeTensor((64, 64)), "0.5", 3)
    launch({1: 0.5})
    assert driver.seen == [(3, None, 0.5, 3)]


def test_a_prepared_dynamic_tile_launch_stays_on_its_stream(tmp_path,
                                                            monkeypatch):
    """A kernel with a dynamic tile loop takes its tiles from a counter of
    the stream it was prepared for (the current one by default): another
    stream is refused, naming both."""
    import types
    current = {"stream": 0x50}

    class Counter:
        def data_ptr(self):
            return 0x7000
    cuda = types.SimpleNamespace(current_stream=lambda device=None:
                                 types.SimpleNamespace(
                                     cuda_stream=current["stream"]))
    fake_torch = types.SimpleNamespace(cuda=cuda, int32="int32",
                                       zeros=lambda *a, **k: Counter())
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    driver = _Recording()
    driver.launch = lambda device, function, grid, spec, pointers, stream: \
        driver.seen.append(stream)
    kernel = _fake_cuda_kernel(tmp_path, monkeypatch, driver, False)
    kernel.spec.abi.append({"kind": "tile_counter"})
    kernel.spec.dynamic_tiles = True
    launch = kernel.prepare(FakeTensor((64, 64)))
    launch()
    launch(stream=0x50)
    with pytest.raises(ArgumentError, match="argument 'stream': kernel 'k' "
                       "takes its tiles from a counter of the stream it was "
                       "prepared for \\(0x50\\), not 0x60: prepare a "
                       "launch for that stream"):
        launch(stream=0x60)
    current["stream"] = 0x60
    with pytest.raises(ArgumentError, match="not 0x60"):
        launch()
    assert kernel.prepare(FakeTensor((64, 64)), stream=0x60)._stream == 0x60
    assert driver.seen == [None, 0x50]


def test_a_prepared_amd_launch_repeats_its_packed_arguments(tmp_path,
                                                            monkeypatch):
    """An AMD kernel's arguments are packed once with its scalars: a
    prepared launch repeats them and refuses scalars, saying why."""
    seen = []
    driver = FakeDriver()
    driver.launch = lambda device, function, grid, spec, kernargs, stream: \
        seen.append((grid, bytes(kernargs)))
    kernel = _fake_cuda_kernel(
        tmp_path, monkeypatch, driver, False, target="gfx942", threads=256,
        params=[{"kind": "view", "dtype": "bf16", "shape": [-1, 64]},
                {"kind": "scalar", "dtype": "f32"}],
        abi=[{"kind": "view_ptr", "param": 0},
             {"kind": "scalar", "param": 1, "type": "f32"}])
    kernel.names = ["x", "scale"]
    launch = kernel.prepare(FakeTensor((128, 64), ptr=0x10000), 0.5)
    launch()
    with pytest.raises(ArgumentError, match="argument 'scale': kernel 'k' "
                       "has no scalar argument of that name or index that a "
                       "prepared launch can change \\(an AMD kernel's launch "
                       "is packed once, its scalars with it\\)"):
        launch({"scale": 0.25})
    assert len(seen) == 1 and seen[0][0] == 2
    assert seen[0][1][:8] == (0x10000).to_bytes(8, "little")
    assert struct.unpack("<f", seen[0][1][8:12])[0] == 0.5


def test_tile_table_arguments_are_checked_before_launch(tmp_path,
                                                         monkeypatch):
    x = FakeTensor((64, 64), "bfloat16")
    plain = _fake_cuda_kernel(tmp_path, monkeypatch, FakeDriver(), False)
    with pytest.raises(ArgumentError, match="argument 'tile_table': kernel "
                       "'k' does not walk a tile table"):
        plain(x, tile_table=TileTable([[0]]))
    table = _fake_cuda_kernel(tmp_path, monkeypatch, FakeDriver(), False,
                              table=True)
    assert table.spec.tile_table
    with pytest.raises(ArgumentError, match="argument 'tile_table': expected "
                       "a TileTable, got list"):
        table(x, tile_table=[[0]])
    with pytest.raises(ArgumentError, match="argument 'tile_table': cannot "
                       "be given with one_tile_per_block"):
        table(x, tile_table=TileTable([[0]]), one_tile_per_block=True)


def test_missing_binary_is_named(tmp_path, monkeypatch):
    _fake_cuda_kernel(tmp_path, monkeypatch, FakeDriver(), False)
    (tmp_path / "k.cubin").unlink()
    with pytest.raises(ManifestError, match="names cubin 'k.cubin', which "
                       "cannot be read"):
        runtime.Kernel(str(tmp_path / "k.json"))


def test_launches_beyond_the_grid_limit_are_refused(tmp_path, monkeypatch):
    """One block per tile, the tiles counted by an index parameter."""
    driver = FakeDriver()
    view = {"kind": "view", "dtype": "bf16", "shape": [-1, 64]}
    kernel = _fake_cuda_kernel(
        tmp_path, monkeypatch, driver, False, tiles=[{"param": 1}],
        params=[view, {"kind": "scalar", "dtype": "index"}],
        abi=[{"kind": "view_ptr", "param": 0},
             {"kind": "scalar", "param": 1, "type": "i64"}])
    x = FakeTensor((64, 64))
    kernel(x, 2**31 - 1)
    assert driver.events == [("launch", 2**31 - 1)]
    with pytest.raises(ArgumentError, match="the launch needs 2147483648 "
                       "blocks"):
        kernel(x, 2**31)
    assert driver.events == [("launch", 2**31 - 1)]


def test_blocks_per_sm_multiplies_persistent_workers():
    entry = gemm_entry()
    entry["blocks_per_sm"] = 2
    spec = KernelSpec("gemm", entry)
    assert spec.blocks_per_sm == 2
    # 32 x 12 = 384 tiles over 2 x 132 slots: 2 rounds of 192 workers.
    assert grid_size(spec, gemm_args(m=4096, n=3072), 132) == 192
    assert grid_size(spec, gemm_args(m=4096, n=3072), 132,
                     balanced=False) == 264
    assert KernelSpec("gemm", gemm_entry()).blocks_per_sm == 1


def test_communication_blocks_come_before_the_tile_grid():
    entry = gemm_entry()
    entry["communication_blocks"] = 8
    spec = KernelSpec("gemm", entry)
    assert spec.communication_blocks == 8
    # 32 x 12 = 384 tiles over the 124 multiprocessors left: 4 rounds of
    # 96 workers, after the 8 communicating blocks.
    assert grid_size(spec, gemm_args(m=4096, n=3072), 132) == 8 + 96
    assert grid_size(spec, gemm_args(m=4096, n=3072), 132,
                     balanced=False) == 8 + 124
    # Fewer tiles than multiprocessors: one worker per tile.
    assert grid_size(spec, gemm_args(m=256, n=512), 132) == 8 + 4
    assert KernelSpec("gemm", gemm_entry()).communication_blocks == 0


def test_communication_blocks_must_leave_computing_blocks():
    entry = gemm_entry()
    entry["communication_blocks"] = 132
    spec = KernelSpec("gemm", entry)
    with pytest.raises(ArgumentError, match="its 132 communicating blocks "
                       "leave none of the 132 blocks"):
        grid_size(spec, gemm_args(), 132)


@pytest.mark.parametrize("value", [-1, 1025, "8", True])
def test_bad_communication_blocks(value):
    entry = gemm_entry()
    entry["communication_blocks"] = value
    with pytest.raises(ManifestError,
                       match="communication_blocks must be an integer"):
        KernelSpec("gemm", entry)


@pytest.mark.parametrize("value", [0, 33, "2", True, 1.5])
def test_bad_blocks_per_sm(value):
    entry = gemm_entry()
    entry["blocks_per_sm"] = value
    with pytest.raises(ManifestError, match="blocks_per_sm must be an integer"):
        KernelSpec("gemm", entry)


def test_device_index_reads_torch_devices_strings_and_ordinals():
    driver = FakeDriver(current=3)

    class Device:
        def __init__(self, index):
            self.index = index
    assert runtime.device_index(Device(1), driver) == 1
    assert runtime.device_index(Device(None), driver) == 3
    assert runtime.device_index("cuda:2", driver) == 2
    assert runtime.device_index("cuda", driver) == 3
    assert runtime.device_index(0, driver) == 0
    assert runtime.device_index(None, driver) == 3


def test_a_kernel_loads_and_launches_on_each_device_it_is_called_on(
        tmp_path, monkeypatch):
    """The module is loaded on the current device when the Kernel is made,
    then once more on each other device a launch's tensors are on; each
    launch uses that device's function, stream and tensor maps."""
    driver = FakeDriver()
    kernel = _fake_cuda_kernel(tmp_path, monkeypatch, driver, False,
                               **gemm_entry())
    assert driver.loaded_on == [0]

    def operands(device, ptr):
        return (FakeTensor((256, 128), ptr=ptr, device=device),
                FakeTensor((128, 256), ptr=ptr + 0x100000, device=device),
                FakeTensor((256, 256), ptr=ptr + 0x200000, device=device))
    kernel(*operands("cuda:0", 0x10000))
    assert driver.loaded_on == [0] and driver.maps == [0, 0, 0]
    kernel(*operands("cuda:1", 0x7000000))
    kernel(*operands("cuda:1", 0x7000000))  # packed once, loaded once
    assert driver.loaded_on == [0, 1]
    assert driver.maps == [0, 0, 0, 1, 1, 1]
    launches = [e for e in driver.events if e[0] == "launch"]
    assert [e[2:] for e in launches] == [(), (1, "module1.k"),
                                         (1, "module1.k")]
    with pytest.raises(ArgumentError, match="argument #1: on cuda:1, but "
                       "argument #0 is on cuda:0"):
        kernel(FakeTensor((256, 128), device="cuda:0"),
               *operands("cuda:1", 0x9000000)[1:])
    driver.events.clear()
    kernel.close()
    assert driver.events == ["synchronize", "unload", ("synchronize", 1),
                             "unload"]
    assert driver.unloaded == ["module0", "module1"]


def test_a_kernel_made_on_another_device_loads_there(tmp_path, monkeypatch):
    driver = FakeDriver(current=2)
    _fake_cuda_kernel(tmp_path, monkeypatch, driver, False)
    assert driver.loaded_on == [2]


def test_wait_timeouts_name_the_device_when_several_ran(tmp_path,
                                                        monkeypatch):
    buffers = {}

    class Reporting(FakeDriver):
        def attach_wait_report(self, device, module, symbol, size):
            raw = report_buffer(1, [(0, 5 + device, 32, 1, 0x40, 1)])
            buffers[device] = ctypes.create_string_buffer(raw, size)
            return ctypes.addressof(buffers[device])
    driver = Reporting()
    kernel = _fake_cuda_kernel(tmp_path, monkeypatch, driver, True)
    assert kernel.wait_timeouts() == [
        "kernel k, block 5, thread 32: waited over 100 ms at k.mlir:3 for "
        "the phase of parity 1 of the semaphore at shared address 0x40"]
    kernel(FakeTensor((64, 64), device="cuda:1"))
    assert [m.split(":")[0] for m in kernel.wait_timeouts()] == \
        ["device 0", "device 1"]
    assert "block 6," in kernel.wait_timeouts()[1]


def test_scalars_change_without_packing_again(tmp_path, monkeypatch):
    """A scalar no tile bound reads is written into the packed parameters
    per call; one a tile bound reads is part of the packing's key."""
    driver = _Recording()
    kernel = _scalar_kernel(tmp_path, monkeypatch, driver)
    x = FakeTensor((64, 64))
    kernel(x, 1.5, 3)
    kernel(x, 2.5, 3)
    assert len(kernel._packed) == 1
    kernel(x, 2.5, 5)
    assert len(kernel._packed) == 2
    assert driver.seen == [(3, None, 1.5, 3), (3, None, 2.5, 3),
                           (5, None, 2.5, 5)]
    with pytest.raises(ArgumentError, match="argument #1: expected a number, "
                       "got str"):
        kernel(x, "2", 3)


def test_a_tile_table_is_checked_for_each_number_of_tiles(tmp_path,
                                                          monkeypatch):
    """A table checked for one launch's tiles is checked again for a
    launch of another number: it would skip tiles, or walk past the tile
    space."""
    import types

    class Words:
        def data_ptr(self):
            return 0x8000
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(
        int32="int32", tensor=lambda words, dtype, device: Words()))
    kernel = _fake_cuda_kernel(tmp_path, monkeypatch, FakeDriver(), False,
                               table=True)
    table = TileTable([[0, 1], [2, 3]])
    kernel(FakeTensor((256, 64)), tile_table=table)   # 4 tiles of 64 rows
    with pytest.raises(ArgumentError, match="4 tiles listed, the launch "
                       "has 16"):
        kernel(FakeTensor((1024, 64)), tile_table=table)
    with pytest.raises(ArgumentError, match="block 1 has tile 2, but the "
                       "launch has 2 tiles"):
        kernel(FakeTensor((128, 64)), tile_table=table)


def test_tile_space_bounds_cannot_be_negative_or_overflow_a_counter():
    entry = gemm_entry()
    entry["grid_policy"] = "tiles"
    entry["tiles"] = [{"const": 3}, {"param": 3}]
    entry["params"].append({"kind": "scalar", "dtype": "index"})
    spec = KernelSpec("k", entry)
    check_arguments(spec, (*gemm_args(), 0), names=["A", "B", "C", "heads"])
    with pytest.raises(ArgumentError, match="argument 'heads' \\(#3\\): "
                       "bounds the tile space, so it cannot be negative, "
                       "got -1"):
        check_arguments(spec, (*gemm_args(), -1),
                        names=["A", "B", "C", "heads"])
    # Blocks that take tiles from a 32-bit counter: fewer than 2**32 tiles.
    spec = KernelSpec("k", dynamic_entry())
    assert grid_size(spec, gemm_args(), 132) == 132
    with pytest.raises(ArgumentError, match="kernel 'k': 4294967296 tiles; "
                       "its blocks take tiles from a 32-bit counter"):
        grid_size(spec, gemm_args(m=2**24 * 128, n=2**8 * 256), 132)


def test_an_unhashable_argument_is_named(tmp_path, monkeypatch):
    kernel = _fake_cuda_kernel(tmp_path, monkeypatch, FakeDriver(), False)
    with pytest.raises(ArgumentError, match="expected a tensor, got list"):
        kernel([[1.0]])


def test_a_prepared_launch_refused_its_stream_keeps_its_scalars(
        tmp_path, monkeypatch):
    import types
    current = {"stream": 0x50}

    class Counter:
        def data_ptr(self):
            return 0x7000
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(
        cuda=types.SimpleNamespace(
            current_stream=lambda device=None: types.SimpleNamespace(
                cuda_stream=current["stream"])),
        int32="int32", zeros=lambda *a, **k: Counter()))
    driver = _Recording()
    kernel = _fake_cuda_kernel(
        tmp_path, monkeypatch, driver, False,
        params=[{"kind": "view", "dtype": "bf16", "shape": [-1, 64]},
                {"kind": "scalar", "dtype": "f32"}],
        abi=[{"kind": "view_ptr", "param": 0},
             {"kind": "scalar", "param": 1, "type": "f32"},
             {"kind": "tile_counter"}])
    kernel.spec.dynamic_tiles = True
    kernel.names = ["x", "scale"]
    launch = kernel.prepare(FakeTensor((64, 64)), 1.0)
    with pytest.raises(ArgumentError, match="argument 'stream'"):
        launch({"scale": 0.5}, stream=0x60)
    slot, _ = launch._slots["scale"]
    assert struct.unpack("<f", bytes(launch._values[slot]))[0] == 1.0
