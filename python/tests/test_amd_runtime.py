"""CPU tests of the AMD side of the runtime: manifests naming an HSACO,
kernel-argument layout and packing (checked against the code object's own
metadata when tk-opt and llvm-readelf are at hand), the LDS row-length
check, and the clear error when the HIP runtime is missing. No GPU."""

import json
import os
import re
import shutil
import struct
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tk_mlir import (ArgumentError, Kernel, KernelSpec,  # noqa: E402
                     ManifestError, check_arguments, kernarg_layout,
                     load_manifest, pack_kernargs)
from test_runtime import FakeTensor  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
TK_OPT = os.path.join(ROOT, "build", "bin", "tk-opt")
READELF = shutil.which("llvm-readelf") or "/usr/lib/llvm-22/bin/llvm-readelf"


def attention_entry():
    """What tk-opt writes for kernels/attention/attention_naive.mlir on gfx950."""
    abi = []
    for p in range(4):
        abi.append({"kind": "view_ptr", "param": p})
        abi += [{"kind": "view_dim", "param": p, "axis": a} for a in range(4)]
    abi.append({"kind": "view_ptr", "param": 4})
    abi += [{"kind": "view_dim", "param": 4, "axis": a} for a in range(3)]
    abi += [{"kind": "scalar", "param": 5, "type": "f32"},
            {"kind": "scalar", "param": 6, "type": "i32"}]
    view4 = {"kind": "view", "dtype": "bf16", "shape": [-1, -1, -1, 128],
             "row_alignment": 16}
    params = [dict(view4), dict(view4), dict(view4),
              {"kind": "view", "dtype": "bf16", "shape": [-1, -1, -1, 128]},
              {"kind": "view", "dtype": "f32", "shape": [-1, -1, -1]},
              {"kind": "scalar", "dtype": "f32"},
              {"kind": "scalar", "dtype": "i1"}]
    return {"target": "gfx950", "threads": 512, "shared_memory_bytes": 131072,
            "grid_policy": "tiles", "cluster": [1, 1, 1],
            "tiles": [{"param": 0, "axis": 2, "divisor": 128},
                      {"param": 0, "axis": 1, "divisor": 1},
                      {"param": 0, "axis": 0, "divisor": 1}],
            "params": params, "abi": abi}


def test_kernarg_layout_is_natural_alignment_in_abi_order():
    spec = KernelSpec("attention_naive", attention_entry())
    layout = kernarg_layout(spec)
    offsets = [(offset, size) for offset, size, _ in layout]
    # Four 4-d views (pointer + 4 dims = 40 bytes each), one 3-d view, an
    # f32 and an i32 (the bool).
    expected = [(8 * i, 8) for i in range(4 * 5 + 4)] + [(192, 4), (196, 4)]
    assert offsets == expected


def test_pack_kernargs_writes_pointers_dims_and_scalars():
    spec = KernelSpec("attention_naive", attention_entry())
    q = FakeTensor([2, 16, 1000, 128], ptr=0x7f0000001000)
    lse = FakeTensor([2, 16, 1000], dtype="float32", ptr=0x7f0000009000)
    args = [q, q, q, q, lse, 0.125, True]
    raw = pack_kernargs(spec, args)
    assert len(raw) == 200
    assert struct.unpack_from("<Q", raw, 0)[0] == 0x7f0000001000
    assert struct.unpack_from("<4q", raw, 8) == (2, 16, 1000, 128)
    assert struct.unpack_from("<Q", raw, 160)[0] == 0x7f0000009000
    assert struct.unpack_from("<3q", raw, 168) == (2, 16, 1000)
    assert struct.unpack_from("<f", raw, 192)[0] == 0.125
    assert struct.unpack_from("<i", raw, 196)[0] == 1


@pytest.mark.parametrize("scale, causal, message", [
    (float("nan"), True, r"argument 'scale' \(#5\): expected a finite f32 "
                         r"value, got nan"),
    (1e39, True, r"argument 'scale' \(#5\): expected a finite f32 value"),
    (0.125, 2, r"argument 'causal' \(#6\): expected a bool, got int"),
])
def test_pack_kernargs_refuses_values_it_would_change(scale, causal,
                                                      message):
    spec = KernelSpec("attention_naive", attention_entry())
    q = FakeTensor([2, 16, 1000, 128])
    lse = FakeTensor([2, 16, 1000], dtype="float32")
    names = ["q", "k", "v", "o", "lse", "scale", "causal"]
    with pytest.raises(ArgumentError, match=message):
        pack_kernargs(spec, [q, q, q, q, lse, scale, causal], names)


def test_pack_kernargs_refuses_integers_out_of_range():
    spec = KernelSpec("attention_naive", attention_entry())
    spec.params[6] = {"kind": "scalar", "dtype": "i32"}
    q = FakeTensor([2, 16, 1000, 128])
    lse = FakeTensor([2, 16, 1000], dtype="float32")
    with pytest.raises(ArgumentError, match=r"argument #6: 1099511627781 is "
                       r"out of range for i32"):
        pack_kernargs(spec, [q, q, q, q, lse, 0.125, 2**40 + 5])


def test_lds_row_alignment_names_the_argument():
    spec = KernelSpec("attention_naive", attention_entry())
    q = FakeTensor([1, 1, 64, 128])
    bad = FakeTensor([1, 1, 64, 128], dtype="float32")
    check_arguments(spec, [q, q, q, q, FakeTensor([1, 1, 64], "float32"),
                           0.1, False])
    narrow = {"kind": "view", "dtype": "bf16", "shape": [-1, -1],
              "row_alignment": 16}
    entry = {"target": "gfx942", "threads": 512, "shared_memory_bytes": 0,
             "grid_policy": "tiles", "cluster": [1, 1, 1], "tiles": [],
             "params": [narrow], "abi": [{"kind": "view_ptr", "param": 0}]}
    with pytest.raises(ArgumentError, match=r"argument 'B' \(#0\): copies "
                       r"into LDS need rows that are a multiple of 16 bytes; "
                       r"the last dimension 7 x 2 bytes is not"):
        check_arguments(KernelSpec("k", entry), [FakeTensor([64, 7])],
                        names=["B"])
    with pytest.raises(ArgumentError, match="argument #0: expected dtype "
                       "bfloat16, got float32"):
        check_arguments(spec, [bad, q, q, q, q, 0.1, False])


def test_amd_kernel_without_hip_runtime_says_so(tmp_path, monkeypatch):
    manifest = {"format": "tk-mlir-manifest-1", "hsaco": "k.hsaco",
                "isa": "k.s", "kernels": {"k": attention_entry()}}
    (tmp_path / "k.json").write_text(json.dumps(manifest))
    (tmp_path / "k.hsaco").write_bytes(b"\x7fELF")
    folder, specs, binaries = load_manifest(str(tmp_path / "k.json"))
    assert binaries == {"hsaco": "k.hsaco"}
    assert specs["k"].target == "gfx950"
    monkeypatch.setenv("TK_HIP_LIBRARY", str(tmp_path / "no-such-lib.so"))
    import tk_mlir.hip_driver as hip_driver
    monkeypatch.setattr(hip_driver, "_hip", None)
    if _has_hip():
        pytest.skip("a HIP runtime is installed here")
    with pytest.raises(RuntimeError, match="libamdhip64.so was not found.*"
                       "set TK_HIP_LIBRARY"):
        Kernel(str(tmp_path / "k.json"))


def test_amd_manifest_without_hsaco_is_rejected(tmp_path):
    manifest = {"format": "tk-mlir-manifest-1", "kernels":
                {"k": attention_entry()}}
    (tmp_path / "k.json").write_text(json.dumps(manifest))
    with pytest.raises(Exception, match="names no hsaco"):
        Kernel(str(tmp_path / "k.json"))


def test_amd_manifest_with_a_missing_hsaco_names_it(tmp_path):
    manifest = {"format": "tk-mlir-manifest-1", "hsaco": "k.hsaco",
                "kernels": {"k": attention_entry()}}
    (tmp_path / "k.json").write_text(json.dumps(manifest))
    with pytest.raises(ManifestError, match="names hsaco 'k.hsaco', which "
                       "cannot be read"):
        Kernel(str(tmp_path / "k.json"))


def _has_hip():
    import ctypes
    try:
        ctypes.CDLL("libamdhip64.so")
        return True
    except OSError:
        return False


def _metadata_args(hsaco, name):
    """(offset, size, value_kind) of the explicit arguments in the code
    object's AMDGPU metadata note."""
    notes = subprocess.run([READELF, "--notes", hsaco], check=True,
                           capture_output=True, text=True).stdout
    assert re.search(r"\.name:\s+" + name + r"\b", notes)
    args = re.findall(r"\.offset:\s+(\d+)\s+\.size:\s+(\d+)\s+"
                      r"\.value_kind:\s+(\w+)", notes)
    return [(int(o), int(s), k) for o, s, k in args
            if not k.startswith("hidden")]


@pytest.mark.skipif(not (os.access(TK_OPT, os.X_OK) and
                         os.access(READELF, os.X_OK)),
                    reason="needs build/bin/tk-opt and llvm-readelf")
@pytest.mark.parametrize("kernel,chip", [("gemm_naive", "gfx942"),
                                         ("attention_naive", "gfx950")])
def test_kernarg_layout_matches_code_object(tmp_path, kernel, chip):
    from tk_mlir.ops.attention import program_source
    subprocess.run([TK_OPT, program_source(kernel),
                    f"-tile-to-amdgpu=chip={chip} out={tmp_path}",
                    "-o", os.devnull], check=True, capture_output=True)
    _, specs, binaries = load_manifest(str(tmp_path / (kernel + ".json")))
    ours = [(o, s) for o, s, _ in kernarg_layout(specs[kernel])]
    theirs = _metadata_args(str(tmp_path / binaries["hsaco"]), kernel)
    assert ours == [(o, s) for o, s, _ in theirs]
    assert all(k in ("global_buffer", "by_value") for _, _, k in theirs)
