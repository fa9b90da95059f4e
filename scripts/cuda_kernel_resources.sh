#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Compiles src/cuda/gelu.cu as the library is built (bench/gpu/nvcc_flags.sh) with ptxas's report and the PTX kept,
# and checks the kernels' static resources (scripts/cuda_kernel_resources.py --check: no spills or stack in any
# kernel, no float64 instruction in the body of a float32 or bfloat16 elementwise kernel); prints the table.
# A test in CTest where nvcc builds the library (tests/cuda/CMakeLists.txt); no GPU needed.
# Usage: scripts/cuda_kernel_resources.sh [NVCC] [ARCH]   (defaults: nvcc on PATH, 90)
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc=${1:-nvcc}
arch=${2:-90}
source bench/gpu/nvcc_flags.sh  # common, cu_flags
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$nvcc" "${common[@]}" "${cu_flags[@]}" -Xptxas -v --keep --keep-dir "$dir" -c src/cuda/gelu.cu -o "$dir/gelu.o" \
  > "$dir/ptxas.txt" 2>&1 || { cat "$dir/ptxas.txt"; exit 1; }
python3 scripts/cuda_kernel_resources.py "$dir/ptxas.txt" "$dir/gelu.ptx" --table --check
