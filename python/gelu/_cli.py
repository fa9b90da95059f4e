# SPDX-License-Identifier: Apache-2.0
"""The `gelu` command of the pip-installed package (pyproject.toml's entry point): replaces this Python process with
the C++ command the wheel carries beside the package (gelu/bin/gelu, docs/CLI.md), arguments unchanged.

`gelu plot` and `gelu report` draw with Python and matplotlib: unless GELU_PYTHON or --python names another, they
use the Python this package is installed into.
"""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "gelu")
    if not os.access(exe, os.X_OK):
        sys.exit(f"gelu: {exe} is missing: the command comes with the wheel (pip install .), not with a CMake build "
                 "tree's python/ directory, whose command is <build>/tools/gelu")
    os.environ.setdefault("GELU_PYTHON", sys.executable)
    os.execv(exe, ["gelu", *sys.argv[1:]])


if __name__ == "__main__":
    main()
