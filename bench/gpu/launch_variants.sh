#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Times the elementwise kernels (src/cuda/gelu.cu) under other launch geometries, beside PyTorch, in one run on a
# GPU: builds libgelu_cuda.so once per variant with the GELU_CUDA_* macros set (threads per block, 16-byte vectors
# loaded per thread before use, __launch_bounds__'s minimum blocks per SM, grid-stride or one-pass grid), all
# builds in parallel, then checks each (gelu_cuda_check from bench/gpu/check.sh's build, run against the variant's
# library) and runs bench/gpu/torch_compare.py on each (same tensors, same process per variant; the fused
# kernels too for the variant with GELU_CUDA_FUSED_VECTORS=1) and prints one table: ms and % of copy per kernel and
# variant. The defaults in gelu.cu and gelu_fused.cu are the chosen variant.
#
# Usage: bench/gpu/launch_variants.sh [--build | --time] [OUT_DIR]   (default build-gpu-variants)
#   --build  only build (CPU work, e.g. while the GPU runs something else); --time  only time what was built
# Environment: NVCC, GELU_CUDA_ARCH (default 90), GELU_BENCH_N (default 2^28), GELU_BENCH_REPS (default 15),
#   PYTHON (default python3), GELU_VARIANTS (space-separated names from the list below; default all),
#   GELU_VARIANT_TYPES (default f32,bf16,f16).
set -uo pipefail
cd "$(dirname "$0")/../.."
stage=all
case "${1:-}" in --build|--time) stage=${1#--}; shift ;; esac
out=${1:-build-gpu-variants}
mkdir -p "$out"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
arch="${GELU_CUDA_ARCH:-90}"
python="${PYTHON:-python3}"
source bench/gpu/nvcc_flags.sh
# name: threads unroll min_blocks grid_stride fused_vectors (gelu_fused.cu's GELU_CUDA_FUSED_VECTORS)
declare -A variants=(
  [t256_u4_grid]="256 4 0 1 0" [t256_u8_grid]="256 8 0 1 0" [t256_u2_grid]="256 2 0 1 0"
  [t256_u1_onepass]="256 1 0 0 0" [t256_u4_min6]="256 4 6 1 0"
  [t256_u4_onepass]="256 4 0 0 0" [t256_u2_onepass]="256 2 0 0 0" [t128_u1_onepass]="128 1 0 0 0"
  [fused_vectors]="256 4 0 1 1"
)
fused_of() { local f; read -r _ _ _ _ f <<<"${variants[$1]}"; echo "$f"; }  # a variant's fused_vectors
names=${GELU_VARIANTS:-$(printf '%s\n' "${!variants[@]}" | sort)}
# The fused kernels (gelu_fused.cu) take only GELU_CUDA_FUSED_VECTORS: built once per value.
for fv in 0 1; do
  [ "$stage" = time ] || "$nvcc" "${common[@]}" "${cu_flags[@]}" -DGELU_CUDA_FUSED_VECTORS=$fv -c src/cuda/gelu_fused.cu \
    -o "$out/gelu_fused_$fv.o" &
done
for name in $names; do
  [ "$stage" = time ] && break
  read -r threads unroll minb grid fused <<<"${variants[$name]}"
  mkdir -p "$out/$name"
  (
    defs=(-DGELU_CUDA_THREADS="$threads" -DGELU_CUDA_UNROLL="$unroll" -DGELU_CUDA_MIN_BLOCKS="$minb"
      -DGELU_CUDA_GRID_STRIDE="$grid")
    "$nvcc" "${common[@]}" "${cu_flags[@]}" "${defs[@]}" -Xptxas -v -c src/cuda/gelu.cu -o "$out/$name/gelu.o" \
      > "$out/$name/ptxas.txt" 2>&1
  ) &
done
wait
if [ "$stage" != time ]; then
  for name in $names; do
    [ -f "$out/$name/gelu.o" ] &&
      "$nvcc" -shared "$out/$name/gelu.o" "$out/gelu_fused_$(fused_of "$name").o" -o "$out/$name/libgelu_cuda.so"
  done
fi
[ "$stage" = build ] && exit 0
check=${GELU_CHECK_BIN:-build-gpu-check/gelu_cuda_check}  # bench/gpu/check.sh's build, if it ran first
echo "| variant | kernel | type | ours ms | % of copy | PyTorch ms | ours / PyTorch |"
echo "|---|---|---|---:|---:|---:|---:|"
for name in $names; do
  if [ ! -f "$out/$name/libgelu_cuda.so" ]; then
    echo "| $name | BUILD FAILED: $(tail -3 "$out/$name/ptxas.txt" | tr '\n' ' ') |"
    continue
  fi
  # Correct first: the GPU checks against this build (its RUNPATH is $ORIGIN; LD_LIBRARY_PATH comes first).
  fused=$(fused_of "$name")
  only="sizes/offsets"
  [ "$fused" = 1 ] && only="fused"
  if [ -x "$check" ]; then
    LD_LIBRARY_PATH="$out/$name" GELU_REQUIRE_GPU=1 "$check" --quick --only "$only" > "$out/$name/check.txt" 2>&1
    echo "| $name | gelu_cuda_check --only $only: exit $? ($(grep -c PASS "$out/$name/check.txt") passed) |"
  fi
  "$python" bench/gpu/torch_compare.py --lib "$out/$name/libgelu_cuda.so" --n "${GELU_BENCH_N:-268435456}" \
    --reps "${GELU_BENCH_REPS:-15}" --types "${GELU_VARIANT_TYPES:-f32,bf16,f16}" $([ "$fused" = 1 ] && echo --fused) \
    > "$out/$name/torch.txt" 2>&1
  awk -F'|' -v v="$name" '/^\| (forward|backward)\// {printf "| %s |%s|%s|%s|%s|%s|%s|\n", v, $2, $3, $4, $6, $7, $8}' \
    "$out/$name/torch.txt"
  grep '^| [a-z_]*_\(forward\|backward\) |' "$out/$name/torch.txt" | sed "s/^/| $name /"
done
