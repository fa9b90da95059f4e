#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what the Arm (aarch64) cross build and its tests under emulation need, on Debian 12 x86-64:
# the cross compiler, qemu's user-mode emulator, the arm64 -dev packages the library and its kernel tests link
# (Highway, GoogleTest, MPFR, GMP), and for the llvm-mca model estimates (scripts/arm_mca.sh, docs/BENCHMARKS.md)
# llvm-19 and SLEEF's arm64 build (a peer; Eigen, the other, is libeigen3-dev of scripts/install_deps.sh).
# oneDNN's arm64 -dev package cannot be installed beside the amd64 one the x86 benchmarks use (both own
# /usr/include/oneapi/dnnl/dnnl_config.h, which differs). Used by scripts/test_arm.sh, scripts/arm_mca.sh and
# cmake/aarch64-linux-gnu.cmake. Idempotent: apt-get runs only when something is missing.
set -euo pipefail

packages=(
  g++-aarch64-linux-gnu qemu-user-static
  libhwy-dev:arm64 libgtest-dev:arm64 libmpfr-dev:arm64 libgmp-dev:arm64
  llvm-19  # llvm-mca knows neoverse-n2, neoverse-v1, neoverse-v2
  libsleef-dev:arm64  # headers in /usr/include/aarch64-linux-gnu: beside any amd64 libsleef-dev
)

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${sudo_cmd[@]}" dpkg --add-architecture arm64
fi
source "$(dirname "$0")/apt_install_missing.sh"
apt_install_missing install_arm_deps "${packages[@]}"
