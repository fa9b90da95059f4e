# SPDX-License-Identifier: Apache-2.0
"""gelu.check: judge a Python GELU (a callable on NumPy arrays or torch tensors) against the reference.

    >>> import torch, gelu.check
    >>> r = gelu.check.check(torch.nn.functional.gelu, dtype="bfloat16", device="cpu")
    >>> r.meets("abs10eps"), r.meets("correctly-rounded")  # profiles: ulp1, ulp4, torch, abs10eps, ...
    >>> print(r.report)  # the same report as `gelu check` (docs/CHECK.md)

The inputs, the metric, the report and the profiles are those of `gelu check` (tools/checker.h, bound into
gelu._gelu); this file only calls the callable on them. 16-bit types take all 65,536 inputs; float32 and float64
their stratified samples (float64 judged against MPFR, where the module was built with it). The callable gets
chunks of 2^16 inputs: NumPy arrays (float32, float16, float64) when device is None, else torch tensors of the
dtype on that device (a CUDA function is checked by moving chunks there and back).
backward=True calls fn(dy, x) with dy = 1.
"""
import json

import numpy as np

from gelu import _gelu

CHUNK = 1 << 16
DTYPES = ("float32", "bfloat16", "float16", "float64")


class CheckResult:
    """What gelu.check found: .report (text in the format asked for), .findings (the JSON report as a dict)."""

    def __init__(self, report, findings):
        self.report = report
        self.findings = findings

    def meets(self, profile):
        """Whether a profile holds: ulp1, ulp4, torch, abs10eps, correctly-rounded; exact:NAME against the exact
        GELU (judged against the form's formula otherwise)."""
        judgement = "own"
        if profile.startswith("exact:"):
            judgement, profile = "exact", profile[len("exact:"):]
        profiles = self.findings[judgement]["profiles"]
        if profile not in profiles:
            raise ValueError(f"gelu.check: unknown profile {profile!r}: the profiles are "
                             f"{', '.join(profiles)}, each also as exact:NAME")
        return profiles[profile]["pass"]

    @property
    def max_ulp(self):
        """The max error against the form's formula (ULP of the dtype)."""
        return float(self.findings["own"]["max_error"]["error"])

    def __repr__(self):
        return self.report


def _call(fn, backward, chunk, dtype, device):
    """fn on one chunk (values of the dtype, held in float32, or float64), its results as NumPy of the chunk's
    dtype; every misfit is a ValueError."""
    if device is None:
        if dtype == "bfloat16":
            raise ValueError("gelu.check: NumPy has no bfloat16; pass device='cpu' (or 'cuda') to call fn on torch "
                             "tensors")
        x = chunk.astype(dtype)
        args = (np.ones_like(x), x) if backward else (x,)
        y = fn(*args)
        if not isinstance(y, np.ndarray):
            raise ValueError(f"gelu.check: fn returned {type(y).__name__}, not a NumPy array")
        if y.shape != x.shape or y.dtype != x.dtype:
            raise ValueError(f"gelu.check: fn returned shape {y.shape} dtype {y.dtype} for an input of shape "
                             f"{x.shape} dtype {x.dtype}")
        return y.astype(chunk.dtype)
    import torch

    tdtype = getattr(torch, dtype)
    x = torch.from_numpy(chunk).to(device=device, dtype=tdtype)
    args = (torch.ones_like(x), x) if backward else (x,)
    y = fn(*args)
    if not isinstance(y, torch.Tensor):
        raise ValueError(f"gelu.check: fn returned {type(y).__name__}, not a torch tensor")
    if tuple(y.shape) != tuple(x.shape) or y.dtype != tdtype:
        raise ValueError(f"gelu.check: fn returned shape {tuple(y.shape)} dtype {y.dtype} for an input of shape "
                         f"{tuple(x.shape)} dtype {tdtype}")
    return y.detach().to(device="cpu", dtype=getattr(torch, str(chunk.dtype))).numpy()


def check(fn, approximate="none", backward=False, dtype="float32", device=None, format="table", require=()):
    """Judges fn, one form's forward (fn(x)) or backward (fn(dy, x)), in dtype, against the reference.

    Returns a CheckResult; raises AssertionError naming the profile when a profile in `require` fails, ValueError
    on bad arguments or on a result of the wrong shape or dtype."""
    if dtype not in DTYPES:
        raise ValueError(f"gelu.check: dtype must be one of {', '.join(DTYPES)}, not {dtype!r}")
    if format not in ("table", "markdown", "json"):
        raise ValueError(f"gelu.check: format must be table, markdown or json, not {format!r}")
    if isinstance(require, str):
        require = (require,)
    if not hasattr(_gelu, "_check_inputs"):
        raise RuntimeError("gelu.check: this build of the module has no checker (it links the checker of the gelu "
                           "command, tools/checker.h: build with GELU_BUILD_TOOLS=ON)")
    if dtype == "float64" and not _gelu._check_has_float64():
        raise RuntimeError("gelu.check: float64 needs MPFR, which this build of the checker was configured without")
    held = np.float64 if dtype == "float64" else np.float32
    x = np.frombuffer(_gelu._check_inputs(approximate, backward, dtype), held).copy()
    y = np.concatenate([_call(fn, backward, x[i:i + CHUNK], dtype, device) for i in range(0, len(x), CHUNK)])
    coverage = (f"stratified {dtype} sample" if dtype in ("float32", "float64") else f"all 65,536 {dtype} values") + \
        (f", callable on {device}" if device is not None else ", callable on NumPy")
    report, findings = _gelu._check_judge(x, np.ascontiguousarray(y), approximate, backward, dtype, format,
                                          coverage)
    result = CheckResult(report, json.loads(findings))
    for profile in require:
        if not result.meets(profile):
            raise AssertionError(f"gelu.check: {getattr(fn, '__name__', fn)} fails the profile {profile}")
    return result
