#!/usr/bin/env bash
# Installs a tk-mlir build into a fresh prefix, then configures, builds and
# runs examples/embed (a C++ caller of tk/Compiler.h and a C caller of the
# C API library) against that prefix alone (find_package(TkMLIR)): the
# embedding path as an outside compiler uses it. Exits non-zero on any
# failure.
#
# usage: scripts/check_install.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
flags=()
if command -v ld.lld-22 > /dev/null || command -v ld.lld > /dev/null; then
  flags+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
fi
if command -v ccache > /dev/null; then
  flags+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S examples/embed -B "$work/embed" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
  "${flags[@]}" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
ninja -C "$work/embed" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/embed/embed"
"$work/embed/embed_c" kernels/gemm/gemm_naive.mlir
# The installed tk-opt runs and names its version.
"$work/prefix/bin/tk-opt" --version | grep -q "tk-mlir version"
