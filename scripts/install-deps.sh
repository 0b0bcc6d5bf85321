#!/usr/bin/env bash
# Installs the Debian 12 packages tk-mlir builds with, when any is missing.
# LLVM/MLIR 22 come from whichever configured apt source has them: Debian's
# bookworm-security suite, or apt.llvm.org's llvm-toolchain-bookworm-22
# (the same package names, installed under /usr/lib/llvm-22 alike).
set -euo pipefail

# libclang-rt-22-dev: the sanitizer runtimes (TK_BUILD=san); g++-12: the
# GCC build (TK_BUILD=gcc), both run by `scripts/test.sh`; python3-venv:
# the fresh environment `pip install .` is checked in.
packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools lld-22 clang-22 clang-format-22
  libclang-rt-22-dev g++-12
  cmake ninja-build ccache python3 python3-pytest python3-venv git
)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "== installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
# When no configured source has LLVM/MLIR 22: Debian publishes them in
# bookworm-security, which stock Debian 12 installs list and minimal ones
# (debootstrap) may not, so that suite is added (and said so) when no
# source lists it; listing it twice with other Signed-By values would make
# apt refuse every source. apt.llvm.org is a third party's archive with its
# own signing key: it is named in the error, never added here. The checks
# read whole outputs into variables: `cmd | grep -q` under pipefail fails
# when grep exits before cmd is done.
llvm_org_hint="or use apt.llvm.org's llvm-toolchain-bookworm-22 (see https://apt.llvm.org:
  deb http://apt.llvm.org/bookworm/ llvm-toolchain-bookworm-22 main)"
has_candidate() {
  local policy
  policy=$(apt-cache policy libmlir-22-dev 2>/dev/null || true)
  [[ $policy == *"Candidate: "[0-9]* ]]
}
if ! has_candidate; then
  # One-line sources name the suite on the deb line, deb822 ones on a
  # Suites: line; comments, and files apt does not read, do not count.
  listed=$(grep -hsE '^[^#]*bookworm-security' /etc/apt/sources.list \
    /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources || true)
  if [[ -n $listed ]]; then
    echo "error: bookworm-security is listed but apt finds no libmlir-22-dev;" \
      "check the output of 'apt-get update', $llvm_org_hint" >&2
    exit 1
  fi
  echo "== libmlir-22-dev not found in any configured apt source: adding" \
    "Debian's bookworm-security suite (/etc/apt/sources.list.d/tk-mlir-bookworm-security.list)"
  echo "deb http://deb.debian.org/debian-security bookworm-security main" |
    $sudo tee /etc/apt/sources.list.d/tk-mlir-bookworm-security.list >/dev/null
  $sudo apt-get update -qq
  if ! has_candidate; then
    echo "error: no libmlir-22-dev in bookworm-security; check the output of" \
      "'apt-get update', $llvm_org_hint" >&2
    exit 1
  fi
fi
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
