#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run on the Debian build machine before a GPU run: puts into build-gpu-carry/debs the Debian packages that the GPU
# machine lacks for building the CPU library and the Python module there (Highway; fmt and CLI11 for the checker
# that gelu.check links; the GPU machine's image has nvcc, CMake, ninja, pybind11 and PyTorch). The GPU run carries that folder (device tool: carry ["build-gpu-carry"]) and
# bench/gpu/python_cuda.sh unpacks it. build-gpu-carry/ is ignored by git (/build*/).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p build-gpu-carry/debs
cd build-gpu-carry/debs
rm -f ./*.deb
apt-get download libhwy-dev:amd64 libhwy1:amd64 libfmt-dev:amd64 libfmt9:amd64 libcli11-dev
ls -l
