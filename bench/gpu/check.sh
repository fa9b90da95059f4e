#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU check, in one run: build gelu_cuda for sm_90 with nvcc alone, run the GPU tests, time every form forward
# and backward (fp32, bf16, fp16) beside a device-to-device copy, compare with PyTorch where it imports (its kernels, its
# accuracy, its unfused composition of the fused kernels, the seed's 1000-call benchmark), profile the kernels with Nsight Compute where ncu runs, build the Python
# module with CUDA and run the Python CUDA tests (bench/gpu/python_cuda.sh), print one table last and write a log.
# The C++ half needs only nvcc (and the host compiler it drives); the Python half needs CMake, ninja, pybind11 and
# PyTorch (the GPU image has them) and Highway, carried as Debian packages: run bench/gpu/prepare_carry.sh here
# first and carry build-gpu-carry (device tool: carry ["build-gpu-carry"]).
#
# Usage: bench/gpu/check.sh [--quick] [--variants] [--out DIR]
#   --quick   skip the 2^32-input checks, the 2^34-element array and the Nsight Compute pass (the PyTorch
#             accuracy sweep stays: seconds on the GPU)
#   --variants  also bench/gpu/launch_variants.sh: its builds overlap the GPU work once a GPU is found; its
#             checks and timings run last, its table after this script's (OUT_DIR/variants.md)
#   --out     where the build, logs and CSVs go (default: build-gpu-check)
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), GELU_CUDA_ARCH (default 90),
#   GELU_BENCH_N (elements, default 268435456 = 2^28), GELU_BENCH_REPS (default 25), PYTHON (default python3).
#   GELU_REQUIRE_GPU (default 1 here): a GPU test that cannot run is a failure, not a skip; so without a GPU this
#   script fails. GELU_REQUIRE_GPU=0 on a machine without a GPU: build and the device-free checks only (exit 77).
# Exit status: 0 all tests passed (and timings taken), 1 a build or test failed, 77 no GPU (built, not run; only
#   with GELU_REQUIRE_GPU=0).
set -uo pipefail
cd "$(dirname "$0")/../.."
# This script is the GPU run: a GPU test it cannot run fails it (tests/cuda/gpu_availability.h, SkipIsFailure).
export GELU_REQUIRE_GPU="${GELU_REQUIRE_GPU:-1}"

quick=0
variants=0
out=build-gpu-check
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --variants) variants=1 ;;
    --out) out="$2"; shift ;;
    *) echo "usage: $0 [--quick] [--variants] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out"
log="$out/check.log"
exec > >(tee "$log") 2>&1
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start )) s"; }

nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
if [ ! -x "$nvcc" ]; then
  echo "check.sh: no nvcc (set NVCC or put it on PATH); nothing built"
  exit 1
fi
arch="${GELU_CUDA_ARCH:-90}"
python="${PYTHON:-python3}"
echo "== gelu GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
# The stamp of the CUDA sources this run proves (scripts/source_stamp.sh), kept with its logs: a run's directory
# under docs/gpu-runs holds it as `sources`, and scripts/proofs.py states the GPU proof current or stale from it.
bash scripts/source_stamp.sh cuda > "$out/sources"
echo "$(cat "$out/sources") (written to $out/sources)"
echo "nvcc: $("$nvcc" --version | tail -1); host: $(nproc) cores"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null ||
  echo "nvidia-smi: not available"

# ---- Build: the library (static CUDA runtime) and the two drivers, with nvcc alone.
source bench/gpu/nvcc_flags.sh  # common, cu_flags, host_flags
echo "== build ($out)"
"$nvcc" "${common[@]}" "${cu_flags[@]}" -c src/cuda/gelu.cu -o "$out/gelu.o" &
lib_pid=$!
"$nvcc" "${common[@]}" "${cu_flags[@]}" -c src/cuda/gelu_fused.cu -o "$out/gelu_fused.o" &
fused_pid=$!
"$nvcc" "${common[@]}" -Xcompiler "$host_flags" -c tests/cuda/gelu_cuda_check.cc -o "$out/gelu_cuda_check.o" &
check_pids=($!)
# The checks' helpers (tests/cuda/CMakeLists.txt, gelu_cuda_test_support): every .cc there but the tests and the
# driver itself.
support_objs=()
for src in tests/cuda/*.cc; do
  case "$src" in *_test.cc | */gelu_cuda_check.cc) continue ;; esac
  obj="$out/test_support_$(basename "$src" .cc).o"
  "$nvcc" "${common[@]}" -Xcompiler "$host_flags" -c "$src" -o "$obj" &
  check_pids+=($!)
  support_objs+=("$obj")
done
"$nvcc" "${common[@]}" -Xcompiler "$host_flags" -c bench/gpu/gelu_gpu_bench.cc -o "$out/gelu_gpu_bench.o" &
bench_pid=$!
build_ok=1
for pid in $lib_pid $fused_pid "${check_pids[@]}" $bench_pid; do wait "$pid" || build_ok=0; done
if [ "$build_ok" = 1 ]; then
  "$nvcc" -shared "$out/gelu.o" "$out/gelu_fused.o" -o "$out/libgelu_cuda.so" || build_ok=0
fi
if [ "$build_ok" = 1 ]; then
  "$nvcc" -Xcompiler -pthread,-fopenmp "$out/gelu_cuda_check.o" "${support_objs[@]}" -L"$out" -lgelu_cuda \
    -Xlinker -rpath,'$ORIGIN' -o "$out/gelu_cuda_check" || build_ok=0
  "$nvcc" -Xcompiler -pthread,-fopenmp "$out/gelu_gpu_bench.o" -L"$out" -lgelu_cuda -Xlinker -rpath,'$ORIGIN' \
    -o "$out/gelu_gpu_bench" || build_ok=0
fi
if [ "$build_ok" != 1 ]; then
  echo "check.sh: BUILD FAILED ($(elapsed))"
  exit 1
fi
echo "built in $(elapsed)"

# ---- Tests: gelu_cuda against the host evaluation of the same source (tests/cuda/gpu_checks.h).
echo "== GPU tests"
test_args=()
[ "$quick" = 1 ] && test_args+=(--quick)
"$out/gelu_cuda_check" "${test_args[@]}" | tee "$out/tests.log"
test_rc=${PIPESTATUS[0]}
if grep -q '^FAILED: NO GPU' "$out/tests.log"; then
  echo "check.sh: FAILED: NO GPU on this machine, and GELU_REQUIRE_GPU=1: the GPU tests could not run ($(elapsed))."
  echo "Run this script on a machine with an NVIDIA GPU (GELU_REQUIRE_GPU=0: build and device-free checks only)."
  exit 1
fi
if [ "$test_rc" = 77 ]; then
  echo "check.sh: NO GPU on this machine: built everything, ran the device-free checks; no GPU tests and no"
  echo "timings were possible ($(elapsed)). Run this script on a machine with an NVIDIA GPU."
  exit 77
fi
echo "GPU tests: exit $test_rc ($(elapsed))"
# A GPU is there: the variants' builds (CPU) overlap the GPU work that follows.
if [ "$variants" = 1 ]; then
  bash bench/gpu/launch_variants.sh --build "$out/variants" > "$out/variants_build.log" 2>&1 &
  variants_pid=$!
fi
# The 16-bit kernels look most inputs up in tables (src/cuda/gelu.cu); the same checks with the tables off cover
# the computed path at large n too (sizes/offsets and the 16-bit forward inputs; same bits expected).
echo "== GPU tests, 16-bit tables off (GELU_CUDA_HALF_TABLES=0)"
GELU_CUDA_HALF_TABLES=0 "$out/gelu_cuda_check" --quick
notables_rc=$?
[ "$notables_rc" = 0 ] || test_rc=1

# ---- Timings.
n="${GELU_BENCH_N:-268435456}"
reps="${GELU_BENCH_REPS:-25}"
echo "== gelu_gpu_bench (n = $n)"
"$out/gelu_gpu_bench" --n "$n" --reps "$reps" --csv "$out/bench.csv"
bench_rc=$?
echo "== gelu_gpu_bench, bf16 with the tables off (every element computed)"
GELU_CUDA_HALF_TABLES=0 "$out/gelu_gpu_bench" --n "$n" --reps "$reps" --types bf16 --csv "$out/bench_notables.csv"

# ---- Nsight Compute: throughput, memory and launch figures of every kernel once (f32 and bf16, 2^26 elements:
# far past L2, short to replay). Optional: ncu is missing or cannot read the counters on some machines.
if [ "$quick" = 0 ] && command -v ncu >/dev/null; then
  echo "== Nsight Compute (ncu; log $out/ncu.txt)"
  timeout 300 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    -k 'regex:Gelu|Bias|Geglu' --launch-skip 0 --launch-count 24 \
    "$out/gelu_gpu_bench" --n 67108864 --reps 1 --types f32,bf16 > "$out/ncu.txt" 2>&1
  echo "ncu: exit $? ($(grep -c 'DRAM Throughput' "$out/ncu.txt") kernels profiled)"
  grep -E '^  [A-Za-z].*\(|DRAM Throughput|Memory Throughput|Duration|Registers Per Thread|Achieved Occupancy' \
    "$out/ncu.txt" | head -200
fi

# ---- The Python module with CUDA kernels, and the Python CUDA tests (gelu.torch on CUDA tensors).
python_rc=0
bash bench/gpu/python_cuda.sh "$out/python" || python_rc=$?
[ "$python_rc" = 0 ] || echo "check.sh: the Python CUDA step FAILED (exit $python_rc)"
[ "$python_rc" = 0 ] || test_rc=1

torch_rc=77
if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "== PyTorch comparison"
  compare_args=(--seed-bench --fused --accuracy)
  PYTHONPATH="$out/python/python${PYTHONPATH:+:$PYTHONPATH}" "$python" bench/gpu/torch_compare.py \
    --lib "$out/libgelu_cuda.so" --n "$n" --reps "$reps" "${compare_args[@]}" --csv "$out/torch.csv" |
    tee "$out/table.md"
  torch_rc=${PIPESTATUS[0]}
else
  echo "== PyTorch with CUDA not importable: table without the PyTorch columns"
fi

if [ "$variants" = 1 ]; then
  echo "== launch variants (bench/gpu/launch_variants.sh; build log $out/variants_build.log)"
  wait "$variants_pid"
  GELU_CHECK_BIN="$out/gelu_cuda_check" bash bench/gpu/launch_variants.sh --time "$out/variants" | tee "$out/variants.md"
fi

echo
echo "== Summary ($(elapsed)); log: $log"
echo "GPU tests: $([ "$test_rc" = 0 ] && echo PASSED || echo "FAILED (exit $test_rc)")"
echo "Python CUDA tests: $([ "$python_rc" = 0 ] && echo PASSED || echo "FAILED (exit $python_rc)")"
grep '^seed benchmark' "$out/table.md" 2>/dev/null || true
if [ -s "$out/bench_notables.csv" ]; then
  echo "For reference, bf16 with the tables off (GELU_CUDA_HALF_TABLES=0; gelu_gpu_bench, same columns):"
  tail -n +2 "$out/bench_notables.csv" | awk -F, '$1 != "copy" {printf "| %s | %s, no tables, %s | %.4f | %.0f | %.1f%% |\n", $1, $2, $7, $3, $4, $5}'
fi
echo
if [ "$torch_rc" = 0 ]; then
  sed -n '/^| kernel/,$p' "$out/table.md"
else
  echo "| kernel | type | inputs | ms | GB/s | % of copy | Gelem/s |"
  echo "|---|---|---|---:|---:|---:|---:|"
  tail -n +2 "$out/bench.csv" | awk -F, '{printf "| %s | %s | %s | %.4f | %.0f | %.1f%% | %.1f |\n", $1, $2, $7, $3, $4, $5, $6}'
fi
[ "$test_rc" = 0 ] && [ "$bench_rc" = 0 ] && { [ "$torch_rc" = 0 ] || [ "$torch_rc" = 77 ]; } && exit 0
exit 1
