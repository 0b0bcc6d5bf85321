#!/bin/sh
# A stand-in for ptxas (ptxas-version.mlir): reports the release written in
# the file `release` next to it and writes a placeholder "cubin" to -o.
if [ "$1" = --version ]; then
  echo "ptxas: NVIDIA (R) Ptx optimizing assembler"
  echo "Cuda compilation tools, release $(cat "$(dirname "$0")/release")"
  exit 0
fi
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then
    echo placeholder > "$2"
    exit 0
  fi
  shift
done
exit 1
