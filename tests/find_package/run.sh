#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the built library into a temporary prefix, then builds and runs consumers against it two ways:
# find_package(gelu CONFIG) and pkg-config (gelu.pc). Usage: run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d) work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S "$src/tests/find_package" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libgelu.so*' -print -quit)")
LD_LIBRARY_PATH=$libdir "$work/cmake/consumer_cpp"
LD_LIBRARY_PATH=$libdir "$work/cmake/consumer_c"
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc "$src/tests/find_package/consumer.c" $(pkg-config --cflags --libs gelu) -lm -o "$work/consumer_pc"
LD_LIBRARY_PATH=$libdir "$work/consumer_pc"
echo "find_package and pkg-config consumers OK"
