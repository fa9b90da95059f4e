#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bit-identity of the Arm float core with the x86 float core on all 2^32 float32 inputs, under emulation: runs
# tests/float_core_hash.cc --sweep natively (the x86 float-core targets: AVX3 where the CPU has it, AVX2) and in
# the Arm build under qemu-aarch64 per emulated CPU and target, each printing one hash per (target, function,
# chunk of 2^24 consecutive bit patterns; grad_out 1, or with --grad-out hashed from a hash of x's bits), compares
# every Arm line with the x86 line of the same function and chunk, and prints a table: target, vector length,
# function, inputs compared, chunks equal / differing, the first differing chunk; under it, what is proven, what
# is equal so far and what is not run, per target and length of scripts/arm_cpus.sh. Where an Arm target's chunks are
# all equal with grad_out 1, the x86 exhaustive proof (docs/ACCURACY.md; its backward is f', grad_out 1) holds for
# it on those inputs. Not in CI (CI compares 2^22 inputs, scripts/test_arm.sh); run once per kernel change, on the
# trees scripts/test_arm.sh builds (build-arm; build or build-x86).
#   scripts/arm_sweep.sh [--functions fwd-none,bwd-tanh,...] [--chunks A-B] [--grad-out one|hashed]
#                        [--cpu QEMU_CPU[/TARGET,...]]... [--table]
# Default: all six functions, chunks 0-255 (every input), and the CPUs of scripts/arm_cpus.sh (every Arm
# target); a --cpu replaces the list. After a '/', the targets to take from that CPU (none: all it supports).
# --table: run nothing, print the table of what the directory holds.
#
# Resumable: under qemu every Arm target takes more than a session (docs/ACCURACY.md gives the time), so the work
# spans runs, sessions and machines. The lines accumulate in one
# committed directory (docs/arm-sweep, or SWEEP_DIR): x86.txt and arm.txt ("<vector bits> <target> <function>
# <chunk> <hash>", streamed, so an interrupted run's finished chunks count); a run computes only the chunks of a
# listed target that the directory lacks, and the table covers everything in it. The directory is stamped with the
# sources that made its lines (scripts/source_stamp.sh cpu, in its file `kernels`): a run on other sources refuses
# to add to it. Two runs may share the directory at once (appends are whole lines), each on its own
# targets or functions.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every form forward, then backward (the table's order too), from the function table (bench/function_table.py).
all_functions=$(python3 -c 'import sys; sys.path.insert(0, "bench"); import function_table as t
print(",".join(f"{d}-{f}" for d in ("fwd", "bwd") for f in t.FORMS))')
functions=$all_functions
chunks=0-255
grad_out=one
table_only=0
cpus=()
usage() {
  echo "arm_sweep.sh: $1" >&2
  echo "usage: scripts/arm_sweep.sh [--functions fwd-none,bwd-tanh,...] [--chunks A-B] [--grad-out one|hashed]" \
    "[--cpu QEMU_CPU[/TARGET,...]]... [--table]" >&2
  exit 2
}
while (($#)); do
  if [[ $1 == --table ]]; then table_only=1; shift; continue; fi
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
[[ $chunks =~ ^([0-9]+)-([0-9]+)$ ]] && ((BASH_REMATCH[1] <= BASH_REMATCH[2] && BASH_REMATCH[2] <= 255)) ||
  usage "--chunks $chunks: not A-B with 0 <= A <= B <= 255"
first_chunk=${BASH_REMATCH[1]} last_chunk=${BASH_REMATCH[2]}
[[ $grad_out == one || $grad_out == hashed ]] || usage "--grad-out $grad_out: not one or hashed"
source scripts/arm_cpus.sh
((${#cpus[@]})) || cpus=("${arm_cpus[@]}")

out_dir=${SWEEP_DIR:-docs/arm-sweep}
x86_file=$out_dir/x86.txt arm_file=$out_dir/arm.txt stamp_file=$out_dir/kernels

# The table: every Arm line against the x86 line of its function and chunk. Every x86 target must agree on a
# (function, chunk), else that chunk counts as differing for every Arm target; so does an Arm chunk without an
# x86 line, and a chunk whose lines (from two runs) disagree. Rows: targets, then lengths, then functions in
# their usual order. Under the table, the status of every target and length of scripts/arm_cpus.sh for every
# function with grad_out 1: proven (all 256 chunks equal, so the x86 exhaustive bounds hold), equal on the
# chunks compared so far, differing, or not run. Exit status 1 when any chunk differs.
print_table() {
  local configs="" entry t
  for entry in "${arm_cpus[@]}"; do
    for t in $(arm_cpu_targets "$entry" | tr , ' '); do configs+="$t $(arm_cpu_bits "$entry"),"; done
  done
  echo "== $out_dir: $(cat "$stamp_file")"
  awk -v chunk_inputs=$((1 << 24)) -v x86_file="$x86_file" -v all_functions="$all_functions" \
      -v configs="${configs%,}" '
    FNR == 1 { arm = FILENAME != x86_file }
    !arm {
      key = $2 " " $3
      if (key in x86 && x86[key] != $4) x86[key] = "disagree"; else if (!(key in x86)) x86[key] = $4
      next
    }
    {
      line = $1 " " $2 " " $3 " " $4
      if (line in seen) { if (seen[line] != $5) unstable[line] = 1; next }
      seen[line] = $5
      row = $2 " " $1 " " $3
      if (!(row in chunks)) {
        fn = $3; hashed = sub(/\*hashed-grad-out$/, "", fn)
        rank[row] = index("NEON SVE SVE2 SVE2_128 SVE_256 ", $2 " ") * 1e7 + $1 * 1000 + \
                    index("," all_functions ",", "," fn ",") + 100 * hashed
        order[++rows] = row
      }
      chunks[row]++
      if (!(row in low) || $4 + 0 < low[row]) low[row] = $4 + 0
      if (!(row in high) || $4 + 0 > high[row]) high[row] = $4 + 0
    }
    # Appends a line "  name: item" to the status list s, or ", item" when name is the one last added.
    function status_add(s, name, item) {
      if (last[s] == name) { list[s] = list[s] ", " item; return }
      list[s] = list[s] "\n  " name ": " item
      last[s] = name
    }
    END {
      for (line in seen) {
        split(line, f, " ")
        row = f[2] " " f[1] " " f[3]
        if (x86[f[3] " " f[4]] == seen[line] && !(line in unstable)) { equal[row]++; continue }
        differing[row]++
        if (!(row in first) || f[4] + 0 < first[row]) first[row] = f[4] + 0
      }
      for (i = 2; i <= rows; ++i)  # insertion sort by rank
        for (j = i; j > 1 && rank[order[j]] < rank[order[j - 1]]; --j) {
          t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
        }
      printf "%-9s %-7s %-27s %16s %7s %10s %16s\n", "target", "vector", "function", "inputs compared", "equal",
             "differing", "first differing"
      bad = 0
      for (r = 1; r <= rows; ++r) {
        split(order[r], f, " ")
        printf "%-9s %-7s %-27s %16.0f %7d %10d %16s\n", f[1], f[2] " b", f[3], chunks[order[r]] * chunk_inputs,
               equal[order[r]], differing[order[r]], order[r] in first ? "chunk " first[order[r]] : "-"
        bad += differing[order[r]]
      }
      nf = split(all_functions, fns, ",")
      nc = split(configs, cfg, ",")
      for (c = 1; c <= nc; ++c) {
        split(cfg[c], tb, " ")
        name = tb[1] " " tb[2] " b"
        proven_fns = 0
        run_fns = 0
        for (k = 1; k <= nf; ++k) run_fns += (tb[1] " " tb[2] " " fns[k]) in chunks
        if (run_fns == 0) { status_add("not run", name, "every function"); continue }
        for (k = 1; k <= nf; ++k) {
          row = tb[1] " " tb[2] " " fns[k]
          if (!(row in chunks)) { status_add("not run", name, fns[k]); continue }
          if (differing[row] > 0) { status_add("differing", name, fns[k] " (first chunk " first[row] ")"); continue }
          if (equal[row] == 256) { ++proven_fns; continue }
          span = high[row] - low[row] + 1 == equal[row] ? "chunks " low[row] "-" high[row] : equal[row] " chunks"
          status_add("equal so far", name, fns[k] " (" span ")")
        }
        if (proven_fns == nf) status_add("proven", name, "every function")
        else
          for (k = 1; k <= nf; ++k) {
            row = tb[1] " " tb[2] " " fns[k]
            if (equal[row] == 256 && differing[row] == 0) status_add("proven", name, fns[k])
          }
      }
      heading["proven"] = "proven, every chunk equal (all 2^32 inputs, grad_out 1)"
      heading["equal so far"] = "equal on every chunk compared, not yet all 256"
      heading["differing"] = "differing"
      heading["not run"] = "not run"
      split("proven,equal so far,differing,not run", statuses, ",")
      printf "\n"
      for (k = 1; k <= 4; ++k) {
        if (statuses[k] == "differing" && list["differing"] == "") continue
        printf "%s:%s\n", heading[statuses[k]], list[statuses[k]] == "" ? " none" : list[statuses[k]]
      }
      exit bad > 0
    }' "$x86_file" "$arm_file"
}

if ((table_only)); then
  [[ -f $stamp_file ]] || { echo "arm_sweep.sh: $out_dir holds no sweep" >&2; exit 1; }
  print_table
  exit
fi

x86_build=build
[[ -f $x86_build/build.ninja ]] || x86_build=build-x86
for tree in build-arm "$x86_build"; do
  [[ -f $tree/build.ninja ]] || { echo "arm_sweep.sh: no $tree/build.ninja: run scripts/test_arm.sh first" >&2; exit 1; }
  # Two runs may start together (one per core, on different targets): one build at a time per tree.
  flock "$tree/.arm_sweep.lock" cmake --build "$tree" -j "$(nproc)" --target float_core_hash >/dev/null
done

# The sources the two builds were just made from (scripts/source_stamp.sh: the stamp of every recorded proof).
kernels=$(bash scripts/source_stamp.sh cpu)
mkdir -p "$out_dir"
if [[ -f $stamp_file && $(cat "$stamp_file") != "$kernels" ]]; then
  echo "arm_sweep.sh: $out_dir holds the sweep of $(cat "$stamp_file"), not of these kernels ($kernels):" \
    "move it away or set SWEEP_DIR" >&2
  exit 1
fi
echo "$kernels" >"$stamp_file"
touch "$x86_file" "$arm_file"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The chunk ranges "A-B" of --chunks for which $file lacks a line of target $2 (any target where $2 is empty) and
# function $3 (the printed name) at vector length $1 (x86 lines have no length: empty).
missing_ranges() {
  awk -v bits="$1" -v target="$2" -v fn="$3" -v a="$first_chunk" -v b="$last_chunk" '
    (bits == "" ? $2 == fn && (target == "" || $1 == target) \
                : $1 == bits && $2 == target && $3 == fn) { have[bits == "" ? $3 : $4] = 1 }
    END {
      for (c = a; c <= b + 1; ++c) {
        if (c <= b && !(c in have)) { if (start == "") start = c; continue }
        if (start != "") { print start "-" (c - 1); start = "" }
      }
    }' "$file"
}
printed_name() { [[ $1 == bwd-* && $grad_out == hashed ]] && echo "$1*hashed-grad-out" || echo "$1"; }

echo "== x86 ($x86_build), natively: $functions, chunks $chunks, grad_out $grad_out"
file=$x86_file
for function in ${functions//,/ }; do
  for range in $(missing_ranges "" "" "$(printed_name "$function")"); do
    # Appended only once complete: every x86 target's lines for the range, or none.
    "$x86_build/tests/float_core_hash" --sweep --chunks "$range" --functions "$function" --grad-out "$grad_out" \
      >"$scratch/x86.part"
    cat "$scratch/x86.part" >>"$x86_file" && rm "$scratch/x86.part"
  done
done

file=$arm_file
for entry in "${cpus[@]}"; do
  cpu=$(arm_cpu "$entry") targets=$(arm_cpu_targets "$entry") bits=$(arm_cpu_bits "$entry")
  echo "== Arm under qemu-aarch64 -cpu $cpu${targets:+ ($targets)}: $functions, chunks $chunks, grad_out $grad_out"
  # A CPU given without targets runs every chunk (which targets it reaches is known only by running it).
  target_list=(${targets//,/ })
  ((${#target_list[@]})) || target_list=("")
  for target in "${target_list[@]}"; do
    for function in ${functions//,/ }; do
      ranges=$chunks
      [[ -n $target ]] && ranges=$(missing_ranges "$bits" "$target" "$(printed_name "$function")")
      for range in $ranges; do
        QEMU_CPU=$cpu qemu-aarch64-static -L /usr/aarch64-linux-gnu build-arm/tests/float_core_hash --sweep \
          --chunks "$range" --functions "$function" --grad-out "$grad_out" ${target:+--targets "$target"} \
          2>"$scratch/arm.err" | sed -u "s/^/$bits /" >>"$arm_file" || {
          # A CPU none of whose listed targets runs the float core prints nothing; other failures stop.
          grep -q 'no float-core target' "$scratch/arm.err" || { cat "$scratch/arm.err" >&2; exit 1; }
          echo "   no float-core target ${target:-at all} at -cpu $cpu"
          break 2
        }
      done
    done
  done
done
print_table
