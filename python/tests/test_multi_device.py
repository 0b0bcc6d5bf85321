"""Multi-device views on the CPU: DeviceViews, the launch checks and the
parameter packing of a kernel whose manifest lists a copy per device."""
import ctypes
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from test_runtime import FakeTensor  # noqa: E402
from tk_mlir import ArgumentError, KernelSpec  # noqa: E402
from tk_mlir.multi_device import DeviceViews  # noqa: E402
from tk_mlir.runtime import check_arguments, pack_parameters  # noqa: E402


def entry(devices=4):
    """A kernel (out: [?, ?] bf16 on up to `devices` devices, x: [?, ?]
    bf16) as tk-opt's manifest describes it: a pointer and a tensor map
    per copy, then the hidden device index and count."""
    out = {"kind": "view", "dtype": "bf16", "shape": [-1, -1],
           "devices": devices}
    abi = [{"kind": "view_ptr", "param": 0, "device": k}
           for k in range(devices)]
    abi += [{"kind": "view_dim", "param": 0, "axis": a} for a in (0, 1)]
    abi += [{"kind": "view_ptr", "param": 1}]
    abi += [{"kind": "device_id"}, {"kind": "device_count"}]
    abi += [{"kind": "tensor_map", "param": 0, "device": k, "box": [64, 64],
             "swizzle": 128, "dtype": "bf16"} for k in range(devices)]
    return {"target": "sm_90a", "threads": 384, "shared_memory_bytes": 0,
            "grid_policy": "persistent", "cluster": [1, 1, 1],
            "tiles": [{"const": 1}],
            "params": [out, {"kind": "view", "dtype": "bf16",
                             "shape": [-1, -1]}], "abi": abi}


def views(rank=1, world=2, base=0x100000, step=0x1000000, device="cuda:0"):
    local = FakeTensor((256, 512), ptr=base + rank * step, device=device)
    return DeviceViews(local, [base + k * step for k in range(world)], rank)


def test_device_views_check_their_rank_and_address():
    v = views()
    assert v.world == 2 and v.shape == (256, 512) and v.data_ptr() == \
        0x1100000
    with pytest.raises(ValueError, match="rank 2 is not one of the 2"):
        DeviceViews(v.local, v.addresses, 2)
    with pytest.raises(ValueError, match="is not the local tensor's"):
        DeviceViews(v.local, v.addresses, 0)
    with pytest.raises(ValueError, match="needs one address per device"):
        DeviceViews(v.local, [], 0)


def test_views_of_a_symmetric_buffer_must_lie_inside_it():
    """from_symmetric offsets every device's buffer by the tensor's place in
    this device's: a tensor outside the buffer would give the peers
    addresses outside theirs."""
    import types

    class Local:
        def __init__(self, ptr, numel):
            self.ptr, self.count = ptr, numel

        def data_ptr(self):
            return self.ptr

        def numel(self):
            return self.count

        def element_size(self):
            return 2
    handle = types.SimpleNamespace(buffer_ptrs=[0x10000, 0x90000], rank=0,
                                   buffer_size=4096)
    v = DeviceViews.from_symmetric(Local(0x10400, 1536), handle)
    assert v.addresses == (0x10400, 0x90400)
    with pytest.raises(ValueError, match="bytes 1024 to 5120 of the "
                       "allocation\\) is not inside the symmetric buffer of "
                       "4096 bytes"):
        DeviceViews.from_symmetric(Local(0x10400, 2048), handle)
    with pytest.raises(ValueError, match="not inside the symmetric buffer"):
        DeviceViews.from_symmetric(Local(0x8000, 16), handle)


def test_each_copy_gets_its_pointer_and_tensor_map():
    spec = KernelSpec("k", entry())
    x = FakeTensor((64, 64), ptr=0x9000000)
    args = [views(), x]
    check_arguments(spec, args)
    maps = []

    def encode(geometry):
        maps.append(geometry.address)
        return bytes([len(maps)]) * 128
    values, _ = pack_parameters(spec, args, encode)
    pointers = [v.value or 0 for v in values[:4]]
    assert pointers == [0x100000, 0x1100000, 0, 0]   # 2 of 4 devices
    assert [v.value for v in values[4:6]] == [256, 512]
    assert values[6].value == 0x9000000
    assert [v.value for v in values[7:9]] == [1, 2]   # device 1 of 2
    assert maps == [0x100000, 0x1100000]   # unused copies get no map
    assert bytes(values[9])[:1] == b"\x01" and bytes(values[10])[:1] == \
        b"\x02"
    assert bytes(values[11]) == bytes(128)


def test_multi_device_arguments_are_checked():
    spec = KernelSpec("k", entry(devices=2))
    x = FakeTensor((64, 64), ptr=0x9000000)
    with pytest.raises(ArgumentError, match=r"argument 'out' \(#0\): the "
                       r"kernel takes a multi-device view here"):
        check_arguments(spec, [x, x], names=["out", "x"])
    with pytest.raises(ArgumentError, match="argument #1: the kernel takes "
                       "one tensor here, not a multi-device view"):
        check_arguments(spec, [views(), views()])
    with pytest.raises(ArgumentError, match="spans 4 devices; the kernel was "
                       "compiled for at most 2"):
        check_arguments(spec, [views(world=4), x])
    with pytest.raises(ArgumentError, match="16-byte aligned, one is at "
                       "0x100008"):
        check_arguments(spec, [views(base=0x100008), x])
    with pytest.raises(ArgumentError, match="on cuda:1, but argument #0 is "
                       "on cuda:0"):
        check_arguments(spec, [views(), FakeTensor((64, 64),
                                                   device="cuda:1")])


def test_two_multi_device_arguments_must_agree():
    e = entry(devices=2)
    e["params"][1]["devices"] = 2
    e["abi"] = [a for a in e["abi"] if a.get("param") != 1]
    e["abi"] += [{"kind": "view_ptr", "param": 1, "device": k}
                 for k in range(2)]
    spec = KernelSpec("k", e)
    with pytest.raises(ArgumentError, match=r"argument #1: device 0 of 2, "
                       r"but argument #0 is device 1 of 2"):
        check_arguments(spec, [views(rank=1), views(rank=0, base=0x4000000)])
    check_arguments(spec, [views(rank=1), views(rank=1, base=0x4000000)])


def test_tensor_parallel_variants_are_the_bundled_program():
    from tk_mlir.ops import tensor_parallel
    limit = "wait-timeout-ms=600000"
    assert tensor_parallel.variants() == {
        "gemm_reduce_scatter": ("gemm_reduce_scatter", limit),
        "all_gather_gemm": ("all_gather_gemm", limit),
        "all_gather_gemm_blocks": ("all_gather_gemm_blocks", limit)}
    assert tensor_parallel._int32(2**31) == -2**31
    assert tensor_parallel._int32(2**32 + 5) == 5
    assert ctypes.c_int32(tensor_parallel._int32(2**31 + 7)).value == \
        -2**31 + 7


def test_the_device_count_as_a_tile_bound():
    from tk_mlir.runtime import ManifestError, bound_params, grid_tiles
    raw = entry()
    raw["tiles"] = [{"device_count": True},
                    {"param": 0, "axis": 0, "divisor": 64}]
    spec = KernelSpec("k", raw)
    assert grid_tiles(spec, [views(world=3), FakeTensor((64, 64))]) == 3 * 4
    assert bound_params(spec.tiles[0]) == set()
    with pytest.raises(ArgumentError, match="no argument is a multi-device"):
        grid_tiles(spec, [FakeTensor((256, 512)), FakeTensor((64, 64))])
    raw["tiles"] = [{"device_count": 1}]
    with pytest.raises(ManifestError, match="device_count must be true"):
        KernelSpec("k", raw)


def test_tensor_parallel_layouts_are_checked_before_anything_is_queued():
    """Rows of 16-byte multiples, 16-byte aligned tensors (all_gather_gemm
    copies an unaligned `a` instead) and at most 8 devices: a launch that
    failed on them after the collective's handshakes were queued would
    leave the peers waiting."""
    from tk_mlir.ops.tensor_parallel import MAX_DEVICES, _check_layout
    a = FakeTensor((256, 512), ptr=0x100000)
    b = FakeTensor((512, 1024), ptr=0x200000)
    _check_layout(a, b, 4)
    with pytest.raises(ArgumentError, match="the group has 9 devices; the "
                       "kernels are compiled for at most 8"):
        _check_layout(a, b, MAX_DEVICES + 1)
    with pytest.raises(ArgumentError, match="argument 'b': rows of 1020 bf16 "
                       "elements are not a multiple of 16 bytes"):
        _check_layout(a, FakeTensor((512, 1020), ptr=0x200000), 4)
    with pytest.raises(ArgumentError, match="argument 'a': rows of 500"):
        _check_layout(FakeTensor((256, 500), ptr=0x100000), b, 4)
    with pytest.raises(ArgumentError, match="argument 'a': its address "
                       "0x100002 is not 16-byte aligned"):
        _check_layout(FakeTensor((256, 512), ptr=0x100002), b, 4)
    _check_layout(FakeTensor((256, 512), ptr=0x100002), b, 4,
                  aligned_a=False)
    with pytest.raises(ArgumentError, match="argument 'b': its address"):
        _check_layout(a, FakeTensor((512, 1024), ptr=0x200008), 4,
                      aligned_a=False)


def test_tensor_parallel_state_is_made_once_per_key():
    """A call on tensors seen before reuses what was made for them (their
    checked state, their prepared launch); the `size` used last are
    kept."""
    from tk_mlir.ops.tensor_parallel import _Cache
    made = []

    def prepare(key):
        return lambda: made.append(key) or f"launch {key}"
    launches = _Cache(size=4)
    assert launches.get((0x1000, 64), prepare(0)) == "launch 0"
    assert launches.get((0x1000, 64), prepare(1)) == "launch 0"
    for k in range(1, 4):
        assert launches.get((0x2000, k), prepare(k)) == f"launch {k}"
    # Used again, the first stays; the least recently used goes.
    assert launches.get((0x1000, 64), prepare(9)) == "launch 0"
    assert launches.get((0x3000, 0), prepare(4)) == "launch 4"
    assert launches.get((0x1000, 64), prepare(9)) == "launch 0"
    assert launches.get((0x2000, 1), prepare(5)) == "launch 5"
    assert made == [0, 1, 2, 3, 4, 5]
    assert _Cache()._size == 64


@pytest.mark.parametrize("initialized", [False, True])
def test_a_late_import_warns_that_nccl_may_have_read_its_settings(
        monkeypatch, initialized):
    import types
    import warnings
    from tk_mlir import multi_device
    dist = types.ModuleType("torch.distributed")
    dist.is_available = lambda: True
    dist.is_initialized = lambda: initialized
    monkeypatch.setitem(sys.modules, "torch.distributed", dist)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        multi_device._warn_if_late()
    assert [str(w.message) for w in seen if "NCCL_NVLS_ENABLE" in
            str(w.message)] == ([
                "tk_mlir.multi_device was imported after torch.distributed "
                "was initialized: NCCL may have read NCCL_NVLS_ENABLE before "
                "it was set to 0 and use NVLink multicast; import "
                "tk_mlir.multi_device (or tk_mlir.ops.tensor_parallel) "
                "before init_process_group"] if initialized else [])
    assert os.environ["NCCL_NVLS_ENABLE"] == "0"


def test_importing_after_init_process_group_warns():
    import subprocess
    import textwrap
    # A fresh interpreter with a torch.distributed already initialized.
    program = textwrap.dedent("""
        import sys, types, warnings
        dist = types.ModuleType("torch.distributed")
        dist.is_available = lambda: True
        dist.is_initialized = lambda: True
        sys.modules["torch.distributed"] = dist
        warnings.simplefilter("always")
        import tk_mlir.multi_device
    """)
    python = os.path.join(os.path.dirname(__file__), "..")
    done = subprocess.run([sys.executable, "-c", program], cwd=python,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert ("RuntimeWarning: tk_mlir.multi_device was imported after "
            "torch.distributed was initialized") in done.stderr
