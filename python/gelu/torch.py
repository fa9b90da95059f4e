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

Differences from F.gelu are float rounding where F.gelu is accurate (|x| < 3), and accurate values
where it is not: F.gelu's float32 exact form loses the negative tail (returns 0 or wrong digits below
x ~ -5), while the library keeps <= 1 ULP down to the last subnormal.
"""
import warnings

import torch
from torch import nn
import torch.nn.functional as F

from gelu import _gelu

__all__ = ["GELU", "gelu", "replace_gelu"]

_APPROXIMATIONS = _gelu._FORMS  # "none", "tanh", "sigmoid": the library's function table
# The dtypes each device's kernels take, by the name the binding expects.
_CPU_DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
               torch.bfloat16: "bfloat16"}
_CUDA_DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
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
    """Where the library computes GELU of a tensor: a (device type, dtype name) pair, or a str saying why not."""
    if layout != torch.strided:
        return f"layout {layout}"
    if device_type == "cpu":
        return ("cpu", _CPU_DTYPES[dtype]) if dtype in _CPU_DTYPES else f"dtype {dtype}"
    if device_type == "cuda":
        if not _gelu._cuda_built:
            return "device cuda (this build of the library has no CUDA kernels)"
        return ("cuda", _CUDA_DTYPES[dtype]) if dtype in _CUDA_DTYPES else f"dtype {dtype} on device cuda"
    return f"device {device_type}"


def _fallback(x, approximate, reason):
    if reason not in _warned:
        _warned.add(reason)
        warnings.warn(f"gelu.torch: the gelu library does not handle {reason}; using "
                      f"torch.nn.functional.gelu for such tensors (warned once)", RuntimeWarning, stacklevel=3)
    if approximate == "sigmoid":
        return x * torch.sigmoid(1.702 * x)
    return F.gelu(x, approximate=approximate)


def _run(route, approximate, out, *inputs):
    """The library's forward (inputs = (x,)) or backward (inputs = (grad, x)) into out; all contiguous, alike."""
    device, dtype = route
    pointers = [t.data_ptr() for t in inputs]
    if device == "cpu":
        fn = _gelu._forward_ptr if len(inputs) == 1 else _gelu._backward_ptr
        fn(*pointers, out.data_ptr(), out.numel(), dtype, approximate)
        return
    # The kernels go to the current stream of the tensors' device, which is also made current: a stream belongs
    # to its device, and the library launches on the current one.
    fn = _gelu._cuda_forward_ptr if len(inputs) == 1 else _gelu._cuda_backward_ptr
    with torch.cuda.device(out.device):
        stream = torch.cuda.current_stream(out.device).cuda_stream
        fn(*pointers, out.data_ptr(), out.numel(), dtype, approximate, stream)


def _forward(x, approximate, route):
    """f(x) for a tensor the library handles (route), without autograd; zero-copy when x is contiguous."""
    x = x.detach().contiguous()  # no copy when already contiguous
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    _run(route, approximate, y, x)
    return y


def _derivative_graph(grad, x, approximate):
    """grad * f'(x) from differentiable torch ops (erfc and sigmoid forms, no cancellation), for double
    backward (create_graph=True) only: its graph reaches both grad and x."""
    if approximate == "none":
        cdf = 0.5 * torch.erfc(x * -0.7071067811865476)  # Phi(x) = erfc(-x/sqrt2)/2
        pdf = torch.exp(-0.5 * x * x) * 0.3989422804014327  # phi(x) = exp(-x^2/2)/sqrt(2 pi)
        return grad * (cdf + x * pdf)
    if approximate == "tanh":  # (1 + tanh u)/2 = sigmoid(2u)
        c = 1.5957691216057308  # 2*sqrt(2/pi)
        z, dz = c * (x + 0.044715 * x**3), c * (1 + 3 * 0.044715 * x * x)
    else:
        z, dz = 1.702 * x, 1.702
    s = torch.sigmoid(z)
    return grad * (s + x * dz * s * (1 - s))


class _GeluFunction(torch.autograd.Function):
    """Forward and backward both run in the library; backward is torch's gelu_backward(grad, x, approximate)."""

    @staticmethod
    def forward(ctx, x, approximate, route):
        ctx.approximate = approximate
        ctx.route = route
        ctx.save_for_backward(x)
        return _forward(x, approximate, route)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if torch.is_grad_enabled():
            # create_graph=True (double backward): the library's gradient is not itself differentiable,
            # so build this one from torch ops (in float32 for 16-bit tensors, which lack some of them on the
            # CPU); first-order training never takes this path.
            if x.dtype in _HALF_DTYPES:
                return _derivative_graph(grad.float(), x.float(), ctx.approximate).to(x.dtype), None, None
            return _derivative_graph(grad, x, ctx.approximate), None, None
        x = x.detach().contiguous()
        grad = grad.detach().contiguous()
        grad_in = torch.empty_like(x, memory_format=torch.contiguous_format)
        _run(ctx.route, ctx.approximate, grad_in, grad, x)
        return grad_in, None, None


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
    if x.requires_grad and torch.is_grad_enabled():
        return _GeluFunction.apply(x, approximate, route)
    return _forward(x, approximate, route)  # skips autograd.Function's overhead (several us a call)


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
