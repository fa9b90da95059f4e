#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what the Arm (aarch64) cross build and its tests under emulation need, on Debian 12 x86-64:
# the cross compiler, qemu's user-mode emulator, the arm64 -dev packages the library and its kernel tests link
# (Highway, GoogleTest, MPFR, GMP), and llvm-19 for llvm-mca (docs/BENCHMARKS.md, Arm model estimates).
# Used by scripts/test_arm.sh and cmake/aarch64-linux-gnu.cmake. Idempotent: apt-get runs only when something is missing.
set -euo pipefail

packages=(
  g++-aarch64-linux-gnu qemu-user-static
  libhwy-dev:arm64 libgtest-dev:arm64 libmpfr-dev:arm64 libgmp-dev:arm64
  llvm-19  # llvm-mca knows neoverse-n2, neoverse-v1, neoverse-v2
)

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${sudo_cmd[@]}" dpkg --add-architecture arm64
fi
source "$(dirname "$0")/apt_install_missing.sh"
apt_install_missing install_arm_deps "${packages[@]}"
