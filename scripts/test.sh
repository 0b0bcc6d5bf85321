#!/usr/bin/env bash
# Builds tk-mlir and runs the whole test suite: the lit/FileCheck tests and
# the Python runtime's unit tests (pytest, no GPU needed). Prints both
# reports and a closing "N passed, M failed" line; exits non-zero on any
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh tk-opt mlir-doc

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
/usr/lib/llvm-22/bin/lit -sv build/test 2>&1 | tee "$log"
lit_status=${PIPESTATUS[0]}
pylog=$(mktemp)
/usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests 2>&1 | tee "$pylog"
py_status=${PIPESTATUS[0]}
set -e

count() { grep -oE "^ *$1 *: *[0-9]+" "$log" | grep -oE '[0-9]+$' || echo 0; }
pycount() { grep -oE "[0-9]+ $1" "$pylog" | tail -n 1 | grep -oE '^[0-9]+' || echo 0; }
passed=$(( $(count Passed) + $(pycount passed) ))
failed=$(( $(count Failed) + $(count Unresolved) + $(count 'Timed Out') + $(count 'Unexpectedly Passed') + $(pycount failed) + $(pycount error) ))
rm -f "$pylog"
echo
echo "$passed passed, $failed failed"
if [ "$passed" -eq 0 ]; then
  echo "no test ran" >&2
  exit 1
fi
if [ "$lit_status" -ne 0 ] || [ "$py_status" -ne 0 ]; then
  exit 1
fi
exit 0
