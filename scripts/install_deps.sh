#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages that gelu's build, tests, benchmarks, figures and Python layer need. The Python
# packages (torch, NumPy, pytest, matplotlib, pybind11, ...) come from PyPI: scripts/install_python_env.sh.
# Idempotent: packages already installed are skipped, and apt-get runs only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang
  libclang-rt-14-dev  # libFuzzer and sanitizer runtimes for clang (tests/fuzz/run_fuzz.sh); clang only Recommends it
  libhwy-dev libgtest-dev libgmock-dev libbenchmark-dev libmpfr-dev libgmp-dev
  libcli11-dev libfmt-dev libdnnl-dev
  libeigen3-dev  # Eigen, a peer `gelu check` judges (tests/check/peers_eigen.cc, docs/CHECK.md)
  sollya
  python3-dev python3-venv  # the headers the Python module compiles against; the venv of install_python_env.sh
  dataset-fashion-mnist  # /usr/share/datasets/fashion-mnist/*.gz, for python -m gelu.claims (docs/CLAIMS.md)
  python3-torch  # Debian's PyTorch 1.13, older than gelu.torch's minimum: its clear ImportError is tested (test_torch_ops.py)
)

source "$(dirname "$0")/apt_install_missing.sh"
apt_install_missing install_deps "${packages[@]}"
