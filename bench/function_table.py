# SPDX-License-Identifier: Apache-2.0
"""The forms of the library's function table, read from src/common/functions.h.

For the scripts under bench/ that run without the built Python module (bench/summarize.py and peers_torch.py with
the project's Python on a build-bench tree, bench/gpu/torch_compare.py on a GPU machine): they read the one list the
library, the CLI and the `gelu` module (gelu.APPROXIMATIONS) use, instead of spelling it. FORMS holds the names of
the C API's gelu_approximate in its numbering: FORMS.index(name) is the value to pass through ctypes.
"""
import os
import re

HEADER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "common", "functions.h")


def read_forms(path=HEADER):
    """kFormNames[0, kNumForms) of src/common/functions.h, as a tuple of str; ValueError if they are not found."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    count = re.search(r"\bkNumForms\s*=\s*(\d+)\s*;", text)
    names = re.search(r"\bkFormNames\s*\[[^\]]*\]\s*=\s*\{([^}]*)\}", text)
    if count is None or names is None:
        raise ValueError(f"{path}: kNumForms or kFormNames not found")
    forms = tuple(re.findall(r'"([^"]*)"', names.group(1)))[:int(count.group(1))]
    if len(forms) != int(count.group(1)):
        raise ValueError(f"{path}: kFormNames has fewer than kNumForms names")
    return forms


FORMS = read_forms()
