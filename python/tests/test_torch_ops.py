# SPDX-License-Identifier: Apache-2.0
"""gelu.torch's registered operators gelu::gelu and gelu::gelu_backward: torch.library.opcheck (schema, fake
implementation, autograd registration, tracing) for every dtype, form and available device; what they refuse;
the minimum PyTorch version; which definition of them runs (the C++ stable-ABI one, or torch.library.custom_op's
with GELU_TORCH_OPS=python: CTest runs these tests both ways) and the C++ kernels' threads."""
import os
import shutil
import subprocess
import sys

import pytest
import torch

import gelu
import gelu.torch as gt

FORMS = gelu.APPROXIMATIONS  # the library's function table (src/common/functions.h)
DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
# (device, dtype) pairs with a kernel: CUDA has none for float64 (gelu.torch.gelu falls back to F.gelu there).
DEVICE_DTYPES = [(d, t) for d in DEVICES for t in DTYPES if d == "cpu" or t in gt._CUDA_DTYPES]


def _inputs(dtype, device, requires_grad):
    gen = torch.Generator().manual_seed(5)
    # N(0,1)*4 covers the core and both tails; a strided (transposed) x checks the copy to contiguous.
    x = (torch.randn(6, 7, generator=gen) * 4).to(dtype).to(device).t().requires_grad_(requires_grad)
    g = torch.randn(7, 6, generator=gen).to(dtype).to(device).requires_grad_(requires_grad)
    return g, x


@pytest.mark.parametrize("device,dtype", DEVICE_DTYPES)
@pytest.mark.parametrize("approximate", FORMS)
def test_opcheck(device, dtype, approximate):
    for requires_grad in (False, True):
        g, x = _inputs(dtype, device, requires_grad)
        torch.library.opcheck(torch.ops.gelu.gelu.default, (x, approximate))
        torch.library.opcheck(torch.ops.gelu.gelu_backward.default, (g, x, approximate))


def test_kernels_registered_for_each_device_the_module_was_built_for():
    # Checkable without a GPU: CUDA kernels exactly where the binding has the CUDA library (GELU_PYTHON_CUDA).
    for op in ("gelu::gelu", "gelu::gelu_backward"):
        has = {key: torch._C._dispatch_has_kernel_for_dispatch_key(op, key) for key in ("CPU", "CUDA", "Meta")}
        assert has == {"CPU": True, "CUDA": gelu._gelu._cuda_built, "Meta": True}, op


@pytest.mark.parametrize("approximate", FORMS)
def test_operators_compute_the_library_values(approximate):
    # The operators against the NumPy API (the library's C entry points), forward, backward and through autograd.
    g, x = _inputs(torch.float32, "cpu", False)
    y = torch.ops.gelu.gelu(x, approximate)
    assert torch.equal(y, torch.from_numpy(gelu.forward(x.numpy(), approximate)))
    d = torch.ops.gelu.gelu_backward(g, x, approximate)
    assert torch.equal(d, torch.from_numpy(gelu.backward(g.numpy(), x.contiguous().numpy(), approximate)))
    xg = x.detach().requires_grad_(True)
    torch.ops.gelu.gelu(xg, approximate).backward(g)
    assert torch.equal(xg.grad, d)


@pytest.mark.parametrize("approximate", FORMS)
def test_double_backward_through_the_operators(approximate):
    # gelu_backward's own autograd: d/dgrad through the library, d/dx = grad * f''(x) from torch ops.
    x = torch.linspace(-6, 6, 61, dtype=torch.float64).requires_grad_(True)
    g = torch.randn(61, dtype=torch.float64, generator=torch.Generator().manual_seed(2)).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda g, x: torch.ops.gelu.gelu_backward(g, x, approximate), (g, x))
    assert torch.autograd.gradgradcheck(lambda x: torch.ops.gelu.gelu(x, approximate), (x,))


def test_second_derivative_has_one_case_per_form():
    # Each form's f'' is its own expression; a name it does not know is refused, never given another form's.
    with pytest.raises(ValueError, match=r"^no second derivative for approximate 'erf'$"):
        gt._second_derivative(torch.randn(3), "erf")


def test_jit_trace_records_the_operator():
    # Without autograd, eager calls skip the dispatcher; under torch.jit.trace they must not, or the trace would
    # hold the traced input's result as a constant.
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), gt.GELU())
    x, x2 = torch.randn(3, 4), torch.randn(3, 4)
    with torch.no_grad():
        traced = torch.jit.trace(model, x)
        assert torch.equal(traced(x2), model(x2))


def test_operators_refuse_what_the_library_does_not_compute():
    # RuntimeError, as aten's operators raise (F.gelu's own bad approximate or dtype), the same on both paths.
    with pytest.raises(RuntimeError, match=r"^gelu::gelu: the gelu library does not handle dtype torch.int64"):
        torch.ops.gelu.gelu(torch.arange(4), "none")
    with pytest.raises(RuntimeError, match=r"^unknown approximate 'erf'; valid values are 'none', 'tanh', 'sigmoid'$"):
        torch.ops.gelu.gelu(torch.randn(4), "erf")
    with pytest.raises(RuntimeError, match=r"^unknown approximate 'erf'"):
        torch.ops.gelu.gelu_backward(torch.randn(4), torch.randn(4), "erf")
    with pytest.raises(RuntimeError, match=r"^gelu::gelu_backward: grad and x must have the same dtype, shape and "
                       r"device; got grad \(torch.float32, \(4,\), cpu\) and x \(torch.float32, \(5,\), cpu\)$"):
        torch.ops.gelu.gelu_backward(torch.randn(4), torch.randn(5), "none")
    with pytest.raises(RuntimeError, match=r"^gelu::gelu_backward: grad and x must have the same dtype, shape and "):
        torch.ops.gelu.gelu_backward(torch.randn(4, dtype=torch.float64), torch.randn(4), "none")
    with pytest.raises(RuntimeError, match=r"^gelu::gelu_backward: grad and x must have the same dtype, shape and "):
        torch.ops.gelu.gelu_backward(torch.randn(2, 3), torch.randn(3, 2), "none")


def test_the_operators_definition_follows_gelu_torch_ops():
    # This build has torch >= NATIVE_MIN_TORCH (the project's venv), so the C++ operators exist: they run unless
    # GELU_TORCH_OPS=python asks for the custom_op path.
    forced = os.environ.get("GELU_TORCH_OPS") == "python"
    assert gt.OPERATORS == ("custom_op" if forced else "stable-abi")
    assert gt._torch_version(torch.__version__) >= gt.NATIVE_MIN_TORCH
    # A bad value is refused at import.
    env = dict(os.environ, GELU_TORCH_OPS="cpp", PYTHONPATH=os.path.dirname(os.path.dirname(gelu.__file__)))
    r = subprocess.run([sys.executable, "-c", "import gelu.torch"], capture_output=True, text=True, env=env)
    assert r.returncode != 0 and "ImportError: GELU_TORCH_OPS='cpp': expected 'native', 'python' or unset" in r.stderr


_COUNT_THREADS = """
import os, torch, gelu, gelu.torch as gt
def threads():
    return len(os.listdir("/proc/self/task"))
torch.set_num_threads(1)
x = torch.randn(1 << 20)
before = threads()
torch.ops.gelu.gelu(x, "none"); gt.gelu(x); torch.ops.gelu.gelu_backward(x, x, "none")
gt.gelu(x.requires_grad_()).sum().backward()
operators = threads()
gelu.forward(x.detach().numpy())
print(before, operators, threads())
"""


def test_cpu_kernel_uses_torchs_threads_only():
    # With one torch thread the operators (and gelu.torch.gelu, eager and under autograd: the same C++ kernel past the
    # dispatcher) run on the caller's thread: the library starts no threads of its own, which it would for arrays of
    # >= 64 Ki elements on a machine with more than one hardware thread. Counted in a fresh process, where no call has
    # started the library's pool yet; the NumPy call at the end shows the count would see it.
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(gelu.__file__))))
    env.pop("GELU_NUM_THREADS", None)
    env.pop("OMP_NUM_THREADS", None)
    if gt.OPERATORS == "stable-abi":  # The custom_op path calls the library, whose threads are its own.
        r = subprocess.run([sys.executable, "-c", _COUNT_THREADS], capture_output=True, text=True, env=env, check=True)
        before, operators, after_library = map(int, r.stdout.split())
        assert operators == before, f"the operators started {operators - before} thread(s) with one torch thread"
        if (os.cpu_count() or 1) > 1:
            assert after_library > operators, "gelu.forward on 1 Mi elements started no thread: the count sees nothing"
    # Same bits with one torch thread as with several.
    x = torch.randn(1 << 20)
    threads = torch.get_num_threads()
    for name, call in (("torch.ops.gelu.gelu", lambda: torch.ops.gelu.gelu(x, "none")),
                       ("gelu.torch.gelu", lambda: gt.gelu(x))):
        try:
            torch.set_num_threads(1)
            one = call()
            torch.set_num_threads(max(2, threads))
            assert torch.equal(call(), one), name
        finally:
            torch.set_num_threads(threads)


def test_torch_version_parsing():
    assert gt._torch_version("2.15.0+cu132") == (2, 15)
    assert gt._torch_version("2.4.0a0+git1234") == (2, 4)
    assert gt._torch_version("1.13.1") == (1, 13) < gt.MIN_TORCH <= gt._torch_version(torch.__version__)


_DEBIAN_PYTHON = "/usr/bin/python3"


def _debian_torch_version():
    if not shutil.which(_DEBIAN_PYTHON):
        return None
    r = subprocess.run([_DEBIAN_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


_OLD_TORCH = _debian_torch_version()


def test_older_torch_gets_a_clear_import_error():
    # Debian's /usr/bin/python3 with its python3-torch (1.13, scripts/install_deps.sh): the same package, imported
    # there. Not a skip where it is missing: a failure, so that the check cannot silently stop running.
    assert _OLD_TORCH, "Debian's python3-torch is missing (scripts/install_deps.sh installs it)"
    assert gt._torch_version(_OLD_TORCH) < gt.MIN_TORCH, _OLD_TORCH
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(gelu.__file__))))
    r = subprocess.run([_DEBIAN_PYTHON, "-c", "import gelu.torch"], capture_output=True, text=True, env=env)
    assert r.returncode != 0
    assert f"ImportError: gelu.torch needs PyTorch >= {gt.MIN_TORCH[0]}.{gt.MIN_TORCH[1]}" in r.stderr, r.stderr
