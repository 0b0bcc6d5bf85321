#!/usr/bin/env bash
# Sets tk-mlir up on Debian 12 and runs the main job: installs the packages it
# needs (when missing), builds tk-opt, then compiles the bundled GEMM program
# and shows what came out.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh tk-opt

kernel=kernels/gemm.mlir
echo
echo "== tk-opt $kernel -canonicalize -cse   (parse, verify, normalise)"
build/bin/tk-opt "$kernel" -canonicalize -cse
echo
echo "== where the accumulator's elements live (tk-opt -tile-print-layouts)"
build/bin/tk-opt "$kernel" -tile-print-layouts -o /dev/null 2>&1 |
  grep "remark:" | head -n 1
echo
echo "tk-opt verified $kernel. Lowering to PTX/cubin is the next milestone"
echo "(see docs/design.md); today tk-opt parses, verifies and normalises."
