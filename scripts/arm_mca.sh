#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Arm speed without Arm hardware: llvm-mca model estimates (not measurements) of the hot loops, ours and the Arm
# peers', in cycles per element on Neoverse N2, V1, V2 and Apple's A14 (M1) cores. The table and its reading:
# docs/BENCHMARKS.md, "Arm: llvm-mca model estimates". A command, not part of CI (about 40 s on 2 cores).
#   ours:  bench/arm/mca_ours.cc, the library's float32 loops (src/cpu/gelu-inl.h) per Highway target, compiled as
#          src/cpu/gelu_f32.cc is (foreach_target.h, the library's flags), one function per form and direction;
#   peers: bench/arm/mca_peers.cc (Eigen 3.4, SLEEF 3.5 NEON, the glibc scalar loop) and mca_peers_sve.cc (SLEEF
#          SVE), with the same compiler and flags;
#   then bench/arm/mca_loops.py finds each hot loop in the objects (how: its docstring), inlines SLEEF's
#   straight-line functions from Debian's arm64 libsleef.so.3 and runs llvm-mca-19 on it.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install_arm_deps.sh

out=build-arm-mca
mkdir -p "$out"
cxx=aarch64-linux-gnu-g++
# The library's flags (CMakeLists.txt: Release, GELU_FP_FLAGS, position-independent, hidden visibility, C++20).
flags=(-O3 -DNDEBUG -fPIC -fvisibility=hidden -fvisibility-inlines-hidden -ffp-contract=off -fno-fast-math
  -fno-math-errno -std=c++20)
echo "== $($cxx --version | head -1); llvm-mca: $(llvm-mca-19 --version | grep -m1 -o 'LLVM version [0-9.]*')"
echo "== flags: ${flags[*]}"
$cxx "${flags[@]}" -I. -Iinclude -c bench/arm/mca_ours.cc -o "$out/mca_ours.o"
$cxx "${flags[@]}" -I/usr/include/eigen3 -c bench/arm/mca_peers.cc -o "$out/mca_peers.o"
$cxx "${flags[@]}" -march=armv8.2-a+sve -c bench/arm/mca_peers_sve.cc -o "$out/mca_peers_sve.o"
echo "== llvm-mca-19, cycles per element (model estimates, not measurements)"
python3 bench/arm/mca_loops.py table "$out"
