# SPDX-License-Identifier: Apache-2.0
"""CTest python_wheel: `pip wheel` of the repository root (pyproject.toml), installed into a fresh venv, used there.

    python python/wheel_test.py SOURCE_DIR WORK_DIR

Builds the wheel with this Python (the project's venv: scikit-build-core and pybind11 from it, no build isolation, so
nothing is downloaded), in WORK_DIR/build (kept: a second run recompiles only what changed), then creates
WORK_DIR/venv without pip, installs the wheel with --no-deps and runs, from a directory outside the source tree and
with LD_LIBRARY_PATH and PYTHONPATH unset:
  - import gelu from the fresh venv, its version that of include/gelu/gelu.h, libgelu loaded from the wheel's copy;
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
import os, sys, numpy as np, torch
import gelu, gelu.torch
venv = sys.argv[1]
assert gelu.__file__.startswith(venv), gelu.__file__
assert gelu.__version__ == sys.argv[2], (gelu.__version__, sys.argv[2])
libs = {l.split()[-1] for l in open("/proc/self/maps") if "libgelu" in l}
assert libs and all(p.startswith(os.path.dirname(gelu.__file__)) for p in libs), libs
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
    wheel = os.path.join(dist, wheels[0])

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
