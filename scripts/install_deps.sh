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
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install_deps: installing ${missing[*]}"
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
