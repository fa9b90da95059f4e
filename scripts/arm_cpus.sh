# SPDX-License-Identifier: Apache-2.0
# The emulated CPUs that together reach every Highway Arm target under qemu-aarch64, sourced by
# scripts/test_arm.sh and scripts/arm_sweep.sh. An entry is "QEMU_CPU/targets": the targets that CPU is run for
# (it supports more: each SVE length also runs NEON, and all the SVE ones; SVE2_128 and SVE_256 exist only at their
# own length). The length is in bytes: 16, 32, 64, 256 = 128, 256, 512, 2048 bits.
arm_cpus=(
  max,sve=off/NEON
  max,sve-default-vector-length=16/SVE,SVE2,SVE2_128
  max,sve-default-vector-length=32/SVE,SVE2,SVE_256
  max,sve-default-vector-length=64/SVE,SVE2
  max,sve-default-vector-length=256/SVE,SVE2
)

# The QEMU_CPU of an entry, its targets ("" when it names none), and its vector length in bits (NEON: 128).
arm_cpu() { echo "${1%%/*}"; }
arm_cpu_targets() { [[ $1 == */* ]] && echo "${1#*/}" || echo ""; }
arm_cpu_bits() {
  if [[ $1 =~ sve-default-vector-length=([0-9]+) ]]; then echo $((BASH_REMATCH[1] * 8)); else echo 128; fi
}
