#!/usr/bin/env bash
# Builds tk-mlir and runs the whole test suite: the lit/FileCheck tests and
# the Python runtime's unit tests (pytest, no GPU needed). Prints both
# reports and a closing "N passed, M failed" line; exits non-zero on any
# failure.
#
# It installs the release build into a temporary prefix and builds and runs
# examples/embed against it (scripts/check_install.sh), counted as one test.
#
# Then (unless --quick) it builds the sanitizer build (assertions on, ASan +
# UBSan) and the GCC build (scripts/build.sh) and runs, each build and each
# check counted as one test (a check whose build failed is listed as not
# run): the lit suite on each of them, 1000 mutants through the sanitizer build
# (test/tk-opt/mutate.py: any signal, abort, sanitizer report or unlocated
# diagnostic fails), and the bundled kernels' PTX and AMD ISA compared byte
# for byte between the clang and GCC builds and between two runs
# (scripts/compare_outputs.py), and `pip install .` into a fresh virtual
# environment used from outside the checkout (scripts/check_pip.sh; the
# first run builds the compiler library in build/pip).
set -euo pipefail
cd "$(dirname "$0")/.."

all=1
for arg in "$@"; do
  case "$arg" in
    --quick) all=0 ;;
    *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
  esac
done

scripts/install-deps.sh
scripts/build.sh tk-opt tk-compile TKCAPI mlir-doc

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

# Each check below counts as one test. `check` leaves ok=1 when it passed;
# `check_after READY ...` runs a check that needs a build only when READY
# is 1, and otherwise names it in the "not run" list (its build's failure
# is already counted).
extra_failed=0
ok=0
not_run=()
check() {
  local name=$1
  shift
  echo
  echo "== $name"
  if "$@"; then
    passed=$((passed + 1))
    ok=1
  else
    echo "FAILED: $name"
    failed=$((failed + 1))
    extra_failed=1
    ok=0
  fi
}
check_after() {
  local ready=$1
  shift
  if [ "$ready" -eq 1 ]; then
    check "$@"
  else
    echo
    echo "== $1"
    echo "NOT RUN (its build failed): $1"
    not_run+=("$1")
  fi
}
# The installed form: an outside CMake project embeds the compiler.
check "install, then build and run examples/embed against it" \
  scripts/check_install.sh build
if [ "$all" -eq 1 ]; then
  # MLIR's global registries are never freed: leaks are not errors here.
  export ASAN_OPTIONS=detect_leaks=0
  export UBSAN_OPTIONS=print_stacktrace=1
  # (Not libTKCAPI: a shared library cannot carry the sanitizer runtimes,
  # and the lit suite does not use it.)
  # A build that fails counts as one failed test; the checks that need it
  # are then not run.
  check "build, sanitizer build" \
    env TK_BUILD=san scripts/build.sh tk-opt tk-compile mlir-doc
  san_built=$ok
  check "build, GCC build" env TK_BUILD=gcc scripts/build.sh tk-opt tk-compile mlir-doc
  gcc_built=$ok
  check_after "$san_built" "lit, sanitizer build" /usr/lib/llvm-22/bin/lit -q build-san/test
  check_after "$gcc_built" "lit, GCC build" /usr/lib/llvm-22/bin/lit -q build-gcc/test
  check_after "$san_built" "1000 mutants, sanitizer build" /usr/bin/python3 test/tk-opt/mutate.py \
    build-san/bin/tk-opt 2027 1000 $(sed -n 's/^\/\/ RUN: %python %S\/mutate.py tk-opt [0-9]* [0-9]* //p' test/tk-opt/mutations.test |
      sed -e 's/ | FileCheck %s$//' -e "s|%kernels|kernels|g" \
          -e "s|%tk_src_root/||g" -e "s|%S/\.\./|test/|g")
  check_after "$gcc_built" "kernels identical, clang and GCC builds" /usr/bin/python3 \
    scripts/compare_outputs.py build/bin/tk-opt build-gcc/bin/tk-opt
  check "kernels identical, two runs" /usr/bin/python3 \
    scripts/compare_outputs.py build/bin/tk-opt
  check "pip install . into a fresh venv, then compile and pack from it" \
    scripts/check_pip.sh
fi
echo
if [ ${#not_run[@]} -ne 0 ]; then
  echo "not run, their build having failed:"
  printf '  %s\n' "${not_run[@]}"
fi
echo "$passed passed, $failed failed"
if [ "$passed" -eq 0 ]; then
  echo "no test ran" >&2
  exit 1
fi
if [ "$lit_status" -ne 0 ] || [ "$py_status" -ne 0 ] || [ "$extra_failed" -ne 0 ]; then
  exit 1
fi
exit 0
