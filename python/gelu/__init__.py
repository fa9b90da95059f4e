# SPDX-License-Identifier: Apache-2.0
"""gelu: the GELU activation and its gradient on NumPy arrays, accurate for every input.

    >>> import numpy as np, gelu
    >>> gelu.forward(np.array([-14.0, -1.0, 0.0, 1.0], np.float32))  # F.gelu gives 0 at -14
    array([-1.0930128e-43, -1.5865526e-01,  0.0000000e+00,  8.4134477e-01],
          dtype=float32)
    >>> gelu.backward(np.ones(2), np.array([-1.0, 1.0]), approximate="tanh")
    array([-0.08296408,  1.08296408])

Functions (float16, float32 and float64 arrays, any shape or strides; the GIL is released during the work;
float16 results correctly rounded):
    forward(x, approximate="none", out=None)         y = f(x)
    backward(grad, x, approximate="none", out=None)  grad * f'(x)
    simd_target(), set_num_threads(n), get_num_threads()

approximate: "none" (exact GELU x*Phi(x), through erfc so the negative tail stays accurate), "tanh"
(PyTorch's approximate="tanh") or "sigmoid" (x*sigmoid(1.702x)). Float32 error: "none" <= 1 ULP,
"tanh" and "sigmoid" <= 2 ULP of their own formulas, over all 2^32 inputs.

PyTorch users: `import gelu.torch` for gelu.torch.gelu, gelu.torch.GELU and gelu.torch.replace_gelu.
"""
from gelu import _gelu
from gelu._gelu import (  # noqa: F401  (re-exported API)
    __version__,
    backward,
    forward,
    get_num_threads,
    set_num_threads,
    simd_target,
    variants,
)

#: The names `approximate=` accepts: ("none", "tanh", "sigmoid"), from the library's function table.
APPROXIMATIONS = _gelu._FORMS

__all__ = [
    "APPROXIMATIONS",
    "backward",
    "forward",
    "get_num_threads",
    "set_num_threads",
    "simd_target",
    "variants",
]
