# SPDX-License-Identifier: Apache-2.0
# Cross build for Arm 64-bit Linux from Debian x86-64, with Debian's packages (scripts/install_arm_deps.sh):
# aarch64-linux-gnu-g++ and the arm64 multiarch libraries (Highway, GoogleTest, MPFR, GMP) in
# /usr/lib/aarch64-linux-gnu. ctest runs the cross-built tests under qemu's user-mode emulator; QEMU_CPU in the
# environment selects the emulated CPU, and with it the Highway targets that run (scripts/test_arm.sh).
#   cmake -S . -B build-arm -G Ninja --toolchain cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# The arm64 packages install into the host's /usr (multiarch); programs and headers of the host are fine to use
# (headers are architecture-independent or under /usr/include/aarch64-linux-gnu), libraries only the arm64 ones.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
# -L: the loader and libc of the cross toolchain; the arm64 multiarch libraries are found by the loader's own
# search of /usr/lib/aarch64-linux-gnu.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
