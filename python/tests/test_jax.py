# SPDX-License-Identifier: Apache-2.0
"""gelu.jax through XLA's FFI: the library's bits for every dtype and form, forward and through jax.grad, under
jax.jit and jax.vmap; a small MLP trained with jax.grad as with jax.nn.gelu where that is right; the tail where
jax.nn.gelu is not; what it refuses."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp

import gelu
import gelu.jax as gj
from gelu import _gelu

jax.config.update("jax_enable_x64", True)  # float64 arrays (this file alone uses JAX in the test process)

FORMS = gelu.APPROXIMATIONS
DTYPES = {"float32": jnp.float32, "float64": jnp.float64, "bfloat16": jnp.bfloat16, "float16": jnp.float16}
BITS = {"float32": np.uint32, "float64": np.uint64, "bfloat16": np.uint16, "float16": np.uint16}


def _inputs(name):
    """Every bit pattern of a 16-bit type; for float32 and float64 a grid over both tails, N(0, 1) draws, specials."""
    if BITS[name] is np.uint16:
        return jnp.asarray(np.arange(65536, dtype=np.uint16)).view(DTYPES[name])
    rng = np.random.default_rng(3)
    xs = np.concatenate([np.linspace(-40, 12, 5201), rng.standard_normal(2000), [0.0, -0.0, np.inf, -np.inf, np.nan,
                                                                                   1e-300, -1e-300, 1e-40, -1e-40]])
    return jnp.asarray(xs, DTYPES[name])


def _library(name, approximate, x, grad=None):
    """The library's C entry points on the same bits (the binding's pointer functions, which take every dtype)."""
    x = np.asarray(x).view(BITS[name])
    out = np.empty_like(x)
    if grad is None:
        _gelu._forward_ptr(x.ctypes.data, out.ctypes.data, x.size, _gelu._DTYPES[name], FORMS.index(approximate))
    else:
        g = np.asarray(grad).view(BITS[name])
        _gelu._backward_ptr(g.ctypes.data, x.ctypes.data, out.ctypes.data, x.size, _gelu._DTYPES[name],
                            FORMS.index(approximate))
    return out


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("approximate", FORMS)
def test_same_bits_as_the_library(name, approximate):
    x = _inputs(name)
    g = jnp.asarray(np.random.default_rng(4).standard_normal(x.shape), DTYPES[name])
    y, vjp = jax.vjp(lambda v: gj.gelu(v, approximate), x)
    assert y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(np.asarray(y).view(BITS[name]), _library(name, approximate, x))
    (d,) = vjp(g)
    np.testing.assert_array_equal(np.asarray(d).view(BITS[name]), _library(name, approximate, x, g))


@pytest.mark.parametrize("approximate", FORMS)
def test_jit_grad_vmap(approximate):
    x = jnp.asarray(np.random.default_rng(5).standard_normal((3, 5, 7)) * 4, jnp.float32)
    want = gj.gelu(x, approximate)
    jitted = jax.jit(gj.gelu, static_argnums=1)
    np.testing.assert_array_equal(jitted(x, approximate), want)
    np.testing.assert_array_equal(jax.vmap(lambda v: gj.gelu(v, approximate))(x), want)
    np.testing.assert_array_equal(jax.vmap(jax.vmap(lambda v: gj.gelu(v, approximate)), in_axes=1, out_axes=1)(x),
                                  want)
    grad = jax.jit(jax.grad(lambda v: gj.gelu(v, approximate).sum()))(x)
    np.testing.assert_array_equal(np.asarray(grad).view(np.uint32),
                                  _library("float32", approximate, x, jnp.ones_like(x)).reshape(x.shape))
    per_row = jax.vmap(jax.grad(lambda v: gj.gelu(v, approximate).sum()))(x)
    np.testing.assert_array_equal(per_row, grad)


def _train(activation, steps=5):
    """A 2-layer MLP (16 -> 32 -> 1) trained by plain gradient descent with jax.grad; returns the final parameters."""
    rng = np.random.default_rng(6)
    params = [jnp.asarray(rng.standard_normal(s) * 0.5, jnp.float32) for s in ((16, 32), (32,), (32, 1), (1,))]
    xs = jnp.asarray(rng.standard_normal((64, 16)), jnp.float32)
    ys = jnp.asarray(rng.standard_normal((64, 1)), jnp.float32)

    def loss(p):
        h = activation(xs @ p[0] + p[1])
        return jnp.mean((h @ p[2] + p[3] - ys) ** 2)
    step = jax.jit(lambda p: [w - 0.05 * d for w, d in zip(p, jax.grad(loss)(p))])
    for _ in range(steps):
        params = step(params)
    return params, loss(params)


def test_mlp_trains_as_with_jax_nn_gelu():
    # The exact form: jax.nn.gelu(approximate=False) is right to a few ULP over N(0, 1) activations, so training
    # agrees to float32 rounding; the loss went down.
    ours, ours_loss = _train(lambda h: gj.gelu(h, "none"))
    theirs, theirs_loss = _train(lambda h: jax.nn.gelu(h, approximate=False))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ours_loss, theirs_loss, rtol=1e-4)
    _, start = _train(lambda h: gj.gelu(h, "none"), steps=0)
    assert ours_loss < start


def test_the_tail_where_jax_nn_gelu_is_not_right():
    # What docs/PYTHON.md states of jax.nn.gelu (float32), asserted as stated, and the library's values there.
    x = jnp.asarray([-5.0, -14.0, -np.inf], jnp.float32)
    theirs_tanh, theirs_exact = jax.nn.gelu(x), jax.nn.gelu(x, approximate=False)
    assert theirs_tanh[0] == 0 and theirs_exact[1] == 0 and np.isnan(theirs_exact[2])
    ours_tanh, ours_exact = gj.gelu(x, "tanh"), gj.gelu(x, "none")
    assert -2.4e-7 < ours_tanh[0] < -2.2e-7  # the tanh form's value at -5: -2.29e-7
    assert ours_exact[1] == np.float32(-1.0930128e-43)  # GELU(-14), subnormal, within 1 ULP (gelu.forward's bits)
    assert ours_exact[2] == 0 and np.signbit(ours_exact[2])  # GELU(-inf) = -0


def test_refuses_what_the_library_does_not_compute():
    with pytest.raises(ValueError, match=r"unknown approximate 'erf'; valid values are 'none', 'tanh', 'sigmoid'"):
        gj.gelu(jnp.ones(3), "erf")
    with pytest.raises(ValueError, match=r"unknown approximate True"):
        gj.gelu(jnp.ones(3), True)
    with pytest.raises(TypeError, match=r"gelu.jax.gelu: the gelu library does not handle dtype int32"):
        gj.gelu(jnp.ones(3, jnp.int32))
