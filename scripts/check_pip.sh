#!/usr/bin/env bash
# `pip install .` into a fresh virtual environment, then, from outside the
# checkout, imports tk_mlir from the installed package alone: its version,
# an in-process compile of a bundled program (found in the package), and a
# launch's arguments packed on the CPU. torch and cuda-bindings are
# declared dependencies but are not installed here (--no-deps: gigabytes,
# and nothing on the CPU needs them). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# (As scripts/build.sh: the pip build's compiles reuse ccache from any
# clone.)
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-deps . > "$work/pip.log" 2>&1 ||
  { tail -40 "$work/pip.log"; exit 1; }
cd "$work"
TK_MLIR_CACHE="$work/cache" TK_MLIR_ARTIFACTS="$work/none" \
  "$work/venv/bin/python" - <<'PY'
import os
import tk_mlir
from tk_mlir.ops.attention import compiled_manifest, programs_dir
from tk_mlir.runtime import load_manifest, pack_kernargs

package = os.path.dirname(tk_mlir.__file__)
assert "site-packages" in package, package
assert tk_mlir.__version__ == tk_mlir.compiler.compiler_version(), \
    (tk_mlir.__version__, tk_mlir.compiler.compiler_version())
assert programs_dir() == os.path.join(package, "programs"), programs_dir()
# A bundled program compiles on first use (no prebuilt artifacts here).
manifest = compiled_manifest("gemm_naive", "gemm_naive", "cubin=false")
assert manifest.startswith(os.environ["TK_MLIR_CACHE"]), manifest
# Compile for AMD and pack a launch's kernel arguments on the CPU.
compiled = tk_mlir.compile(os.path.join(programs_dir(), "gemm",
                                        "gemm_naive.mlir"), "gfx942")
spec = load_manifest(compiled.manifest_path)[1]["gemm_naive"]


class Tensor:
    def __init__(self, shape, address):
        self.shape, self.address = shape, address
        self.dtype, self.device, self.is_cuda = "torch.bfloat16", "cuda:0", True

    def data_ptr(self):
        return self.address

    def stride(self):
        return (self.shape[1], 1)


args = (Tensor((256, 128), 1 << 20), Tensor((128, 512), 2 << 20),
        Tensor((256, 512), 3 << 20))
packed = pack_kernargs(spec, args)
assert len(packed) > 0 and packed[:8] == (1 << 20).to_bytes(8, "little")
print(f"tk_mlir {tk_mlir.__version__} from {package}: compiled "
      f"{os.path.basename(manifest)} and {compiled.name} for gfx942, "
      f"{len(packed)} bytes of kernel arguments")
PY
