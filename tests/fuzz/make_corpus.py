#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpus of the .npy fuzz target into tests/fuzz/corpus/ (run with the project's Python,
scripts/install_python_env.sh).

Seeds: files numpy itself writes (every version, dtype, order and rank we read, and dtypes we refuse), plus
hand-made malformed ones (truncated, lying about size, odd headers). Each is under 4 KiB, the -max_len that
run_fuzz.sh passes. Re-running rewrites the same files (fixed values, no randomness).
"""
import io
import os

import numpy as np
from numpy.lib import format as npf

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(out, exist_ok=True)


def save(name, arr, version=None, **kw):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, arr, **kw)
    else:
        npf.write_array(buf, arr, version=version, **kw)
    write(name, buf.getvalue())
    return buf.getvalue()


def write(name, data):
    assert len(data) <= 4096, name
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


x = np.linspace(-4, 4, 12)
good = save("f4_vector.npy", x.astype("<f4"))
save("f8_rank3.npy", x.astype("<f8").reshape(2, 3, 2))
save("f4_fortran.npy", np.asfortranarray(x.astype("<f4").reshape(3, 4)))
save("f4_big_endian.npy", x.astype(">f4"))
save("f8_big_endian_fortran.npy", np.asfortranarray(x.astype(">f8").reshape(4, 3)))
save("f4_v2.npy", x.astype("<f4"), version=(2, 0))
save("f8_v3.npy", x.astype("<f8"), version=(3, 0))
save("f8_scalar.npy", np.array(1.5))
save("f4_empty.npy", np.zeros((3, 0), "<f4"))
save("f4_specials.npy", np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4e38], "<f4"))
save("i4.npy", np.arange(6, dtype="<i4"))
save("f2.npy", x.astype("<f2"))
save("c8.npy", x.astype("<c8"))
save("b1.npy", x > 0)
save("u_string.npy", np.array(["ab", "cd"]))
save("structured.npy", np.zeros(3, dtype=[("a", "<f4"), ("b", "<i2")]))
save("datetime.npy", np.array(["2020-01-01"], dtype="M8[D]"))
write("truncated_header.npy", good[:40])
write("truncated_data.npy", good[:-5])
write("lying_extra_data.npy", good + b"\0\0\0\0")
write("lying_shape.npy", good.replace(b"(12,)", b"(99,)"))
hdr = b"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"
write("huge_shape.npy", b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr + b"\0" * 8)
write("not_npy.txt", b"x,y\n1,2\n")
write("bad_version.npy", good[:6] + b"\x04\x00" + good[8:])
hdr = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}"
write("extra_key.npy", b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr + b"\0" * 8)
hdr = b'{"shape":(2,),"descr":"<f4","fortran_order":False}'
write("unpadded_reordered.npy", b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr + b"\0" * 8)
print(f"wrote {len(os.listdir(out))} files to {out}")
