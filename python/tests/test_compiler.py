"""tk_mlir.compile through the C API library (build/lib/libTKCAPI.so,
built by scripts/test.sh): real compiles on the CPU, the on-disk cache,
diagnostics, and the loaders' compile-on-first-use fallback."""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tk_mlir import compiler  # noqa: E402
from tk_mlir.ops.attention import compiled_manifest  # noqa: E402
from tk_mlir.compiler import CompileError, compile, options_string  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
GEMM = os.path.join(ROOT, "kernels", "gemm", "gemm_naive.mlir")
TK_OPT = os.path.join(ROOT, "build", "bin", "tk-opt")


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TK_MLIR_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_compile_a_file_then_from_cache(cache):
    first = compile(GEMM, cubin=False)
    assert not first.from_cache
    assert first.name == "gemm_naive" and first.target == "sm_90a"
    assert ".entry gemm_naive" in first.assembly
    assert "wgmma.mma_async" in first.assembly
    assert first.binary is None
    assert first.manifest["format"] == "tk-mlir-manifest-1"
    assert first.manifest["kernels"]["gemm_naive"]["threads"] == 384
    assert os.path.dirname(first.directory) == str(cache)
    again = compile(GEMM, cubin=False)
    assert again.from_cache and again.directory == first.directory
    assert again.assembly == first.assembly
    assert not compile(GEMM, cubin=False, cache=False).from_cache
    # Other options, another entry.
    assert compile(GEMM, cubin=False, stages=2).directory != first.directory


def test_compile_source_text_with_a_cubin():
    with open(GEMM) as f:
        text = f.read()
    out = compile(text)
    if out.binary is not None:   # ptxas found
        assert out.binary[:4] == b"\x7fELF"
        assert out.manifest["cubin"] == "gemm_naive.cubin"
    assert out.manifest["ptx"] == "gemm_naive.ptx"


def test_compile_for_amd():
    out = compile(GEMM, "gfx950")
    assert out.binary[:4] == b"\x7fELF"
    assert '.amdgcn_target "amdgcn-amd-amdhsa--gfx950"' in out.assembly
    assert out.manifest["hsaco"] == "gemm_naive.hsaco"


def test_source_is_verified_for_the_target():
    # MFMA layouts are gfx942's: the source verifies for that target, and
    # not for sm_90a.
    program = open(os.path.join(
        ROOT, "test/tk-compile/Inputs/mfma-layouts.mlir")).read()
    assert ".amdgcn_target" in compile(program, target="gfx942",
                                       cache=False).assembly
    with pytest.raises(CompileError, match="must be #tile.mma_acc on sm_90a"):
        compile(program, target="sm_90a", cache=False)


@pytest.mark.skipif(not os.access(TK_OPT, os.X_OK),
                    reason="needs build/bin/tk-opt")
@pytest.mark.parametrize("target,flag,extension", [
    ("sm_90a", "-tile-to-nvidia=", ".cubin"),
    ("gfx950", "-tile-to-amdgpu=chip=gfx950 ", ".hsaco")])
def test_binaries_match_the_files_tk_opt_writes(tmp_path, target, flag,
                                                extension):
    """Every byte of the binary comes back, NULs included."""
    out = compile(GEMM, target)
    if out.binary is None:   # no ptxas here
        pytest.skip("ptxas not found")
    folder = tmp_path / "tk-opt"
    subprocess.run([TK_OPT, GEMM, f"{flag}out={folder}", "-o", os.devnull],
                   check=True)
    want = (folder / ("gemm_naive" + extension)).read_bytes()
    assert len(out.binary) == len(want) and out.binary == want
    assert out.binary.count(b"\0") > 0


def test_options_string():
    assert options_string() == ""
    assert options_string("stages=3", cubin=False, producer_registers=24,
                          bind=["12=true", "13=false"]) == \
        "stages=3 bind=12=true,13=false cubin=false producer-registers=24"


def test_errors_are_located():
    with pytest.raises(CompileError) as error:
        compile("tile.kernel @k() launch(warpgroups = 1) {\n  tile.nope\n}\n")
    assert "<program>:2:3: error:" in error.value.diagnostics
    with pytest.raises(CompileError, match="invalid options for sm_90a") \
            as error:
        compile(GEMM, stages="many")
    assert "option 'stages' takes an integer, got 'many'" in \
        error.value.diagnostics
    with pytest.raises(CompileError, match="has no tile.kernel"):
        compile("module {\n}\n")
    # What MLIR's parser would crash on is an error too (SourceCheck.cpp).
    with pytest.raises(CompileError) as error:
        compile('"test.op"() {x = array<index: 1>} : () -> ()\n')
    assert "<program>:1:24: error: expected integer or float type, got: " \
        "'index'" in error.value.diagnostics
    # (A NUL byte in the source: MLIR's lexer skips it as whitespace.)
    with pytest.raises(CompileError) as error:
        compile('"test.op"() {x = array<\0index: 1>} : () -> ()\n')
    assert "<program>:1:25: error: expected integer or float type" in \
        error.value.diagnostics
    # One line per diagnostic: not the operation MLIR attaches, whole.
    with pytest.raises(CompileError) as error:
        compile(GEMM, stages="many")
    assert "see current operation" not in error.value.diagnostics
    assert len(error.value.diagnostics.splitlines()) == 1
    # An option value without a name is refused, not dropped.
    with pytest.raises(CompileError, match="'=3' gives a value without an "
                       "option name"):
        compile(GEMM, options="=3")
    with pytest.raises(ValueError, match="target must be one of"):
        compile(GEMM, "sm_80")
    with pytest.raises(FileNotFoundError):
        compile(os.path.join(ROOT, "kernels", "gemm", "no_such_program.mlir"))
    with pytest.raises(TypeError):
        compile(42)


def test_a_failed_link_says_why_in_the_diagnostic(tmp_path, capfd):
    """ld.lld's own messages come back in the diagnostic; nothing reaches
    the embedder's standard streams."""
    lld = tmp_path / "ld.lld"
    lld.write_text("#!/bin/sh\necho 'ld.lld: error: undefined symbol: foo' "
                   ">&2\nexit 1\n")
    lld.chmod(0o755)
    with pytest.raises(CompileError) as error:
        compile(GEMM, "gfx942", lld=str(lld), cache=False)
    assert "ld.lld failed to link the code object: ld.lld: error: " \
        "undefined symbol: foo" in error.value.diagnostics
    assert len(error.value.diagnostics.splitlines()) == 1
    assert capfd.readouterr() == ("", "")


def test_missing_library_is_named(monkeypatch):
    monkeypatch.setattr(compiler, "_library", None)
    monkeypatch.setenv("TK_MLIR_LIBRARY", "/nonexistent/libTKCAPI.so")
    with pytest.raises(CompileError, match="cannot load"):
        compile(GEMM)


def test_loaders_compile_on_first_use(tmp_path, monkeypatch, cache):
    monkeypatch.setenv("TK_MLIR_ARTIFACTS", str(tmp_path / "empty"))
    path = compiled_manifest("gemm_naive", "gemm_naive", "cubin=false")
    assert path.startswith(str(cache)) and path.endswith("gemm_naive.json")
    with pytest.raises(FileNotFoundError, match="no program no_such_program"):
        compiled_manifest("nothing", "no_such_program", "")
    # A prebuilt artifact wins.
    prebuilt = tmp_path / "empty" / "gemm_naive" / "gemm_naive.json"
    prebuilt.parent.mkdir(parents=True)
    prebuilt.write_text("{}")
    assert compiled_manifest("gemm_naive", "gemm_naive", "") == str(prebuilt)
