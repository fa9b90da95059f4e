#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Arm (aarch64) targets under emulation: installs the cross toolchain and qemu (scripts/install_arm_deps.sh),
# cross-builds the library and its kernel tests (cmake/aarch64-linux-gnu.cmake; no CLI, Python, CUDA or
# benchmarks), and runs the tests under qemu-aarch64 once per emulated CPU of scripts/arm_cpus.sh, which together
# reach every Highway Arm target: NEON; SVE and SVE2 at 128, 256, 512 and 2048 bits; SVE2_128; SVE_256. The
# tests: float32 (specials, thresholds, every binade, random bit patterns, sizes 0..3 lanes + 1, offsets, in
# place: tests/gelu_f32_test.cc), float64 against MPFR on its sample
# (tests/f64/gelu_f64_test.cc), the 16-bit float path against the double path on all 65,536 inputs
# (tests/half/half_round_test.cc); then the bit-identity of NEON and SVE with the x86 float core on 2^22 inputs
# made from bit patterns (tests/float_core_hash.cc), and every Arm target's bf16/fp16 bits on all 65,536 inputs
# against the x86 build's, which tests/half/half_exhaustive_test.cc proves correctly rounded
# (tests/half/half_hash.cc); the x86 build from build/ when scripts/test.sh made it, else build-x86/. Not the
# entry points' test (tests/entry_points_test.cc: argument rules and thread counts, no per-target code; over 2
# minutes emulated). Called by scripts/test.sh; runs alone too.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
source scripts/arm_cpus.sh

bash scripts/install_arm_deps.sh

echo "== Arm: cross build (aarch64, Release)"
cmake -S . -B build-arm -G Ninja --toolchain cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
  -DGELU_BUILD_BENCHMARKS=OFF -DGELU_BUILD_TOOLS=OFF -DGELU_BUILD_PYTHON=OFF -DGELU_CUDA=OFF -DGELU_INSTALL=OFF
arm_tests=(gelu_f32_test gelu_f64_test half_round_test float_core_hash half_hash)
cmake --build build-arm -j "$jobs" --target "${arm_tests[@]}"

# The test executables run directly under qemu, not through ctest: gtest_discover_tests lists the targets of the
# CPU qemu emulated at build time, and each emulated CPU here supports others. Each run tests every target that CPU
# supports (hwy::TestWithParamTarget); the filter keeps the CPU's targets of scripts/arm_cpus.sh, the ones not run
# at another CPU, and the first CPU also runs the tests that do not depend on the target.
# GELU_RANDOM_INPUTS: 2,000 random bit patterns and 2,000 N(0, 3) inputs instead of 200,000 (the double reference
# runs emulated, ~100x slower), the other random samples of gelu_f32_test scaled alike.
qemu=(qemu-aarch64-static -L /usr/aarch64-linux-gnu)
export GELU_RANDOM_INPUTS=2000
# Each run below is one single-threaded qemu process, so they run side by side, all at once (the longest, SVE at
# 2048 bits, about half of the section's CPU time, bounds its wall time); each run's output is printed whole, in
# the order they were started.
job_dir=$(mktemp -d)
trap 'rm -rf "$job_dir"' EXIT
job_pids=() job_commands=()
spawn() {  # command...: runs it in the background, its stdout and stderr to files of $job_dir
  local n=${#job_pids[@]}
  "$@" >"$job_dir/$n.out" 2>"$job_dir/$n.err" &
  job_pids+=($!) job_commands+=("$*")
}
# Waits for each spawned command in start order, printing its stdout, then its stderr, then its exit status where
# not 0; fails if any was not.
join_all() {
  local n status failed=0
  for n in "${!job_pids[@]}"; do
    status=0
    wait "${job_pids[n]}" || status=$?
    cat "$job_dir/$n.out" "$job_dir/$n.err"
    ((status == 0)) || { echo "Arm: exit status $status: ${job_commands[n]}"; failed=1; }
  done
  job_pids=() job_commands=()
  return $failed
}
# A gtest filter that names a target the emulated CPU lacks selects nothing, and gtest exits 0: before each run,
# the list of tests the filter selects must hold at least one test of every target the run is for (a test name
# ends in /TARGET) and, for a run of no targets, at least one test.
run() {  # cpu, targets (comma-separated, or "" for none), gtest filter, executables...
  local cpu=$1 targets=$2 filter=$3 listing target
  shift 3
  echo "== Arm under qemu-aarch64 -cpu $cpu, $filter"
  for t in "$@"; do
    listing=$(QEMU_CPU=$cpu "${qemu[@]}" "build-arm/tests/$t" --gtest_list_tests --gtest_filter="$filter")
    grep -q '^  ' <<<"$listing" || { echo "Arm: $t under -cpu $cpu selects no test with $filter"; return 1; }
    for target in ${targets//,/ }; do
      grep -Eq "^  [^ ]*/$target( |\$)" <<<"$listing" ||
        { echo "Arm: $t under -cpu $cpu runs no $target test with $filter"; return 1; }
    done
    QEMU_CPU=$cpu "${qemu[@]}" "build-arm/tests/$t" --gtest_brief=1 --gtest_filter="$filter"
  done
}
f32_f64=(gelu_f32_test f64/gelu_f64_test)
untargeted=GeluF64Reference.*:
for entry in "${arm_cpus[@]}"; do
  targets=$(arm_cpu_targets "$entry")
  spawn run "$(arm_cpu "$entry")" "$targets" "*/${targets//,/:*/}:$untargeted-GeluF64Sample.*" "${f32_f64[@]}"
  untargeted=
done
# The 16-bit float path (float core, then the hardware's fp16 conversion or bf16 rounding on the bits, and the
# double path near a midpoint) against the correctly rounded double path, all 65,536 inputs of each form:
# NEON and every SVE target at the shortest length (the second CPU), and SVE, SVE2 at the longest (the last).
spawn run "$(arm_cpu "${arm_cpus[1]}")" "NEON,$(arm_cpu_targets "${arm_cpus[1]}")" '*' half/half_round_test
spawn run "$(arm_cpu "${arm_cpus[-1]}")" SVE,SVE2 '*/SVE:*/SVE2' half/half_round_test
join_all || exit 1

# NEON and SVE compute the x86 float core's bits (same source, FMA everywhere): one hash per function over every
# float-core target, the x86 ones (AVX3 where the CPU has it, AVX2) natively and the Arm ones under qemu (NEON;
# SVE, SVE2 and SVE2_128 at 128 bits, SVE_256 at 256, SVE and SVE2 at 256, 512 and 2048), on the same 2^22 inputs
# (1/1024 of all float32 bit patterns, every binade, specials included; grad_out likewise).
echo "== Arm: NEON and SVE against the x86 float core, bit for bit, on 2^22 inputs per function"
x86_build=build
if [[ ! -f $x86_build/build.ninja ]]; then  # run alone: a build of the library and this program only
  x86_build=build-x86
  cmake -S . -B "$x86_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGELU_BUILD_BENCHMARKS=OFF \
    -DGELU_BUILD_TOOLS=OFF -DGELU_BUILD_PYTHON=OFF -DGELU_CUDA=OFF -DGELU_INSTALL=OFF
fi
cmake --build "$x86_build" -j "$jobs" --target float_core_hash half_hash
# Every function ("fwd-none", "bf16-bwd1-tanh") must carry one hash across all targets of the x86 and Arm outputs.
same_hashes() {  # what, x86 output, Arm output
  printf '%s\n%s\n' "$2" "$3"
  local differing
  differing=$(printf '%s\n%s\n' "$2" "$3" | awk '{print $2, $3}' | sort -u | awk '{print $1}' | uniq -d)
  if [[ -n $differing ]]; then
    echo "$1 differ from the x86 build's on:" $differing
    exit 1
  fi
}
x86_hashes=$("$x86_build/tests/float_core_hash" 22)
arm_float_core_hashes() {  # entry: the hashes of every float-core target its CPU supports, NEON included
  QEMU_CPU=$(arm_cpu "$1") "${qemu[@]}" build-arm/tests/float_core_hash 22 |
    sed "s/^\([^ ]*\) /\1@$(arm_cpu_bits "$1")bit /"
}
for entry in "${arm_cpus[@]:1}"; do spawn arm_float_core_hashes "$entry"; done  # the SVE CPUs
join_all >"$job_dir/arm_hashes" || { cat "$job_dir/arm_hashes"; echo "Arm: float_core_hash failed"; exit 1; }
arm_hashes=$(<"$job_dir/arm_hashes")
# A hash line for every target x vector length of scripts/arm_cpus.sh, NEON at each SVE length too.
for entry in "${arm_cpus[@]:1}"; do
  bits=$(arm_cpu_bits "$entry")
  for target in NEON $(tr , ' ' <<<"$(arm_cpu_targets "$entry")"); do
    grep -q "^$target@${bits}bit " <<<"$arm_hashes" || { echo "no $target@${bits}bit line from the Arm build"; exit 1; }
  done
done
same_hashes "The Arm float cores' float32 bits" "$x86_hashes" "$arm_hashes"

# bf16/fp16: half_exhaustive_test's judge, the double reference emulated, is out of CI's reach (docs/ACCURACY.md),
# so the Arm targets are held to the x86 build's bits instead: every one of the 65,536 inputs of each type,
# every function forward, backward with grad_out = 1 (what half_exhaustive_test proves on x86) and with hashed
# grad_out (tests/half/half_hash.cc). Each SVE length also runs NEON.
echo "== Arm: bf16/fp16 against the x86 build, bit for bit, all 65,536 inputs, every target at each SVE length"
x86_half=$("$x86_build/tests/half/half_hash")
for entry in "${arm_cpus[@]:1}"; do
  bits=$(arm_cpu_bits "$entry")
  arm_half=$(QEMU_CPU=$(arm_cpu "$entry") "${qemu[@]}" build-arm/tests/half/half_hash)
  for target in NEON $(tr , ' ' <<<"$(arm_cpu_targets "$entry")"); do
    grep -q "^$target " <<<"$arm_half" || { echo "no $target line from the Arm build at $bits bits"; exit 1; }
  done
  same_hashes "The Arm targets' bf16/fp16 bits at SVE length $bits bits" "$x86_half" "$arm_half"
done
echo "== Arm: all passed"
