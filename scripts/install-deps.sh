#!/usr/bin/env bash
# Installs the Debian 12 packages tk-mlir builds with, when any is missing.
# LLVM/MLIR 22 come from Debian's bookworm-security suite.
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
# LLVM/MLIR 22 are published in bookworm-security. Stock Debian 12 installs
# list that suite; minimal ones (debootstrap) may not, so add it when no
# source lists it (listing it twice with other Signed-By values would make
# apt refuse every source). The checks read whole outputs into variables:
# `cmd | grep -q` under pipefail fails when grep exits before cmd is done.
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
      "check the output of 'apt-get update'" >&2
    exit 1
  fi
  echo "== libmlir-22-dev not found: adding Debian's bookworm-security suite"
  echo "deb http://deb.debian.org/debian-security bookworm-security main" |
    $sudo tee /etc/apt/sources.list.d/tk-mlir-bookworm-security.list >/dev/null
  $sudo apt-get update -qq
  if ! has_candidate; then
    echo "error: no libmlir-22-dev in bookworm-security; check the output of 'apt-get update'" >&2
    exit 1
  fi
fi
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
