# SPDX-License-Identifier: Apache-2.0
"""PyTorch drop-in for torch.nn.GELU / torch.nn.functional.gelu, backed by the gelu library.

    >>> import torch, gelu.torch
    >>> model = gelu.torch.replace_gelu(model)      # every nn.GELU becomes gelu.torch.GELU
    >>> y = gelu.torch.gelu(x, approximate="tanh")  # like F.gelu, with autograd

The library runs on CPU tensors of float32 and float64, zero-copy when they are contiguous (a strided
tensor is copied to a contiguous one first); CPU float16 and bfloat16 are computed in float32 and rounded
back. Other dtypes and devices (CUDA, ...) fall back to torch.nn.functional.gelu, with a warning the first time each case occurs. approximate="sigmoid"
(x*sigmoid(1.702x)) is this library's extra form; its fallback is x * torch.sigmoid(1.702 * x).

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

_APPROXIMATIONS = ("none", "tanh", "sigmoid")
_LIBRARY_DTYPES = (torch.float32, torch.float64)
# Computed in float32 and rounded once more: within a half ULP plus float32's error, and autograd flows
# through the casts. (PyTorch 1.13's CPU F.gelu has no float16 kernel at all.)
_HALF_DTYPES = (torch.float16, torch.bfloat16)
_warned = set()  # fallback reasons already reported, so a training loop warns once, not every step


def _check_approximate(approximate):
    if not isinstance(approximate, str):
        raise TypeError(f"approximate must be a str, one of {', '.join(map(repr, _APPROXIMATIONS))}; "
                        f"got {type(approximate).__name__}")
    if approximate not in _APPROXIMATIONS:
        raise ValueError(f"unknown approximate {approximate!r}; valid values are "
                         f"{', '.join(map(repr, _APPROXIMATIONS))}")


def _library_handles(x):
    """None if the library computes GELU of x, else the reason it does not."""
    if x.device.type != "cpu":
        return f"device {x.device.type}"
    if x.dtype not in _LIBRARY_DTYPES:
        return f"dtype {x.dtype}"
    if x.layout != torch.strided:
        return f"layout {x.layout}"
    return None


def _fallback(x, approximate, reason):
    if reason not in _warned:
        _warned.add(reason)
        warnings.warn(f"gelu.torch: the gelu library does not handle {reason}; using "
                      f"torch.nn.functional.gelu for such tensors (warned once)", RuntimeWarning, stacklevel=3)
    if approximate == "sigmoid":
        return x * torch.sigmoid(1.702 * x)
    return F.gelu(x, approximate=approximate)


def _forward(x, approximate):
    """f(x) for a CPU float32/float64 tensor without autograd; zero-copy when x is contiguous."""
    x = x.detach().contiguous()  # no copy when already contiguous
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    _gelu._forward_ptr(x.data_ptr(), y.data_ptr(), x.numel(), x.dtype == torch.float64, approximate)
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
    def forward(ctx, x, approximate):
        ctx.approximate = approximate
        ctx.save_for_backward(x)
        return _forward(x, approximate)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if torch.is_grad_enabled():
            # create_graph=True (double backward): the library's gradient is not itself differentiable,
            # so build this one from torch ops; first-order training never takes this path.
            return _derivative_graph(grad, x, ctx.approximate), None
        x = x.detach().contiguous()
        grad = grad.detach().contiguous()
        grad_in = torch.empty_like(x, memory_format=torch.contiguous_format)
        _gelu._backward_ptr(grad.data_ptr(), x.data_ptr(), grad_in.data_ptr(), x.numel(),
                            x.dtype == torch.float64, ctx.approximate)
        return grad_in, None


def gelu(x, approximate="none"):
    """GELU of a tensor, like torch.nn.functional.gelu(x, approximate), with autograd.

    approximate: "none" (exact), "tanh" or "sigmoid" (x*sigmoid(1.702x), not in F.gelu).
    CPU float32/float64 tensors run in the library; others fall back to torch (warned once per case).
    """
    _check_approximate(approximate)
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"gelu.torch.gelu: x must be a torch.Tensor; got {type(x).__name__}")
    reason = _library_handles(x)
    if reason is not None and x.device.type == "cpu" and x.dtype in _HALF_DTYPES and x.layout == torch.strided:
        return gelu(x.float(), approximate).to(x.dtype)
    if reason is not None:
        return _fallback(x, approximate, reason)
    if x.requires_grad and torch.is_grad_enabled():
        return _GeluFunction.apply(x, approximate)
    return _forward(x, approximate)  # skips autograd.Function's overhead (several us a call)


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
