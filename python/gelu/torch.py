# SPDX-License-Identifier: Apache-2.0
"""PyTorch drop-in for torch.nn.GELU / torch.nn.functional.gelu, backed by the gelu library.

    >>> import torch, gelu.torch
    >>> model = gelu.torch.replace_gelu(model)      # every nn.GELU becomes gelu.torch.GELU
    >>> y = gelu.torch.gelu(x, approximate="tanh")  # like F.gelu, with autograd

Where the library runs, forward and backward (strided tensors; a non-contiguous one is copied to a contiguous
one first, contiguous ones are zero-copy):
- CPU float32 and float64: the library's float kernels.
- CPU float16 and bfloat16: the library's 16-bit kernels, correctly rounded (the GELU of the exact input,
  rounded once to the 16-bit type; no detour through a float32 tensor).
- CUDA float32, float16 and bfloat16 (where the library was built with its CUDA kernels): gelu_cuda, queued on
  PyTorch's current stream of the tensor's device, like any PyTorch op.
Other dtypes and devices (CUDA float64, meta, ...) fall back to torch.nn.functional.gelu, with a warning the first
time each case occurs. approximate="sigmoid" (x*sigmoid(1.702x)) is this library's extra form; its fallback is
x * torch.sigmoid(1.702 * x).

The kernels are registered as PyTorch operators, torch.ops.gelu.gelu(x, approximate) and
torch.ops.gelu.gelu_backward(grad, x, approximate), with fake implementations and autograd (double backward
included), so a model after replace_gelu compiles with torch.compile(fullgraph=True) and exports with torch.export.
Their CPU kernels are C++ on PyTorch's stable ABI (gelu/_torch_ops.so, for torch >= 2.10: OPERATORS is
"stable-abi"), or Python kernels of torch.library.custom_op (OPERATORS "custom_op") with an older torch, a build
without that module, or GELU_TORCH_OPS=python; GELU_TORCH_OPS=native requires the C++ ones. Both define the same
operators. Needs PyTorch >= 2.4 (MIN_TORCH); an older one raises ImportError on import.

Differences from F.gelu are float rounding where F.gelu is accurate (|x| < 3), and accurate values
where it is not: F.gelu's float32 exact form loses the negative tail (returns 0 or wrong digits below
x ~ -5), while the library keeps <= 1 ULP down to the last subnormal.
"""
import os
import warnings

import torch
from torch import nn
import torch.nn.functional as F

# torch.library.custom_op, register_fake, register_autograd and opcheck appeared in PyTorch 2.4. Older versions get
# this ImportError rather than a module that cannot be compiled or, worse, computes through a missing API.
MIN_TORCH = (2, 4)


def _torch_version(version):
    """(major, minor) of a torch.__version__ string such as "2.15.0+cu132" or "2.6.0a0+git1234"."""
    major, minor = version.split("+")[0].split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


if _torch_version(torch.__version__) < MIN_TORCH:
    raise ImportError(f"gelu.torch needs PyTorch >= {MIN_TORCH[0]}.{MIN_TORCH[1]} (torch.library.custom_op); this is "
                      f"PyTorch {torch.__version__}. The NumPy API (import gelu) works without it.")

from gelu import _gelu  # noqa: E402  (after the version check: an old torch stops before anything is registered)

__all__ = ["GELU", "gelu", "replace_gelu", "MIN_TORCH", "OPERATORS"]

_APPROXIMATIONS = _gelu._FORMS  # "none", "tanh", "sigmoid": the library's function table
# Each form's gelu_approximate value (its index in the table's order), which the binding's kernels take.
_FORM_VALUES = {name: value for value, name in enumerate(_APPROXIMATIONS)}
# The dtypes each device's kernels take, with the library's gelu_dtype value of each (_gelu._DTYPES, by the names
# torch gives them), mapped here once.
_CPU_DTYPES = {t: _gelu._DTYPES[str(t).removeprefix("torch.")]
               for t in (torch.float32, torch.float64, torch.float16, torch.bfloat16)}
_CUDA_DTYPES = {t: _CPU_DTYPES[t] for t in (torch.float32, torch.float16, torch.bfloat16)}
_HALF_DTYPES = (torch.float16, torch.bfloat16)
_warned = set()  # fallback reasons already reported, so a training loop warns once, not every step


def _check_approximate(approximate):
    if not isinstance(approximate, str):
        raise TypeError(f"approximate must be a str, one of {', '.join(map(repr, _APPROXIMATIONS))}; "
                        f"got {type(approximate).__name__}")
    if approximate not in _APPROXIMATIONS:
        raise ValueError(f"unknown approximate {approximate!r}; valid values are "
                         f"{', '.join(map(repr, _APPROXIMATIONS))}")


def _route(device_type, dtype, layout):
    """Where the library computes GELU of a tensor: a (device type, gelu_dtype value) pair, or a str saying why
    not."""
    if layout != torch.strided:
        return f"layout {layout}"
    if device_type == "cpu":
        return ("cpu", _CPU_DTYPES[dtype]) if dtype in _CPU_DTYPES else f"dtype {dtype}"
    if device_type == "cuda":
        if not _gelu._cuda_built:
            return "device cuda (this build of the library has no CUDA kernels)"
        return ("cuda", _CUDA_DTYPES[dtype]) if dtype in _CUDA_DTYPES else f"dtype {dtype} on device cuda"
    return f"device {device_type}"


# The sigmoid form, x * sigmoid(k x) with k = 1.702, in torch ops, and its backward grad * f'(x), f' = s + k x s (1 - s)
# with s = sigmoid(k x): the fallback's expression, and the composition gelu.speed times (PyTorch has no op for it).
_SIGMOID_SCALE = 1.702


def _sigmoid_form(x, out=None):
    return torch.mul(x, torch.sigmoid(_SIGMOID_SCALE * x), out=out)


def _sigmoid_form_backward(grad, x, out=None):
    s = torch.sigmoid(_SIGMOID_SCALE * x)
    return torch.mul(grad, s + _SIGMOID_SCALE * x * s * (1 - s), out=out)


def _fallback(x, approximate, reason):
    if reason not in _warned:
        _warned.add(reason)
        warnings.warn(f"gelu.torch: the gelu library does not handle {reason}; using "
                      f"torch.nn.functional.gelu for such tensors (warned once)", RuntimeWarning, stacklevel=3)
    if approximate == "sigmoid":
        return _sigmoid_form(x)
    return F.gelu(x, approximate=approximate)


def _run(route, form, out, *inputs):
    """The library's forward (inputs = (x,)) or backward (inputs = (grad, x)) into out; all contiguous, alike.
    form: the gelu_approximate value (_op_form)."""
    device, dtype = route
    pointers = [t.data_ptr() for t in inputs]
    if device == "cpu":
        fn = _gelu._forward_ptr if len(inputs) == 1 else _gelu._backward_ptr
        fn(*pointers, out.data_ptr(), out.numel(), dtype, form)
        return
    # The kernels go to the current stream of the tensors' device, which is also made current: a stream belongs
    # to its device, and the library launches on the current one. When that device is current already (the
    # usual case), the raw stream handle is read without a device guard or a Stream object: host time per call,
    # which is most of a call on a small tensor (docs/CUDA.md, the seed's 1024 x 1024 benchmark).
    fn = _gelu._cuda_forward_ptr if len(inputs) == 1 else _gelu._cuda_backward_ptr
    index = out.get_device()
    if _raw_stream is not None and index == _current_device():
        fn(*pointers, out.data_ptr(), out.numel(), dtype, form, _raw_stream(index))
        return
    with torch.cuda.device(index):
        stream = torch.cuda.current_stream(index).cuda_stream
        fn(*pointers, out.data_ptr(), out.numel(), dtype, form, stream)


# torch's private accessors of the current device and raw stream (what torch.compile's generated code calls);
# absent in some builds, where _run takes the public path.
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_current_device = getattr(torch._C, "_cuda_getDevice", None)
if _current_device is None:
    _raw_stream = None


def _op_form(approximate):
    """The operators' check of `approximate`, and its gelu_approximate value (one lookup does both). Their errors are
    RuntimeErrors, as aten's operators raise, with the C++ kernels' messages (python/src/torch_ops.cc)."""
    form = _FORM_VALUES.get(approximate) if isinstance(approximate, str) else None
    if form is None:
        raise RuntimeError(f"unknown approximate {approximate!r}; valid values are "
                           f"{', '.join(map(repr, _APPROXIMATIONS))}")
    return form


def _op_route(name, x):
    """The route of a tensor given to one of the operators directly: they take only what the library computes."""
    route = _route(x.device.type, x.dtype, x.layout)
    if isinstance(route, str):
        raise RuntimeError(f"{name}: the gelu library does not handle {route}; gelu.torch.gelu falls back to "
                           f"torch.nn.functional.gelu for such tensors, the operator does not")
    return route


# The operators: gelu::gelu(x, approximate) and gelu::gelu_backward(grad, x, approximate) = grad * f'(x), the
# signatures of aten::gelu and aten::gelu_backward (plus the "sigmoid" form). Each returns a new contiguous tensor;
# a strided input is copied to a contiguous one first. Kernels for the CPU, and for CUDA where the binding was built
# with the CUDA kernels. Defined by one of two paths (OPERATORS):
# - "stable-abi": python/src/torch_ops.cc defines them with C++ CPU kernels on torch's stable ABI (one binary for
#   torch >= NATIVE_MIN_TORCH, threads from torch's intra-op pool); the CUDA kernels below are registered to them.
# - "custom_op": torch.library.custom_op with the Python kernels below for every device.
# gelu() calls them past the dispatcher where it may (_eager_forward).
_DEVICE_TYPES = ("cpu", "cuda") if _gelu._cuda_built else ("cpu",)
NATIVE_MIN_TORCH = (2, 10)  # python/CMakeLists.txt's GELU_TORCH_TARGET_VERSION


def _native_library():
    """The path of the stable-ABI operators' module where they are to be used, else None (GELU_TORCH_OPS)."""
    choice = os.environ.get("GELU_TORCH_OPS", "")
    if choice not in ("", "native", "python"):
        raise ImportError(f"GELU_TORCH_OPS={choice!r}: expected 'native', 'python' or unset")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_torch_ops.so")
    usable = os.path.exists(path) and _torch_version(torch.__version__) >= NATIVE_MIN_TORCH
    if choice == "native" and not usable:
        raise ImportError(f"GELU_TORCH_OPS=native: no stable-ABI operators for PyTorch {torch.__version__} "
                          f"({path} is built with a torch >= {NATIVE_MIN_TORCH[0]}.{NATIVE_MIN_TORCH[1]})")
    return path if usable and choice != "python" else None


def _gelu_kernel(x: torch.Tensor, approximate: str) -> torch.Tensor:
    form = _op_form(approximate)
    route = _op_route("gelu::gelu", x)
    x = x.contiguous()
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    _run(route, form, y, x)
    return y


def _gelu_backward_kernel(grad: torch.Tensor, x: torch.Tensor, approximate: str) -> torch.Tensor:
    form = _op_form(approximate)
    route = _op_route("gelu::gelu_backward", x)
    if grad.dtype != x.dtype or grad.shape != x.shape or grad.device != x.device:
        raise RuntimeError(f"gelu::gelu_backward: grad and x must have the same dtype, shape and device; got grad "
                           f"({grad.dtype}, {tuple(grad.shape)}, {grad.device}) and x ({x.dtype}, {tuple(x.shape)}, "
                           f"{x.device})")
    x = x.contiguous()
    grad = grad.contiguous()
    grad_in = torch.empty_like(x, memory_format=torch.contiguous_format)
    _run(route, form, grad_in, grad, x)
    return grad_in


_native = _native_library()
OPERATORS = "stable-abi" if _native else "custom_op"
if _native:
    torch.ops.load_library(_native)
    _gelu_op = torch.ops.gelu.gelu.default
    _gelu_backward_op = torch.ops.gelu.gelu_backward.default
    if _gelu._cuda_built:
        torch.library.impl("gelu::gelu", "CUDA")(_gelu_kernel)
        torch.library.impl("gelu::gelu_backward", "CUDA")(_gelu_backward_kernel)
else:
    _gelu_op = torch.library.custom_op("gelu::gelu", _gelu_kernel, mutates_args=(), device_types=_DEVICE_TYPES)
    _gelu_backward_op = torch.library.custom_op("gelu::gelu_backward", _gelu_backward_kernel, mutates_args=(),
                                                device_types=_DEVICE_TYPES)


# Fake (meta) implementations: the shapes and dtypes torch.compile and torch.export trace with.
@torch.library.register_fake("gelu::gelu")
def _gelu_fake(x, approximate):
    _op_form(approximate)
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.register_fake("gelu::gelu_backward")
def _gelu_backward_fake(grad, x, approximate):
    _op_form(approximate)
    torch._check(grad.dtype == x.dtype and grad.shape == x.shape,
                 lambda: "gelu::gelu_backward: grad and x must have the same dtype and shape")
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def _second_derivative(x, approximate):
    """f''(x) from differentiable torch ops, for double backward only (in float32 for 16-bit x):
    none:    f'' = phi(x) (2 - x^2)
    tanh:    with u = c (x + a x^3), t = tanh u: f'' = (1 - t^2) (u' - x t u'^2 + x u''/2), u' = c (1 + 3a x^2),
             u'' = 6 a c x, c = sqrt(2/pi), a = 0.044715
    sigmoid: with s = sigmoid(k x), k = 1.702: f'' = k s (1 - s) (2 + k x (1 - 2s))."""
    if x.dtype in _HALF_DTYPES:
        return _second_derivative(x.float(), approximate).to(x.dtype)
    if approximate == "none":
        return torch.exp(-0.5 * x * x) * 0.3989422804014327 * (2 - x * x)  # phi(x) = exp(-x^2/2)/sqrt(2 pi)
    if approximate == "tanh":
        c, a = 0.7978845608028654, 0.044715
        t = torch.tanh(c * (x + a * x**3))
        du = c * (1 + 3 * a * x * x)
        return (1 - t * t) * (du - x * t * du * du + x * (3 * a * c) * x)
    if approximate == "sigmoid":
        k = _SIGMOID_SCALE
        s = torch.sigmoid(k * x)
        return k * s * (1 - s) * (2 + k * x * (1 - 2 * s))
    raise ValueError(f"no second derivative for approximate {approximate!r}")


def _gelu_setup(ctx, inputs, output):
    x, approximate = inputs
    ctx.approximate = approximate
    ctx.save_for_backward(x)


def _gelu_grad(ctx, grad):
    (x,) = ctx.saved_tensors
    return _gelu_backward_op(grad, x, ctx.approximate), None


def _gelu_backward_setup(ctx, inputs, output):
    grad, x, approximate = inputs
    ctx.approximate = approximate
    ctx.save_for_backward(grad, x)


def _gelu_backward_grad(ctx, grad_grad_in):
    # d(grad * f'(x))/d grad = f'(x), through the library; d/dx = grad * f''(x), from torch ops (differentiable again).
    grad, x = ctx.saved_tensors
    d_grad = _gelu_backward_op(grad_grad_in, x, ctx.approximate) if ctx.needs_input_grad[0] else None
    d_x = grad_grad_in * grad * _second_derivative(x, ctx.approximate) if ctx.needs_input_grad[1] else None
    return d_grad, d_x, None


def _autograd_kernel(op, setup_context, backward):
    """The operator's Autograd kernel, as torch.library.register_autograd makes one (an autograd.Function around
    the redispatch below autograd) without its generality (keyword-only, out= and list arguments), which costs every
    call: the stable-ABI operator's call 1.02x F.gelu's time with register_autograd's kernel, 0.8x with this one
    (docs/EXPERIMENTS.md, "Python operators"). Registered with the dispatch key set, which goes last in the
    Function's inputs so that needs_input_grad indexes the operator's arguments."""
    after_autograd = torch._C._after_autograd_keyset

    class Function(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            *inputs, keyset = args
            with torch._C._AutoDispatchBelowAutograd():
                output = op.redispatch(keyset & after_autograd, *inputs)
            setup_context(ctx, inputs, output)
            return output

        @staticmethod
        def backward(ctx, grad):
            return (*backward(ctx, grad), None)

    def kernel(keyset, *inputs):
        if torch.is_grad_enabled() and torch._C._any_requires_grad(*inputs):
            return Function.apply(*inputs, keyset)
        return op.redispatch(keyset & after_autograd, *inputs)
    return kernel


if _native:
    _autograd_library = torch.library.Library("gelu", "IMPL")  # kept: the registrations live as long as it does
    _autograd_library.impl("gelu", _autograd_kernel(_gelu_op, _gelu_setup, _gelu_grad), "Autograd",
                           with_keyset=True)
    _autograd_library.impl("gelu_backward", _autograd_kernel(_gelu_backward_op, _gelu_backward_setup,
                                                             _gelu_backward_grad), "Autograd", with_keyset=True)
else:  # custom_op's own Autograd kernel takes its formulas this way
    torch.library.register_autograd("gelu::gelu", _gelu_grad, setup_context=_gelu_setup)
    torch.library.register_autograd("gelu::gelu_backward", _gelu_backward_grad, setup_context=_gelu_backward_setup)


# The operators' kernels for eager calls on plain tensors, past the dispatcher's autograd kernel (Python,
# register_autograd: about 3 us a call): the C++ CPU kernels by redispatch to the CPU key, the Python ones called.
_CPU_KEYS = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)


def _eager_forward(x, approximate):
    if _native and x.device.type == "cpu":
        return _gelu_op.redispatch(_CPU_KEYS, x, approximate)
    return _gelu_kernel(x, approximate)


def _eager_backward(grad, x, approximate):
    if _native and x.device.type == "cpu" and grad.device.type == "cpu":
        return _gelu_backward_op.redispatch(_CPU_KEYS, grad, x, approximate)
    return _gelu_backward_kernel(grad, x, approximate)


class _EagerGelu(torch.autograd.Function):
    """gelu.torch.gelu's eager autograd: the operators' kernels without the dispatcher's autograd kernel, which
    would be passed twice a step. Same kernels, same bits; with create_graph (grad enabled in backward) the backward
    is the operator, so double backward keeps its formula."""

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.approximate = approximate
        ctx.save_for_backward(x)
        return _eager_forward(x, approximate)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if torch.is_grad_enabled():
            return _gelu_backward_op(grad, x, ctx.approximate), None
        return _eager_backward(grad, x, ctx.approximate), None


def gelu(x, approximate="none"):
    """GELU of a tensor, like torch.nn.functional.gelu(x, approximate), with autograd.

    approximate: "none" (exact), "tanh" or "sigmoid" (x*sigmoid(1.702x), not in F.gelu).
    CPU float32/float64/float16/bfloat16 and CUDA float32/float16/bfloat16 tensors run in the library (see the
    module's docstring); others fall back to torch (warned once per case).
    """
    _check_approximate(approximate)
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"gelu.torch.gelu: x must be a torch.Tensor; got {type(x).__name__}")
    route = _route(x.device.type, x.dtype, x.layout)
    if isinstance(route, str):
        return _fallback(x, approximate, route)
    if type(x) is torch.Tensor and not torch.compiler.is_compiling() and not torch.jit.is_tracing():
        # Eager on a plain tensor: the operators' kernels without the dispatcher, whose autograd kernel is Python
        # (docs/PYTHON.md, "Speed of the operators"). Tracing (torch.compile, torch.export, torch.jit.trace) and
        # tensor subclasses (fake, functional) take the operator, which the tracers record.
        if x.requires_grad and torch.is_grad_enabled():
            return _EagerGelu.apply(x, approximate)
        return _eager_forward(x, approximate)
    return _gelu_op(x, approximate)


class GELU(nn.Module):
    """Drop-in for torch.nn.GELU(approximate=...), computed by the gelu library (see gelu())."""

    def __init__(self, approximate="none"):
        super().__init__()
        _check_approximate(approximate)
        self.approximate = approximate

    def forward(self, x):
        return gelu(x, self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


def replace_gelu(model):
    """Replaces every torch.nn.GELU in `model` (in place) by a GELU with the same `approximate`.

    Returns the model, or a new GELU when `model` itself is an nn.GELU. Calls to F.gelu inside a
    module's forward() are code, not modules, and are not replaced.
    """
    if isinstance(model, nn.GELU):
        return GELU(getattr(model, "approximate", "none"))
    for parent in list(model.modules()):  # a snapshot: the loop replaces children
        for name, child in list(parent.named_children()):
            if isinstance(child, nn.GELU):
                setattr(parent, name, GELU(getattr(child, "approximate", "none")))
    return model
