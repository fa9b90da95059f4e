#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The stamp of a recorded proof: a hash of the sources the proven code is built from, so that a proof made once
# (the x86 exhaustive rows, an Arm sweep, a GPU run) can be told current or stale against today's sources.
#   scripts/source_stamp.sh cpu|cuda [COMMIT]
#   scripts/source_stamp.sh cpu|cuda --define NAME   (a C header line: #define NAME "<the stamp>", for a build)
# cpu: the CPU library and the reference it is proven against (src/common, src/cpu, src/parallel, src/reference,
# include/gelu): the x86 exhaustive rows and the Arm sweeps. cuda: the CUDA kernels (src/common, src/cuda,
# include/gelu): the GPU runs. Prints "<kind> sources <16 hex digits>": the SHA-256 of the sorted list of
# "<sha256>  <path>" of every file there, in the working tree, or at COMMIT (for a proof whose run named its
# commit); the same bytes give the same stamp in any clone.
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  cpu) dirs=(src/common src/cpu src/parallel src/reference include/gelu) ;;
  cuda) dirs=(src/common src/cuda include/gelu) ;;
  *) echo "usage: scripts/source_stamp.sh cpu|cuda [COMMIT]" >&2; exit 2 ;;
esac
define=""
if [[ ${2:-} == --define ]]; then
  define=${3:?--define needs a NAME}
elif [[ $# -ge 2 ]]; then
  tree=$(mktemp -d)
  trap 'rm -rf "$tree"' EXIT
  git archive "$2" -- "${dirs[@]}" | tar -x -C "$tree"
  cd "$tree"
fi
stamp="$1 sources $(find "${dirs[@]}" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
if [[ -n $define ]]; then echo "#define $define \"$stamp\""; else echo "$stamp"; fi
