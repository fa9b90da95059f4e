# SPDX-License-Identifier: Apache-2.0
"""gelu.forward / gelu.backward on NumPy arrays: values against mpmath, special values, layouts, errors."""
import sys
import threading
import time

import numpy as np
import pytest

import gelu
from gelu import _gelu
from mp_reference import gelu_mp, max_ulp

# The function table of the library (src/common/functions.h): the forms of `approximate` and every bound.
FUNCTIONS = {(f["form"], f["backward"]): f for f in _gelu._FUNCTIONS}
FORMS = tuple(f["form"] for f in _gelu._FUNCTIONS if "float64" in f["types"] and not f["backward"])
NEAR_ROOT = _gelu._NEAR_ROOT
F32, F64 = np.float32, np.float64

# Thresholds of the exact form in float32 (docs/STYLE: mpmath at 120 bits): subnormal results below
# 0x1.a4ae0ep+3 (about -13.146), -0 at and below -0x1.cb64eap+3 (about -14.356).
SUBNORMAL_BELOW = -float.fromhex("0x1.a4ae0ep+3")
ZERO_AT = -float.fromhex("0x1.cb64eap+3")


def sample(dtype, seed=1):
    """Dense grid over [-15, 6] (both tails of every form), N(0,1) draws, tiny and huge magnitudes."""
    rng = np.random.default_rng(seed)
    info = np.finfo(dtype)
    tiny = [info.smallest_subnormal, info.tiny, 1e-30, 1e-10, 1e-4]
    huge = [1e4, 1e20, float(info.max)]
    special_points = [-10.0, -13.0, -14.0, SUBNORMAL_BELOW, ZERO_AT, -0.7518, 5.3475, 3.0, -3.0]
    xs = np.concatenate([
        np.linspace(-15.0, 6.0, 1401),
        rng.standard_normal(400),
        tiny, np.negative(tiny), huge, np.negative(huge), special_points,
    ]).astype(dtype)
    # Each threshold and its float neighbours.
    thresholds = np.array([SUBNORMAL_BELOW, ZERO_AT], dtype)
    return np.concatenate([xs, np.nextafter(thresholds, dtype(-np.inf)), np.nextafter(thresholds, dtype(np.inf))])


@pytest.fixture(autouse=True)
def restore_threads():
    n = gelu.get_num_threads()
    yield
    gelu.set_num_threads(n)


# Issue 2's float32 bounds: forward "none" <= 1 ULP, "tanh"/"sigmoid" <= 2 ULP of their own formula;
# backward <= 2 ULP, or absolute <= 2^-24 where |f'| < 2^-8. float64: <= 2 ULP.
@pytest.mark.parametrize("approximate", FORMS)
def test_forward_float32_matches_mpmath(approximate):
    xs = sample(F32)
    ys = gelu.forward(xs, approximate)
    assert ys.dtype == F32 and ys.shape == xs.shape
    err, x = max_ulp(xs, ys, approximate, F32)
    bound = FUNCTIONS[approximate, False]["f32_ulp"]
    assert err <= bound, f"{approximate}: {err:.3f} ULP at x={float(x).hex()}"


@pytest.mark.parametrize("approximate", FORMS)
def test_backward_float32_matches_mpmath(approximate):
    xs = sample(F32, seed=2)
    gs = gelu.backward(np.ones_like(xs), xs, approximate)
    fn = FUNCTIONS[approximate, True]
    err, x = max_ulp(xs, gs, approximate, F32, derivative=True, root_abs=fn["f32_abs"], near_root=NEAR_ROOT)
    assert err <= fn["f32_ulp"], f"{approximate}: {err:.3f} ULP at x={float(x).hex()}"


@pytest.mark.parametrize("approximate", FORMS)
def test_float64_matches_mpmath(approximate):
    xs = sample(F64, seed=3)[::3]
    err, x = max_ulp(xs, gelu.forward(xs, approximate), approximate, F64)
    assert err <= FUNCTIONS[approximate, False]["f64_ulp"], f"forward {approximate}: {err:.3f} ULP at x={float(x).hex()}"
    fn = FUNCTIONS[approximate, True]
    err, x = max_ulp(xs, gelu.backward(np.ones_like(xs), xs, approximate), approximate, F64, derivative=True,
                     root_abs=fn["f64_abs"], near_root=NEAR_ROOT)
    assert err <= fn["f64_ulp"], f"backward {approximate}: {err:.3f} ULP at x={float(x).hex()}"


def test_negative_tail_float32_is_tiny_but_nonzero():
    # The textbook 0.5*x*(1+erf(x/sqrt2)) returns 0 here; the true values are normal or subnormal floats.
    xs = np.array([-10.0, -13.0, -14.0], F32)
    ys = gelu.forward(xs)
    assert (ys < 0).all(), ys
    err, x = max_ulp(xs, ys, "none", F32)
    assert err <= FUNCTIONS["none", False]["f32_ulp"], f"{err:.3f} ULP at x={x}"
    zero = gelu.forward(np.array([ZERO_AT], F32))[0]
    assert zero == 0.0 and np.signbit(zero)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("approximate", FORMS)
def test_special_values(dtype, approximate):
    xs = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype)
    ys = gelu.forward(xs, approximate)
    assert np.isnan(ys[0])
    assert ys[1] == np.inf
    assert ys[2] == 0.0 and np.signbit(ys[2]), "GELU(-inf) must be -0"
    assert ys[3] == 0.0 and not np.signbit(ys[3])
    assert ys[4] == 0.0 and np.signbit(ys[4])
    big = np.finfo(dtype).max
    assert gelu.forward(np.array([big], dtype), approximate)[0] == big
    neg_big = gelu.forward(np.array([-big], dtype), approximate)[0]
    assert neg_big == 0.0 and np.signbit(neg_big)
    ds = gelu.backward(np.ones_like(xs), xs, approximate)
    assert np.isnan(ds[0])
    assert ds[1] == 1.0
    assert ds[2] == 0.0
    assert ds[3] == 0.5 and ds[4] == 0.5  # f'(0) = Phi(0) = sigmoid(0) = 1/2 for every form
    assert not np.isnan(gelu.backward(np.ones(2, dtype), np.array([big, -big], dtype), approximate)).any()


def test_backward_scales_by_grad():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(1000).astype(F64)
    g = rng.standard_normal(1000).astype(F64)
    d = gelu.backward(np.ones_like(x), x)
    # grad * f'(x) rounded once per element, so the product of the two rounded values is within 1 ULP.
    np.testing.assert_allclose(gelu.backward(g, x), g * d, rtol=3e-16, atol=0)


def layouts(a):
    """Views of `a` with every kind of layout the binding must handle."""
    yield "c", a
    yield "transposed", a.T
    yield "fortran", np.asfortranarray(a)
    yield "rows", a[::2]
    yield "cols", a[:, 1::3]
    yield "negative", a[::-1, ::-2]
    yield "3d", a.reshape(a.shape[0] // 4, 4, -1).transpose(2, 0, 1)
    buf = np.zeros(a.size * a.itemsize + 1, np.uint8)[1:]  # misaligned by one byte
    unaligned = buf.view(a.dtype).reshape(a.shape)
    unaligned[...] = a
    yield "unaligned", unaligned


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("approximate", FORMS)
def test_any_layout_equals_contiguous(dtype, approximate):
    rng = np.random.default_rng(5)
    base = (rng.standard_normal((12, 8)) * 4).astype(dtype)
    grad_base = rng.standard_normal((12, 8)).astype(dtype)
    for name, v in layouts(base):
        want = gelu.forward(np.ascontiguousarray(v), approximate)
        got = gelu.forward(v, approximate)
        assert got.shape == v.shape and got.dtype == dtype
        np.testing.assert_array_equal(got, want, err_msg=name)
        for oname, out in layouts(np.zeros_like(base)):
            if out.shape != v.shape:
                continue
            r = gelu.forward(v, approximate, out=out)
            assert r is out
            np.testing.assert_array_equal(out, want, err_msg=f"{name} -> {oname}")
        grads = dict(layouts(grad_base))
        for gv in (grads[name], np.ascontiguousarray(grads[name])):
            want_b = gelu.backward(np.ascontiguousarray(gv), np.ascontiguousarray(v), approximate)
            np.testing.assert_array_equal(gelu.backward(gv, v, approximate), want_b, err_msg=name)
            out = np.empty(v.shape[::-1], dtype).T  # Fortran-ordered out
            assert gelu.backward(gv, v, approximate, out=out) is out
            np.testing.assert_array_equal(out, want_b, err_msg=f"{name} -> Fortran out")


@pytest.mark.parametrize("dtype", [F32, F64])
def test_in_place(dtype):
    rng = np.random.default_rng(6)
    base = (rng.standard_normal((16, 9)) * 3).astype(dtype)
    grad = rng.standard_normal((16, 9)).astype(dtype)
    for name, _ in layouts(base):
        x = dict(layouts(base.copy()))[name]
        want = gelu.forward(np.ascontiguousarray(x), "tanh")
        assert gelu.forward(x, "tanh", out=x) is x
        np.testing.assert_array_equal(x, want, err_msg=name)
    # backward in place over grad, and over x
    x = base.copy()
    want = gelu.backward(grad, x)
    g = grad.copy()
    gelu.backward(g, x, out=g)
    np.testing.assert_array_equal(g, want)
    gelu.backward(grad, x, out=x)
    np.testing.assert_array_equal(x, want)
    g = grad.copy()[:, ::2]
    x = base.copy()[:, ::2]
    want = gelu.backward(g.copy(), x.copy())
    gelu.backward(g, x, out=g)
    np.testing.assert_array_equal(g, want)


def test_shapes_and_array_likes():
    assert gelu.forward(np.zeros((0, 3), F32)).shape == (0, 3)
    assert gelu.backward(np.zeros(0), np.zeros(0)).shape == (0,)
    s = gelu.forward(np.float32(1.0))  # 0-d
    assert s.shape == () and s.dtype == F32 and s == gelu.forward(np.array([1.0], F32))[0]
    lst = gelu.forward([-1.0, 0.0, 1.0])  # Python floats -> float64
    assert lst.dtype == F64
    np.testing.assert_array_equal(lst, gelu.forward(np.array([-1.0, 0.0, 1.0])))
    big = np.linspace(-8, 8, 1 << 20, dtype=F32).reshape(1024, 1024)
    np.testing.assert_array_equal(gelu.forward(big).ravel(), gelu.forward(big.ravel()))


def test_masked_arrays_keep_their_mask():
    # As NumPy's ufuncs: a MaskedArray in, a MaskedArray out, masked where an input is; the values are those of
    # the data (a masked element's fill value, 1e20 here, is computed like any other).
    data = np.array([-3.0, -1.0, 1e20, 0.5], F32)
    x = np.ma.masked_array(data, mask=[False, False, True, False])
    y = gelu.forward(x)
    assert isinstance(y, np.ma.MaskedArray)
    np.testing.assert_array_equal(np.ma.getmaskarray(y), [False, False, True, False])
    np.testing.assert_array_equal(y.data, gelu.forward(data))
    assert y.dtype == F32

    g = np.ma.masked_array(np.full(4, 2.0, F32), mask=[True, False, False, False])
    gi = gelu.backward(g, x, approximate="tanh")
    assert isinstance(gi, np.ma.MaskedArray)
    np.testing.assert_array_equal(np.ma.getmaskarray(gi), [True, False, True, False])  # either input's mask
    np.testing.assert_array_equal(gi.data, gelu.backward(g.data, data, approximate="tanh"))
    # A plain grad with a masked x, and the reverse.
    np.testing.assert_array_equal(np.ma.getmaskarray(gelu.backward(g.data, x)), x.mask)
    np.testing.assert_array_equal(np.ma.getmaskarray(gelu.backward(g, data)), g.mask)

    # out= a MaskedArray: written through its data, given the inputs' mask, returned itself; in place too.
    out = np.ma.masked_array(np.zeros(4, F32), mask=[False, True, False, False])
    assert gelu.forward(x, out=out) is out
    np.testing.assert_array_equal(out.mask, x.mask)
    np.testing.assert_array_equal(out.data, gelu.forward(data))
    z = x.copy()
    assert gelu.forward(z, out=z) is z
    np.testing.assert_array_equal(z.data, gelu.forward(data))
    np.testing.assert_array_equal(z.mask, x.mask)
    # A masked out for a plain input: the result has no masked element, even where out's mask is hard.
    out2 = np.ma.masked_array(np.zeros(4, F32), mask=True)
    gelu.forward(data, out=out2)
    assert not np.ma.getmaskarray(out2).any()
    hard = np.ma.masked_array(np.zeros(4, F32), mask=True, hard_mask=True)
    assert gelu.forward(data, out=hard) is hard
    assert not np.ma.getmaskarray(hard).any() and hard.hardmask
    np.testing.assert_array_equal(hard.data, gelu.forward(data))
    # A plain out is returned as it is, as np.sin(masked, out=plain) does.
    plain = np.zeros(4, F32)
    assert gelu.forward(x, out=plain) is plain
    np.testing.assert_array_equal(plain, gelu.forward(data))
    assert gelu.backward(g, x, out=plain) is plain
    # The first masked input's fill_value and hard_mask carry over; the mask is the result's own.
    h = np.ma.masked_array(data, mask=[False, True, False, False], fill_value=7.0, hard_mask=True)
    hy = gelu.forward(h)
    assert hy.fill_value == 7.0 and hy.hardmask
    g5 = np.ma.masked_array(np.ones(4, F32), mask=[True, False, False, False], fill_value=5.0)
    assert gelu.backward(g5, h).fill_value == 5.0  # grad's, the first masked input's
    hy.mask[0] = True
    assert not h.mask[0]
    # No mask at all (nomask) stays a MaskedArray with nothing masked.
    m = gelu.forward(np.ma.masked_array(data))
    assert isinstance(m, np.ma.MaskedArray) and not np.ma.getmaskarray(m).any()
    # The checks on the data still apply.
    with pytest.raises(TypeError, match="dtype int64"):
        gelu.forward(np.ma.masked_array(np.arange(3)))


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("approximate", FORMS)
def test_threads_do_not_change_results(approximate, dtype):
    # Explicit thread counts: "all threads" is one thread on a 1-CPU runner, the same path as 1.
    x = np.random.default_rng(7).standard_normal((1 << 17) + 5).astype(dtype)
    g = np.random.default_rng(8).standard_normal(x.size).astype(dtype)
    results = {}
    for threads in (1, 2, 3, 7):
        gelu.set_num_threads(threads)
        assert gelu.get_num_threads() == threads
        results[threads] = (gelu.forward(x, approximate), gelu.backward(g, x, approximate))
    for threads in (2, 3, 7):
        np.testing.assert_array_equal(results[threads][0], results[1][0])
        np.testing.assert_array_equal(results[threads][1], results[1][1])


def test_docstring_examples():
    import doctest
    failed, attempted = doctest.testmod(gelu, verbose=False)
    assert attempted >= 2 and failed == 0


def test_simd_target_and_version():
    assert isinstance(gelu.simd_target(), str) and gelu.simd_target()
    assert gelu.__version__.count(".") == 2
    assert gelu.APPROXIMATIONS == FORMS == ("none", "tanh", "sigmoid")


def test_gil_released_during_call():
    # While a worker thread is inside gelu.forward, the main thread must keep running Python. With the GIL
    # held it could only run at the edges of a call (before entry, after exit), never in its middle half.
    gelu.set_num_threads(1)
    n = 1 << 20
    x = np.linspace(-10, 10, n)
    while True:  # ~10 ms a call or more, without passing 16 Mi doubles (128 MB) on a fast machine
        t = time.perf_counter()
        gelu.forward(x)
        if time.perf_counter() - t > 0.01 or n >= 1 << 24:
            break
        n *= 2
        x = np.linspace(-10, 10, n)
    calls, stamps = [], []
    done = threading.Event()

    def worker():
        for _ in range(8):
            t0 = time.perf_counter()
            gelu.forward(x)
            calls.append((t0, time.perf_counter()))
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        th = threading.Thread(target=worker)
        th.start()
        while not done.is_set():
            stamps.append(time.perf_counter())
        th.join()
    finally:
        sys.setswitchinterval(old)
    stamps = np.array(stamps)
    inside = sum(
        int(np.count_nonzero((stamps > t0 + (t1 - t0) / 4) & (stamps < t1 - (t1 - t0) / 4))) for t0, t1 in calls)
    assert inside > 0, "the main thread never ran during a gelu.forward call: is the GIL held?"


# ---- bad inputs ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.complex64, np.bool_, ">f4", ">f2"])
def test_other_dtypes_raise_type_error(dtype):
    x = np.zeros(4, dtype)
    with pytest.raises(TypeError, match=r"x has dtype .*expected float16, float32 or float64"):
        gelu.forward(x)
    with pytest.raises(TypeError, match=r"has dtype"):
        gelu.backward(x, x)
    with pytest.raises(TypeError):
        gelu.forward(["a", "b"])


def test_dtype_mismatches():
    x = np.zeros(4, F32)
    with pytest.raises(TypeError, match=r"out has dtype float64 but x has dtype float32"):
        gelu.forward(x, out=np.zeros(4, F64))
    with pytest.raises(TypeError, match=r"grad has dtype float64 but x has dtype float32"):
        gelu.backward(np.zeros(4, F64), x)
    with pytest.raises(TypeError, match=r"out must be a numpy.ndarray"):
        gelu.forward(x, out=[0.0] * 4)


def test_shape_mismatches():
    x = np.zeros((2, 3), F32)
    with pytest.raises(ValueError, match=r"out has shape \(3, 2\) but x has shape \(2, 3\)"):
        gelu.forward(x, out=np.zeros((3, 2), F32))
    with pytest.raises(ValueError, match=r"out has shape \(6,\)"):
        gelu.forward(x, out=np.zeros(6, F32))
    with pytest.raises(ValueError, match=r"grad has shape \(2, 1\) but x has shape \(2, 3\)"):
        gelu.backward(np.zeros((2, 1), F32), x)  # no broadcasting


def test_partial_overlap_rejected():
    a = np.arange(10, dtype=F32)
    before = a.copy()
    with pytest.raises(ValueError, match=r"out overlaps x"):
        gelu.forward(a[1:], out=a[:-1])
    with pytest.raises(ValueError, match=r"out overlaps x"):
        gelu.forward(a[::-1], out=a)
    m = np.zeros((4, 4), F32)
    with pytest.raises(ValueError, match=r"out overlaps x"):
        gelu.forward(m, out=m.T)
    with pytest.raises(ValueError, match=r"out overlaps grad"):
        gelu.backward(a[:-1], a[1:].copy(), out=a[1:])
    with pytest.raises(ValueError, match=r"out overlaps x"):
        gelu.backward(a[1:].copy(), a[:-1], out=a[1:])
    np.testing.assert_array_equal(a, before)  # nothing written
    # Interleaved views share a byte range but no element: allowed, and computed correctly.
    b = np.linspace(-3, 3, 20).astype(F32)
    want = gelu.forward(b[::2].copy())
    gelu.forward(b[::2], out=b[1::2])
    np.testing.assert_array_equal(b[1::2], want)


def test_read_only_out():
    out = np.zeros(3, F32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"out is read-only"):
        gelu.forward(np.zeros(3, F32), out=out)
    x = np.ones(3, F32)
    x.flags.writeable = False
    assert gelu.forward(x)[0] == gelu.forward(np.ones(1, F32))[0]  # a read-only input is fine


def test_bad_approximate():
    x = np.zeros(2, F32)
    with pytest.raises(ValueError, match=r"unknown approximate 'erf'; valid values are 'none', 'tanh', 'sigmoid'"):
        gelu.forward(x, "erf")
    with pytest.raises(ValueError, match=r"unknown approximate"):
        gelu.backward(x, x, approximate="Tanh")
    with pytest.raises(TypeError, match=r"approximate must be a str"):
        gelu.forward(x, approximate=1)


def test_bad_thread_count():
    with pytest.raises(ValueError, match=r"n must be >= 0"):
        gelu.set_num_threads(-1)
    with pytest.raises(TypeError):
        gelu.set_num_threads("2")


def test_variants_lists_every_hugging_face_gelu_name():
    names = gelu.variants()
    assert names[0] == "gelu"
    for name in ("gelu_python", "gelu_new", "gelu_pytorch_tanh", "gelu_accurate", "gelu_fast", "quick_gelu",
                 "gelu_10"):
        assert name in names
    assert len(names) == len(set(names)) == 8
