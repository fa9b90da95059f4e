# SPDX-License-Identifier: Apache-2.0
# The nvcc flags of the GPU scripts (check.sh, launch_variants.sh), sourced with $arch set: the library exactly as
# src/cuda/CMakeLists.txt builds it (sm_$arch code plus compute_$arch PTX, --fmad=false so that host and device
# round alike); host code with -march=native for the host reference of the exhaustive checks (same operations:
# -ffp-contract=off).
common=(-O3 -std=c++20 -I. -Iinclude)
cu_flags=(-gencode "arch=compute_${arch},code=[sm_${arch},compute_${arch}]" --fmad=false
  -Xcompiler -fPIC,-fvisibility=hidden,-ffp-contract=off -DGELU_BUILDING)
host_flags="-O3,-march=native,-ffp-contract=off,-pthread,-fopenmp"
