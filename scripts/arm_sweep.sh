#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bit-identity of the Arm float core with the x86 float core on all 2^32 float32 inputs, under emulation: runs
# tests/float_core_hash.cc --sweep natively (the x86 float-core targets: AVX3 where the CPU has it, AVX2) and in
# the Arm build under qemu-aarch64 once per emulated CPU, each printing one hash per (target, function, chunk of
# 2^24 consecutive bit patterns; grad_out 1, or with --grad-out hashed from a hash of x's bits), compares every Arm
# line with the x86 line of the same function and chunk, and prints a table: target, vector length, function,
# inputs compared, chunks equal / differing, the first differing chunk. Where an Arm target's chunks are all
# equal with grad_out 1, the x86 exhaustive proof (docs/ACCURACY.md; its backward is f', grad_out 1) holds for it
# on those inputs. Not in CI (CI compares 2^22 inputs, scripts/test_arm.sh);
# run once per kernel change, on the trees scripts/test_arm.sh builds (build-arm; build or build-x86).
#   scripts/arm_sweep.sh [--functions fwd-none,bwd-tanh,...] [--chunks A-B] [--grad-out one|hashed]
#                        [--cpu QEMU_CPU[/TARGET,...]]...
# Default: all six functions, chunks 0-255 (every input), and the CPUs of scripts/arm_cpus.sh (every Arm
# target); a --cpu replaces the list. After a '/', the targets to take from that CPU (none: all it supports).
# Each CPU's run streams its lines into $out_dir (default build-arm/sweep, or SWEEP_DIR), so an interrupted run's
# finished chunks still count; the table says how many were compared. Throughput under qemu, NEON, exact forward:
# 2^24 inputs in 3 to 17 s by chunk (~30 CPU-minutes for all 2^32, one function; docs/ACCURACY.md).
set -euo pipefail
cd "$(dirname "$0")/.."

functions=fwd-none,fwd-tanh,fwd-sigmoid,bwd-none,bwd-tanh,bwd-sigmoid
chunks=0-255
grad_out=one
cpus=()
usage() {
  echo "arm_sweep.sh: $1" >&2
  echo "usage: scripts/arm_sweep.sh [--functions fwd-none,bwd-tanh,...] [--chunks A-B] [--grad-out one|hashed]" \
    "[--cpu QEMU_CPU[/TARGET,...]]..." >&2
  exit 2
}
while (($#)); do
  (($# >= 2)) || usage "$1 needs a value"
  case $1 in
    --functions) functions=$2 ;;
    --chunks) chunks=$2 ;;
    --grad-out) grad_out=$2 ;;
    --cpu) cpus+=("$2") ;;
    *) usage "unknown option $1" ;;
  esac
  shift 2
done
source scripts/arm_cpus.sh
((${#cpus[@]})) || cpus=("${arm_cpus[@]}")

x86_build=build
[[ -f $x86_build/build.ninja ]] || x86_build=build-x86
for tree in build-arm "$x86_build"; do
  [[ -f $tree/build.ninja ]] || { echo "arm_sweep.sh: no $tree/build.ninja: run scripts/test_arm.sh first" >&2; exit 1; }
  cmake --build "$tree" -j "$(nproc)" --target float_core_hash >/dev/null
done
out_dir=${SWEEP_DIR:-build-arm/sweep}
mkdir -p "$out_dir"
sweep=(--sweep --chunks "$chunks" --functions "$functions" --grad-out "$grad_out")

echo "== x86 ($x86_build), natively: $functions, chunks $chunks, grad_out $grad_out"
"$x86_build/tests/float_core_hash" "${sweep[@]}" >"$out_dir/x86.txt"

# One file per CPU: "<vector bits> <target> <function> <chunk> <hash>" lines.
arm_files=()
for i in "${!cpus[@]}"; do
  cpu=$(arm_cpu "${cpus[$i]}") targets=$(arm_cpu_targets "${cpus[$i]}") bits=$(arm_cpu_bits "${cpus[$i]}")
  file=$out_dir/arm-$i.txt
  arm_files+=("$file")
  echo "== Arm under qemu-aarch64 -cpu $cpu${targets:+ ($targets)}: $functions, chunks $chunks, grad_out $grad_out"
  # A CPU none of whose listed targets runs the float core prints nothing (the table says so); other failures stop.
  QEMU_CPU=$cpu qemu-aarch64-static -L /usr/aarch64-linux-gnu build-arm/tests/float_core_hash "${sweep[@]}" \
    ${targets:+--targets "$targets"} 2>"$out_dir/arm-$i.err" | sed -u "s/^/$bits /" >"$file" || {
    grep -q 'no float-core target' "$out_dir/arm-$i.err" || { cat "$out_dir/arm-$i.err" >&2; exit 1; }
    echo "   no float-core target${targets:+ among $targets} at -cpu $cpu"
  }
done

# The table. x86 lines: every x86 target must agree on each (function, chunk), else that chunk counts as
# differing for every Arm target.
awk -v chunk_inputs=$((1 << 24)) '
  FNR == 1 { arm = FILENAME != x86_file }
  !arm {
    key = $2 " " $3
    if (key in x86 && x86[key] != $4) x86[key] = "disagree"; else if (!(key in x86)) x86[key] = $4
    next
  }
  {
    row = $2 " " $1 " " $3
    if (!(row in chunks)) order[++rows] = row
    chunks[row]++
    if (x86[$3 " " $4] == $5) equal[row]++
    else { differing[row]++; if (!(row in first)) first[row] = $4 }
  }
  END {
    printf "%-9s %-7s %-12s %16s %7s %10s %16s\n", "target", "vector", "function", "inputs compared", "equal",
           "differing", "first differing"
    bad = 0
    for (r = 1; r <= rows; ++r) {
      split(order[r], f, " ")
      printf "%-9s %-7s %-12s %16.0f %7d %10d %16s\n", f[1], f[2] " b", f[3], chunks[order[r]] * chunk_inputs,
             equal[order[r]], differing[order[r]], order[r] in first ? "chunk " first[order[r]] : "-"
      bad += differing[order[r]]
    }
    exit bad > 0
  }' x86_file="$out_dir/x86.txt" "$out_dir/x86.txt" "${arm_files[@]}"
