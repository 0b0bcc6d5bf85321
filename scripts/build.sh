#!/usr/bin/env bash
# Configures (once) and builds tk-mlir in build/ with Ninja, clang-22, lld and
# ccache, warnings as errors. Extra arguments are passed to ninja (e.g. a
# target name).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DTK_ENABLE_WERROR=ON \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C build "$@"
