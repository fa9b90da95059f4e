#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the .npy fuzz target with clang + libFuzzer + ASan + UBSan and fuzzes it for a bounded time.
#   usage: tests/fuzz/run_fuzz.sh [SECONDS=60] [BUILD_DIR=build-fuzz]
# Needs clang and its fuzzer runtime (Debian 12: clang-14 + libclang-rt-14-dev, in scripts/install_deps.sh).
# Starts from a copy of tests/fuzz/corpus (the committed corpus is never modified); any crash, leak, sanitizer
# report, timeout (> 10 s on one input) or abort by the target's own checks fails the script, and the input
# that caused it is kept as BUILD_DIR/crash-* (or leak-*, timeout-*) to add to the corpus once fixed.
set -euo pipefail

seconds=${1:-60}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$root/build-fuzz}
cxx=${FUZZ_CXX:-clang++}
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "run_fuzz.sh: SECONDS must be a positive integer, not '$seconds'" >&2
  exit 2
fi
command -v "$cxx" >/dev/null || { echo "run_fuzz.sh: $cxx not found (apt-get install clang)" >&2; exit 2; }

# gelu_npy's sources, read from the one list of them (tools/CMakeLists.txt).
read -r -a npy_sources <<<"$(sed -n 's/^add_library(gelu_npy STATIC \(.*\))$/\1/p' "$root/tools/CMakeLists.txt")"
((${#npy_sources[@]} > 0)) || { echo "run_fuzz.sh: no gelu_npy sources in tools/CMakeLists.txt" >&2; exit 2; }
mkdir -p "$build"
echo "run_fuzz.sh: building $build/npy_fuzz with $("$cxx" --version | head -1)"
if ! "$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=all -I"$root" "${npy_sources[@]/#/$root/tools/}" \
    "$root/tests/fuzz/npy_fuzz.cc" -o "$build/npy_fuzz"; then
  echo "run_fuzz.sh: build failed; is the libFuzzer runtime installed? (Debian 12: apt-get install libclang-rt-14-dev)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gelu-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$root"/tests/fuzz/corpus/* "$work"/
echo "run_fuzz.sh: fuzzing for $seconds s from $(ls "$work" | wc -l) seed inputs"
# -max_len: headers plus a little data; longer inputs only repeat the data copy. One process: CI has 2 cores.
"$build/npy_fuzz" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -dict="$root/tests/fuzz/npy.dict" -artifact_prefix="$build/" -print_final_stats=1 "$work"
echo "run_fuzz.sh: no crash in $seconds s ($(ls "$work" | wc -l) inputs in the final corpus)"
