# SPDX-License-Identifier: Apache-2.0
"""JAX drop-in for jax.nn.gelu, backed by the gelu library through XLA's FFI.

    >>> import jax, jax.numpy as jnp, gelu.jax
    >>> y = gelu.jax.gelu(x, approximate="none")        # like jax.nn.gelu(x, approximate=False)
    >>> g = jax.grad(lambda x: gelu.jax.gelu(x).sum())(x)

CPU arrays of float32, float64 (with jax_enable_x64), bfloat16 and float16, any shape: the library's kernels
(gelu/_jax_ffi.so: XLA FFI handlers, python/src/jax_ffi.cc), the same bits as gelu.forward / gelu.backward.
Works under jax.jit, jax.grad (jax.custom_vjp: the backward is the library's grad * f'(x)) and jax.vmap.
approximate: "none" (exact), "tanh" or "sigmoid" (x * sigmoid(1.702 x)); jax.nn.gelu's `approximate=True` is
"tanh" and its default. Second derivatives are not defined (the backward kernel is not differentiated).

Where it differs from jax.nn.gelu (float32): jax.nn.gelu's default tanh form returns -0 at x = -5 (the form's value
is -2.3e-7 there) and its exact form flushes results below float32's normal range (-0 at -14, where GELU is
-1.09e-43) and returns NaN at -inf; here each result is within the library's ULP bound, subnormals included, and
GELU(-inf) = -0.
"""
import ctypes
import functools
import os

import jax
import jax.numpy as jnp

from gelu import _gelu

__all__ = ["gelu"]

_APPROXIMATIONS = _gelu._FORMS  # "none", "tanh", "sigmoid": the library's function table
_DTYPES = (jnp.float32, jnp.float64, jnp.bfloat16, jnp.float16)

_library = ctypes.cdll.LoadLibrary(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_jax_ffi.so"))
jax.ffi.register_ffi_target("gelu_forward", jax.ffi.pycapsule(_library.GeluForwardFfi), platform="cpu")
jax.ffi.register_ffi_target("gelu_backward", jax.ffi.pycapsule(_library.GeluBackwardFfi), platform="cpu")


def _forward(x, approximate):
    return jax.ffi.ffi_call("gelu_forward", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="expand_dims")(x, approximate=approximate)


def _backward(grad, x, approximate):
    return jax.ffi.ffi_call("gelu_backward", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(grad, x, approximate=approximate)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def _gelu(x, approximate):
    return _forward(x, approximate)


def _gelu_fwd(x, approximate):
    return _forward(x, approximate), x


def _gelu_bwd(approximate, x, grad):
    return (_backward(grad, x, approximate),)


_gelu.defvjp(_gelu_fwd, _gelu_bwd)


def gelu(x, approximate="none"):
    """GELU of a JAX array, like jax.nn.gelu(x, approximate=...) with approximate named as in PyTorch.

    approximate: "none" (exact, jax.nn.gelu's approximate=False), "tanh" (its default) or "sigmoid".
    x: float32, float64, bfloat16 or float16, on the CPU; anything else raises TypeError.
    """
    if not isinstance(approximate, str) or approximate not in _APPROXIMATIONS:
        raise ValueError(f"unknown approximate {approximate!r}; valid values are "
                         f"{', '.join(map(repr, _APPROXIMATIONS))}")
    x = jnp.asarray(x)
    if x.dtype not in _DTYPES:
        raise TypeError(f"gelu.jax.gelu: the gelu library does not handle dtype {x.dtype}; it takes float32, "
                        f"float64, bfloat16 and float16")
    return _gelu(x, approximate)
