# SPDX-License-Identifier: Apache-2.0
"""gelu.check (python/gelu/check.py): a Python callable judged by the checker of `gelu check`."""
import math

import numpy as np
import pytest
import torch

import gelu
import gelu.check


def test_library_forward_is_correctly_rounded_in_float16_through_the_checker():
    for form in gelu.APPROXIMATIONS:
        r = gelu.check.check(lambda x: gelu.forward(x, approximate=form), approximate=form, dtype="float16",
                             require="correctly-rounded")
        assert r.findings["inputs"] == 65536
        assert r.findings["own"]["misrounded"] == 0


def test_library_float32_meets_its_bound_through_the_checker():
    r = gelu.check.check(gelu.forward, require="ulp1")
    assert r.max_ulp <= 1
    r = gelu.check.check(lambda dy, x: gelu.backward(dy, x, approximate="tanh"), approximate="tanh", backward=True)
    assert r.max_ulp <= 2


def test_library_float64_meets_its_bound_through_the_checker():
    # float64's stratified sample against MPFR, on NumPy and on torch tensors: the library's float64 bound (2 ULP).
    r = gelu.check.check(gelu.forward, dtype="float64", require="ulp4")
    assert r.findings["inputs"] > 100000 and "forward none float64" in r.report
    assert r.max_ulp <= 2
    r = gelu.check.check(lambda dy, x: gelu.backward(dy, x, approximate="sigmoid"), approximate="sigmoid",
                         backward=True, dtype="float64")
    assert r.max_ulp <= 2
    import gelu.torch as gt
    r = gelu.check.check(lambda x: gt.gelu(x, approximate="tanh"), approximate="tanh", dtype="float64",
                         device="cpu")
    assert r.max_ulp <= 2


def test_names_a_planted_float64_error_at_a_round_value():
    # One float64 result 3 ULP high at x = 1.5 (in the sample as a round value): named there, as the max error.
    def planted(x):
        y = gelu.forward(x)
        at = x == 1.5
        for _ in range(3):
            y[at] = np.nextafter(y[at], np.inf)
        return y
    r = gelu.check.check(planted, dtype="float64")
    worst = r.findings["own"]["max_error"]
    assert worst["x"] == 1.5 and 2 < worst["error"] <= 4.1
    assert not r.meets("ulp1") and r.meets("ulp4") is (worst["error"] <= 4)


def test_names_a_planted_wrong_result():
    # One float32 result 5 ULP high at x = 1 (a binade start: in the sample): the max error is there, ulp4 fails.
    def planted(x):
        y = gelu.forward(x)
        y[x == np.float32(1.0)] = np.nextafter(np.nextafter(np.nextafter(np.nextafter(np.nextafter(
            y[x == np.float32(1.0)], np.inf), np.inf), np.inf), np.inf), np.inf)
        return y
    r = gelu.check.check(planted)
    worst = r.findings["own"]["max_error"]
    assert worst["x"] == 1.0 and 4.5 < worst["error"] <= 5.5
    assert not r.meets("ulp4")
    with pytest.raises(AssertionError, match="fails the profile ulp4"):
        gelu.check.check(planted, require="ulp4")


def test_torch_callable_on_tensors_bfloat16():
    # Chunks go to the callable as torch.bfloat16 tensors; its answers are what the checker reports.
    f = torch.nn.functional.gelu
    r = gelu.check.check(f, dtype="bfloat16", device="cpu")
    assert r.findings["inputs"] == 65536
    own = f(torch.tensor([-math.inf], dtype=torch.bfloat16)).float().item()
    special = r.findings["specials"]["-inf"]
    assert (math.isnan(own) and special["y"] == "nan") or special["y"] == own
    assert "forward none bfloat16" in r.report


def test_bad_callables_and_arguments():
    with pytest.raises(ValueError, match="shape"):
        gelu.check.check(lambda x: gelu.forward(x)[:-1])
    with pytest.raises(ValueError, match="dtype float64"):
        gelu.check.check(lambda x: gelu.forward(x.astype(np.float64)))
    with pytest.raises(ValueError, match="not a NumPy array"):
        gelu.check.check(lambda x: list(x))
    with pytest.raises(ValueError, match="NumPy has no bfloat16"):
        gelu.check.check(gelu.forward, dtype="bfloat16")
    with pytest.raises(ValueError, match="unknown profile 'ulp2'"):
        gelu.check.check(gelu.forward, dtype="float16").meets("ulp2")
    with pytest.raises(ValueError,
                       match=r"^gelu.check: unknown approximate 'erf'; valid values are 'none', 'tanh', 'sigmoid'$"):
        gelu.check.check(gelu.forward, approximate="erf")


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_torch_callable_misrounded_count_equals_a_direct_count(device, request):
    # The callable gets its chunks on the device asked for (a CUDA tensor function is checked there), and the
    # checker's count of misrounded bf16 results equals a direct comparison of F.gelu on that device with the
    # library's correctly rounded gelu.torch.gelu on the CPU over all 65,536 inputs.
    if device == "cuda":
        request.getfixturevalue("cuda_device")
    seen = set()

    def f(x):
        seen.add(x.device.type)
        return torch.nn.functional.gelu(x)

    r = gelu.check.check(f, dtype="bfloat16", device=device)
    assert seen == {device}
    bits = torch.arange(1 << 16, dtype=torch.int32)
    x = torch.where(bits >= 1 << 15, bits - (1 << 16), bits).to(torch.int16).view(torch.bfloat16)
    theirs = torch.nn.functional.gelu(x.to(device)).cpu()
    import gelu.torch as gt
    want = gt.gelu(x)
    both_nan = torch.isnan(theirs.float()) & torch.isnan(want.float())  # a NaN for a number is misrounded
    direct = int(((theirs.view(torch.int16) != want.view(torch.int16)) & ~both_nan).sum())
    assert r.findings["own"]["misrounded"] == direct
