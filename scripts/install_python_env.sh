#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The project's one Python environment: a venv of Debian's /usr/bin/python3 with the exact versions of
# scripts/python-requirements.txt (torch 2.x, NumPy, pytest, mpmath, matplotlib, ONNX Runtime, JAX, the build backend).
# Every Python test, benchmark and the claims experiment run in it.
#
# Where: $GELU_VENV, by default ~/.local/share/gelu/venv: outside the repository, so a fresh clone (CI) reuses it
# instead of downloading PyPI's x86-64 torch (a CUDA build, about 3 GB installed) again. Idempotent: the venv keeps a
# copy of the requirements it was made from, and pip runs only when that copy differs from the file.
# Prints the venv's python on its last line, so callers can `py=$(bash scripts/install_python_env.sh | tail -1)`.
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=scripts/python-requirements.txt
venv=${GELU_VENV:-$HOME/.local/share/gelu/venv}
stamp=$venv/gelu-requirements.txt

if [[ -x $venv/bin/python ]] && cmp -s "$requirements" "$stamp"; then
  echo "install_python_env: $venv matches $requirements" >&2
else
  if ! /usr/bin/python3 -c 'import ensurepip' 2>/dev/null; then
    sudo_cmd=()
    [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends python3-venv >&2
  fi
  echo "install_python_env: installing $requirements into $venv" >&2
  [[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" >&2
  cp "$requirements" "$stamp"
fi
echo "$venv/bin/python"
