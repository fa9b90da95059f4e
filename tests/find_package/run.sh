#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the built library into a temporary prefix, then builds and runs consumers against it two ways:
# find_package(gelu CONFIG) and pkg-config (gelu.pc); with "cli", also runs the installed `gelu` command from the
# prefix with no library path set (its RUNPATH finds libgelu). Usage: run.sh BUILD_DIR SOURCE_DIR [cli]
set -euo pipefail
build=$1 src=$2 cli=${3:-}
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
version=$(pkg-config --modversion gelu)
if [ "$cli" = cli ]; then
  out=$(env -u LD_LIBRARY_PATH "$prefix/bin/gelu" eval --format csv 1)
  [ "$out" = $'x,approximate,gelu\n1,none,0.8413447460685429' ] || { echo "installed gelu eval printed: $out"; exit 1; }
  got=$(env -u LD_LIBRARY_PATH "$prefix/bin/gelu" --version)
  [ "$got" = "$version" ] || { echo "installed gelu --version: '$got', gelu.pc: '$version'"; exit 1; }
  echo "installed gelu $got runs from $prefix/bin"
fi
echo "find_package and pkg-config consumers OK (gelu $version)"
