#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every test: installs the Debian packages and the Python environment (scripts/install_python_env.sh), builds
# everything (library, CLI, Python module, CUDA code where nvcc exists and always under CI=true, benchmarks), runs
# the fast tests, the exhaustive accuracy tests (label `exhaustive`), the fast tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer, the .npy fuzzer for a bounded time, and the Arm targets under qemu (scripts/test_arm.sh).
# Every ctest call fails if it finds no test to run.
# Fails (non-zero exit) on the first failing step. README.md names this script; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# Stage times: each `stage NAME` ends the running stage and starts NAME; the table of wall seconds is printed at
# the end and written to out/test_stage_times.md (with the CPU, the commit and the date), so that a run's log and
# its docs give where CI's time goes.
stage_names=() stage_seconds=()
stage_started=$SECONDS
stage() {
  local now=$SECONDS
  if ((${#stage_names[@]} > 0)); then stage_seconds+=($((now - stage_started))); fi
  stage_started=$now
  if [[ $# -gt 0 ]]; then
    stage_names+=("$1")
    echo "== $1"
  fi
}
stage_table() {
  local k total=0
  echo "| stage | seconds |"
  echo "|---|---:|"
  for k in "${!stage_names[@]}"; do
    echo "| ${stage_names[k]} | ${stage_seconds[k]} |"
    total=$((total + stage_seconds[k]))
  done
  echo "| all | $total |"
}

stage "install (Debian packages, Python environment)"

bash scripts/install_deps.sh
py=$(bash scripts/install_python_env.sh | tail -1)  # the Python of every test (torch 2.x, NumPy, pytest, ...)
[[ -x /usr/local/cuda/bin/nvcc ]] && export PATH=$PATH:/usr/local/cuda/bin
# CI builds the CUDA code (its host tests compare the CUDA host evaluation with the CPU library) or fails: a runner
# without nvcc must not drop those tests silently. Elsewhere the CUDA code is built where nvcc is found.
cuda=AUTO
if [[ "${CI:-}" == true ]]; then
  cuda=ON
elif ! command -v nvcc > /dev/null; then
  echo "== NOTE: no nvcc on this machine: the CUDA code and its host tests are not built" >&2
fi

stage "build (Release)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGELU_BUILD_PYTHON=ON -DGELU_CUDA="$cuda" \
  -DPython_EXECUTABLE="$py"
cmake --build build -j "$jobs"

stage "fast tests"
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs" -LE exhaustive

stage "exhaustive tests (all 2^32 float32 inputs, every target; MPFR samples for float64)"
# The float32 targets the exhaustive test must sweep (it fails if one was not): every compiled target this CPU
# supports but the one-lane fallbacks, unless the caller names them (e.g. AVX3,AVX2,SSE4,SSSE3, so that a runner
# without AVX-512 fails instead of sweeping less).
export GELU_EXHAUSTIVE_TARGETS="${GELU_EXHAUSTIVE_TARGETS:-supported}"
ctest --test-dir build --output-on-failure --no-tests=error -V -L exhaustive

stage "build under AddressSanitizer + UndefinedBehaviorSanitizer"
# -O1 (ASan's advice), not RelWithDebInfo's -O2: the same tests and checks, and the instrumented Highway kernels
# (gelu_fused.cc, elementwise_storage.cc, gelu_f64.cc: every target each) compile in about a third of the time, which
# was most of this stage (docs/EXPERIMENTS.md, "Test time").
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGELU_SANITIZE=address,undefined \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
  -DGELU_BUILD_BENCHMARKS=OFF -DGELU_BUILD_PYTHON=OFF -DGELU_CUDA=OFF -DPython_EXECUTABLE="$py"
cmake --build build-asan -j "$jobs"
stage "fast tests under AddressSanitizer + UndefinedBehaviorSanitizer"
# Not the two `gelu report` failure tests (Cli.ReportWhose*: a whole report, about 30 s instrumented, two or three
# times each, 150 of this stage's 450 CPU seconds on the 2-core Xeon): the report's code runs instrumented in
# Cli.ReportStatesTheCorrectFactsAndWritesEverything, and those two run in the fast stage above.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure --no-tests=error -j "$jobs" -LE 'exhaustive|no_sanitizer' \
  -E '^Cli[.]ReportWhose'

stage ".npy reader fuzzer (libFuzzer + ASan + UBSan, 60 s)"
bash tests/fuzz/run_fuzz.sh 60

stage "Arm targets under qemu (cross build, NEON, SVE, SVE2 at 128..2048 bits, SVE_256, SVE2_128)"
bash scripts/test_arm.sh

stage
mkdir -p out
{
  echo "scripts/test.sh stage times (wall seconds): $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs," \
    "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  stage_table
} | tee out/test_stage_times.md
echo "== all tests passed"
