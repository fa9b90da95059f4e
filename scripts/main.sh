#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: installs the Debian packages and the Python environment, builds the library and the `gelu` command
# (Release), and runs `gelu report`: GELU's facts computed by the library, the accuracy summary, a quick benchmark and
# the figures (written under out/report, or the directory given as $1).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/report}
bash scripts/install_deps.sh
py=$(bash scripts/install_python_env.sh | tail -1)  # matplotlib for the figures
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$py"
cmake --build build -j "$(nproc)" --target gelu_cli
build/tools/gelu report -o "$out" --python "$py"
