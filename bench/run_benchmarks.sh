#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The benchmark summary: builds the library and bench/gelu_benchmark if needed, runs the suite (ours, copy floor,
# naive loop, oneDNN, every Highway target) and the PyTorch peer, then prints the tables of docs/BENCHMARKS.md
# with the issue's speed targets marked met or missed. About 4 minutes on 2 cores; --quick takes well under one.
#
#   bench/run_benchmarks.sh [--quick]
#   env: BUILD_DIR (build-bench), OUT_DIR ($BUILD_DIR/results), GELU_BENCH_MIN_TIME (0.05 s per repetition),
#        GELU_BENCH_REPETITIONS (3), GELU_BENCH_FILTER (a regex over benchmark names; '.' = all),
#        GELU_BASELINE_REV (default below, the speed issue's baseline: the commit measured beside this one as
#        impl `baseline`, built as a shared library under $BUILD_DIR/baseline from `git archive`; empty = none)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${BUILD_DIR:-build-bench}
out_dir=${OUT_DIR:-$build_dir/results}
min_time=${GELU_BENCH_MIN_TIME:-0.05}
reps=${GELU_BENCH_REPETITIONS:-3}
filter=${GELU_BENCH_FILTER:-.}
torch_args=()
if [[ ${1:-} == --quick ]]; then
  # A smoke run: in-cache and out-of-cache sizes only, one short repetition, fewer torch samples.
  min_time=0.02 reps=1 filter='/(65536|16777216)(/|$)' torch_args=(--repeats 3 --sample-ms 10)
fi

# A shared library, so that peers_torch.py can load it with ctypes; the suite links the same one.
if [[ ! -f $build_dir/build.ninja ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
    -DGELU_BUILD_TESTS=OFF -DGELU_BUILD_TOOLS=OFF -DGELU_INSTALL=OFF -DGELU_CUDA=OFF
fi
cmake --build "$build_dir" -j 2 --target gelu gelu_benchmark
lib=$build_dir/libgelu.so
[[ -f $lib ]] || { echo "run_benchmarks: $lib missing; configure $build_dir with -DBUILD_SHARED_LIBS=ON" >&2; exit 1; }
mkdir -p "$out_dir"

# The baseline: the same library at an earlier commit, loaded into the same process (gelu_benchmark.cc).
baseline_rev=${GELU_BASELINE_REV-7f5bb4a}
if [[ -n $baseline_rev ]]; then
  base_dir=$build_dir/baseline/$baseline_rev
  if [[ ! -f $base_dir/build/libgelu.so ]]; then
    rm -rf "$base_dir" && mkdir -p "$base_dir/src"
    git archive "$baseline_rev" | tar -x -C "$base_dir/src"
    cmake -S "$base_dir/src" -B "$base_dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
      -DGELU_BUILD_TESTS=OFF -DGELU_BUILD_TOOLS=OFF -DGELU_BUILD_BENCHMARKS=OFF -DGELU_BUILD_PYTHON=OFF \
      -DGELU_INSTALL=OFF -DGELU_CUDA=OFF > "$base_dir/configure.log"
    cmake --build "$base_dir/build" -j 2 --target gelu
  fi
  export GELU_BENCH_BASELINE=$PWD/$base_dir/build/libgelu.so
  echo "== baseline: $baseline_rev ($GELU_BENCH_BASELINE)"
fi

echo "== machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# Repetitions interleaved at random across benchmarks, so slow drifts in the machine's load hit every row alike.
"$build_dir/bench/gelu_benchmark" --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
  --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true \
  --benchmark_enable_random_interleaving=true \
  --benchmark_out="$out_dir/bench.json" --benchmark_out_format=json
# Google Benchmark writes no JSON when the filter matches nothing (GELU_BENCH_FILTER='^$' builds the baseline only).
if [[ ! -s $out_dir/bench.json ]]; then
  echo "run_benchmarks: no benchmark matches '$filter'; built $lib${baseline_rev:+ and the baseline}, nothing to summarize"
  exit 0
fi

summary_args=("$out_dir/bench.json")
py=$(bash scripts/install_python_env.sh | tail -1)  # the project's Python, with torch
"$py" bench/peers_torch.py "$lib" --json "$out_dir/peers.json" "${torch_args[@]}"
summary_args+=(--torch "$out_dir/peers.json")
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$py" bench/summarize.py "${summary_args[@]}" | tee "$out_dir/summary.md"
