#!/usr/bin/env bash
# Builds tk-mlir and runs the whole lit/FileCheck suite. Prints lit's report
# and a closing "N passed, M failed" line; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh tk-opt mlir-doc

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
/usr/lib/llvm-22/bin/lit -sv build/test 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

count() { grep -oE "^ *$1 *: *[0-9]+" "$log" | grep -oE '[0-9]+$' || echo 0; }
passed=$(count Passed)
failed=$(( $(count Failed) + $(count Unresolved) + $(count 'Timed Out') + $(count 'Unexpectedly Passed') ))
echo
echo "$passed passed, $failed failed"
if [ "$passed" -eq 0 ]; then
  echo "no test ran" >&2
  exit 1
fi
exit "$status"
