#!/usr/bin/env bash
# Configures (once) and builds tk-mlir with Ninja, ccache and lld, warnings
# as errors. Extra arguments are passed to ninja (e.g. a target name).
#
#   scripts/build.sh [TARGET...]           release, clang-22, in build/
#   TK_BUILD=san scripts/build.sh ...      assertions on, ASan + UBSan
#                                          (clang-22, -O1), in build-san/
#   TK_BUILD=gcc scripts/build.sh ...      release with GCC 12, in build-gcc/
#
# The sanitizer build checks what the release build cannot: MLIR's
# assertions in the headers the project instantiates (type construction,
# casts) and memory or undefined-behaviour errors; the GCC build checks that
# the output does not depend on the host compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys paths inside the checkout relative to it, so that clones in
# other folders (CI's fresh clone, a second worktree) reuse one cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"

variant=${TK_BUILD:-release}
common=(-G Ninja -S . -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
        -DTK_ENABLE_WERROR=ON -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit)
case "$variant" in
  release)
    dir=build
    flags=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang-22
           -DCMAKE_CXX_COMPILER=clang++-22) ;;
  san)
    dir=build-san
    san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    flags=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang-22
           -DCMAKE_CXX_COMPILER=clang++-22
           "-DCMAKE_CXX_FLAGS=-UNDEBUG $san" "-DCMAKE_C_FLAGS=$san"
           -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DCMAKE_C_FLAGS_RELEASE=-O1
           "-DCMAKE_EXE_LINKER_FLAGS=$san" "-DCMAKE_SHARED_LINKER_FLAGS=$san") ;;
  gcc)
    dir=build-gcc
    flags=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc-12
           -DCMAKE_CXX_COMPILER=g++-12) ;;
  *)
    echo "TK_BUILD must be release, san or gcc, not '$variant'" >&2
    exit 2 ;;
esac
if [ ! -f "$dir/build.ninja" ]; then
  cmake "${common[@]}" -B "$dir" "${flags[@]}"
fi
ninja -C "$dir" "$@"
