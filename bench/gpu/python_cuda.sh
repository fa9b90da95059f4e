#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python half of the GPU run (bench/gpu/check.sh calls it): builds libgelu with its CUDA kernels and the Python
# module with CMake, for the GPU machine's own python3 (the one with PyTorch), and runs every Python test whose id
# names cuda there with GELU_REQUIRE_GPU=1, so that a CUDA test that cannot run fails (python/tests/conftest.py).
# Highway, fmt and CLI11 come from the .debs of bench/gpu/prepare_carry.sh, unpacked into a private prefix.
#
# Usage: bench/gpu/python_cuda.sh [BUILD_DIR]  (default build-gpu-check/python)
# Environment: PYTHON (default python3), GELU_GPU_CARRY (default build-gpu-carry), GELU_REQUIRE_GPU (default 1).
# Exit status: 0 the tests passed, 1 a build step or a test failed, 2 the carried packages are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build-gpu-check/python}
carry=${GELU_GPU_CARRY:-build-gpu-carry}
python=$(command -v "${PYTHON:-python3}")
if ! compgen -G "$carry/debs/libhwy-dev_*.deb" >/dev/null; then
  echo "python_cuda.sh: no Highway packages in $carry/debs (run bench/gpu/prepare_carry.sh and carry $carry)"
  exit 2
fi
prefix=$(mktemp -d /tmp/gelu-gpu-deps.XXXXXX)
for f in "$carry"/debs/*.deb; do dpkg -x "$f" "$prefix"; done
libdir=$(dirname "$(find "$prefix" -name 'libhwy.so.1*' | head -1)")
echo "== Python module with CUDA kernels ($out; Highway, fmt and CLI11 from $prefix/usr; $("$python" --version))"
# The tools stay on: the module links the checker (gelu.check); only the module's target is built.
cmake -S . -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix/usr" \
  -Dpybind11_DIR="$("$python" -m pybind11 --cmakedir)" -DPython_EXECUTABLE="$python" \
  -DGELU_BUILD_PYTHON=ON -DGELU_CUDA=ON -DGELU_BUILD_TESTS=OFF -DGELU_BUILD_BENCHMARKS=OFF -DGELU_INSTALL=OFF
cmake --build "$out" -j "$(nproc)" --target gelu_python
echo "== Python CUDA tests (pytest -k cuda)"
GELU_REQUIRE_GPU="${GELU_REQUIRE_GPU:-1}" PYTHONPATH="$out/python" LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$python" -m pytest -q -p no:cacheprovider -rs -k cuda python/tests
