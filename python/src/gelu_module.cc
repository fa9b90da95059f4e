// SPDX-License-Identifier: Apache-2.0
// gelu._gelu: the NumPy face of the C API (include/gelu/gelu.h). It only checks and converts arguments,
// then calls gelu_forward_* / gelu_backward_* with the GIL released; all numerics live in the library. Built with
// GELU_PYTHON_CUDA (where gelu::gelu_cuda is built), it also takes raw CUDA pointers and a stream for gelu.torch.
//
// Layout: the kernels take flat arrays, which is right for any operands that are dense in the same
// order (all C-contiguous or all Fortran-contiguous). Anything else (slices, transposes, unaligned
// buffers) is copied to a C-contiguous buffer first and the result copied back into `out`, so strided
// inputs cost a copy but are never computed wrongly.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "gelu/gelu.h"
#include "src/common/functions.h"
#if defined(GELU_PYTHON_CHECK)
#include "tools/checker.h"
#endif
#ifdef GELU_PYTHON_CUDA
#include "gelu/gelu_cuda.h"
#endif

namespace py = pybind11;

namespace {

// NumPy's type numbers (numpy/ndarraytypes.h: NPY_FLOAT, NPY_DOUBLE, NPY_HALF) and NPY_ARRAY_ALIGNED;
// pybind11 does not name them.
constexpr int kNpyFloat = 11;
constexpr int kNpyDouble = 12;
constexpr int kNpyHalf = 23;
constexpr int kAligned = 0x0100;
constexpr const char* kAccepted = "float16, float32 or float64 (native byte order)";

// bf16 has no NumPy dtype: it comes only through the raw-pointer entry points (gelu.torch).

// The forms' names in gelu_approximate order, from the C API (gelu_approximate_name: NULL past the last form).
std::vector<std::string> FormNames() {
  std::vector<std::string> names;
  for (int f = 0; const char* name = gelu_approximate_name(static_cast<gelu_approximate>(f)); ++f) {
    names.emplace_back(name);
  }
  return names;
}

// "'none', 'tanh', 'sigmoid'": the forms' names, quoted.
std::string FormList() {
  std::string list;
  for (const std::string& name : FormNames()) list += (list.empty() ? "'" : ", '") + name + "'";
  return list;
}

gelu_approximate ParseApproximate(const char* fn, const py::handle& approximate) {
  if (!py::isinstance<py::str>(approximate)) {
    throw py::type_error(std::string(fn) + ": approximate must be a str, one of " + FormList() + "; got " +
                         std::string(py::str(py::type::handle_of(approximate).attr("__name__"))));
  }
  const std::string s = approximate.cast<std::string>();
  gelu_approximate a;
  if (gelu_approximate_from_name(s.c_str(), &a) == GELU_OK) return a;
  throw py::value_error(std::string(fn) + ": unknown approximate '" + s + "'; valid values are " + FormList());
}

std::string DTypeName(const py::array& a) { return std::string(py::str(a.dtype())); }

// Array-likes (lists, scalars, tensors with __array__) become arrays; ndarrays pass through untouched.
py::array AsArray(const char* fn, const char* name, const py::handle& obj) {
  if (py::isinstance<py::array>(obj)) return py::reinterpret_borrow<py::array>(obj);
  py::array a = py::array::ensure(obj);
  if (!a) {
    // ensure() swallows the conversion's own error, which is often the real cause (a torch tensor that requires
    // grad: "Can't call numpy() on Tensor that requires grad"): ask numpy again to show it.
    std::string cause;
    try {
      py::module_::import("numpy").attr("asarray")(obj);
    } catch (const py::error_already_set& e) {
      cause = " (" + std::string(py::str(e.type().attr("__name__"))) + ": " + std::string(py::str(e.value())) + ")";
    }
    throw py::type_error(std::string(fn) + ": " + name + " must be an array of " + kAccepted + "; got " +
                         std::string(py::str(py::type::handle_of(obj).attr("__name__"))) + cause);
  }
  return a;
}

gelu_dtype DtypeOf(const char* fn, const char* name, const py::array& a) {
  const py::dtype dt = a.dtype();
  constexpr char kNative = std::endian::native == std::endian::little ? '<' : '>';
  const bool native = dt.byteorder() == '=' || dt.byteorder() == kNative;
  const int num = dt.num();
  if (native && num == kNpyFloat) return GELU_DTYPE_FLOAT32;
  if (native && num == kNpyDouble) return GELU_DTYPE_FLOAT64;
  if (native && num == kNpyHalf) return GELU_DTYPE_FLOAT16;
  throw py::type_error(std::string(fn) + ": " + name + " has dtype " + DTypeName(a) + "; expected " + kAccepted);
}

bool SameShape(const py::array& a, const py::array& b) {
  if (a.ndim() != b.ndim()) return false;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (a.shape(i) != b.shape(i)) return false;
  }
  return true;
}

std::string ShapeString(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    s += std::to_string(a.shape(i));
    if (a.ndim() == 1 || i + 1 < a.ndim()) s += i + 1 < a.ndim() ? ", " : ",";
  }
  return s + ")";
}

// Byte range [lo, hi) spanned by a's elements, from its strides (which may be negative).
struct Extent {
  std::uintptr_t lo, hi;
};
Extent ExtentOf(const py::array& a) {
  auto lo = reinterpret_cast<std::uintptr_t>(a.data());
  std::uintptr_t hi = lo + static_cast<std::uintptr_t>(a.itemsize());
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    const py::ssize_t span = (a.shape(i) - 1) * a.strides(i);
    if (span < 0) lo -= static_cast<std::uintptr_t>(-span);
    else hi += static_cast<std::uintptr_t>(span);
  }
  return {lo, hi};
}

// Exact element-for-element aliasing: the one overlap the library computes in place.
bool Identical(const py::array& a, const py::array& b) {
  if (a.data() != b.data() || !SameShape(a, b)) return false;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (a.shape(i) > 1 && a.strides(i) != b.strides(i)) return false;
  }
  return true;
}

// Rejects an `out` that shares memory with `in` without being the very same elements. Disjoint byte
// ranges are the cheap common case; interleaved views (a[::2] vs a[1::2]) have overlapping ranges but no
// common element, which numpy.shares_memory decides exactly.
void CheckOverlap(const char* fn, const char* in_name, const py::array& in, const py::array& out) {
  if (in.size() == 0 || out.size() == 0) return;
  const Extent e = ExtentOf(in), f = ExtentOf(out);
  if (e.hi <= f.lo || f.hi <= e.lo || Identical(in, out)) return;
  // Leaked on purpose: a static py::object would be destroyed after the interpreter has finalized.
  static const py::handle shares_memory = py::object(py::module_::import("numpy").attr("shares_memory")).release();
  if (py::cast<bool>(shares_memory(in, out))) {
    throw py::value_error(std::string(fn) + ": out overlaps " + in_name +
                          " without being the same array; pass out=" + in_name +
                          " exactly for in-place, or a separate array");
  }
}

py::array CheckOut(const char* fn, const py::handle& out_obj, const py::array& like, const char* like_name) {
  if (!py::isinstance<py::array>(out_obj)) {
    throw py::type_error(std::string(fn) + ": out must be a numpy.ndarray or None; got " +
                         std::string(py::str(py::type::handle_of(out_obj).attr("__name__"))));
  }
  auto out = py::reinterpret_borrow<py::array>(out_obj);
  if (!out.dtype().equal(like.dtype())) {
    throw py::type_error(std::string(fn) + ": out has dtype " + DTypeName(out) + " but " + like_name +
                         " has dtype " + DTypeName(like) + "; they must match");
  }
  if (!SameShape(out, like)) {
    throw py::value_error(std::string(fn) + ": out has shape " + ShapeString(out) + " but " + like_name +
                          " has shape " + ShapeString(like));
  }
  if (!out.writeable()) throw py::value_error(std::string(fn) + ": out is read-only");
  return out;
}

constexpr int kC = py::array::c_style | kAligned;
constexpr int kF = py::array::f_style | kAligned;
bool Has(const py::array& a, int flags) { return (a.flags() & flags) == flags; }

// C-contiguous and aligned: `a` itself when it already is, else a fresh copy.
py::array Contiguous(const py::array& a) { return Has(a, kC) ? a : py::array::ensure(a, kC); }

// A new array shaped like `a`, dense in a's order when a is Fortran-ordered (as NumPy's order='K').
py::array EmptyLike(const py::array& a, bool fortran) {
  std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
  const py::ssize_t item = a.itemsize();
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t s = item;
  if (fortran) {
    for (size_t i = 0; i < shape.size(); ++i) strides[i] = s, s *= std::max<py::ssize_t>(shape[i], 1);
  } else {
    for (size_t i = shape.size(); i-- > 0;) strides[i] = s, s *= std::max<py::ssize_t>(shape[i], 1);
  }
  return py::array(a.dtype(), shape, strides);
}

void Check(const char* fn, gelu_status s) {
  // Arguments were validated above, so this is a library bug or an ABI mismatch; say what the library said.
  if (s != GELU_OK) throw py::value_error(std::string(fn) + ": " + gelu_status_string(s));
}

void RunForward(const char* fn, gelu_dtype t, const void* x, void* y, size_t n, gelu_approximate a) {
  gelu_status s;
  {
    py::gil_scoped_release release;
    s = gelu_forward(t, x, y, n, a);
  }
  Check(fn, s);
}

void RunBackward(const char* fn, gelu_dtype t, const void* g, const void* x, void* out, size_t n,
                 gelu_approximate a) {
  gelu_status s;
  {
    py::gil_scoped_release release;
    s = gelu_backward(t, g, x, out, n, a);
  }
  Check(fn, s);
}

// Writes `result` (C-contiguous) into `out` unless it already is out's memory.
void CopyBack(const py::array& result, const py::array& out) {
  if (result.ptr() == out.ptr()) return;
  static const py::handle copyto = py::object(py::module_::import("numpy").attr("copyto")).release();  // leaked, as above
  copyto(out, result);
}

py::array Forward(const py::handle& x_obj, const py::handle& approximate, const py::handle& out_obj) {
  constexpr const char* fn = "gelu.forward";
  const gelu_approximate a = ParseApproximate(fn, approximate);
  const py::array x = AsArray(fn, "x", x_obj);
  const gelu_dtype k = DtypeOf(fn, "x", x);
  const auto n = static_cast<size_t>(x.size());

  if (out_obj.is_none()) {
    const bool fortran = !Has(x, kC) && Has(x, kF);
    if (Has(x, kC) || fortran) {
      py::array y = EmptyLike(x, fortran);
      RunForward(fn, k, x.data(), y.mutable_data(), n, a);
      return y;
    }
    py::array xc = py::array::ensure(x, kC);  // a private copy: compute in place in it
    RunForward(fn, k, xc.data(), xc.mutable_data(), n, a);
    return xc;
  }

  py::array out = CheckOut(fn, out_obj, x, "x");
  CheckOverlap(fn, "x", x, out);
  if ((Has(x, kC) && Has(out, kC)) || (Has(x, kF) && Has(out, kF))) {
    RunForward(fn, k, x.data(), out.mutable_data(), n, a);
    return out;
  }
  py::array xc = Contiguous(x);
  py::array result = Has(out, kC) ? out : (xc.ptr() != x.ptr() ? xc : EmptyLike(x, false));
  RunForward(fn, k, xc.data(), result.mutable_data(), n, a);
  CopyBack(result, out);
  return out;
}

py::array Backward(const py::handle& grad_obj, const py::handle& x_obj, const py::handle& approximate,
                   const py::handle& out_obj) {
  constexpr const char* fn = "gelu.backward";
  const gelu_approximate a = ParseApproximate(fn, approximate);
  const py::array g = AsArray(fn, "grad", grad_obj);
  const py::array x = AsArray(fn, "x", x_obj);
  const gelu_dtype kg = DtypeOf(fn, "grad", g);
  const gelu_dtype k = DtypeOf(fn, "x", x);
  if (kg != k) {
    throw py::type_error(std::string(fn) + ": grad has dtype " + DTypeName(g) + " but x has dtype " +
                         DTypeName(x) + "; they must match");
  }
  if (!SameShape(g, x)) {
    throw py::value_error(std::string(fn) + ": grad has shape " + ShapeString(g) + " but x has shape " +
                          ShapeString(x) + "; they must match (no broadcasting)");
  }
  const auto n = static_cast<size_t>(x.size());

  const bool has_out = !out_obj.is_none();
  // py::array() is an empty float64 array, not a null handle, so `out` is only meaningful with has_out.
  py::array out = has_out ? CheckOut(fn, out_obj, x, "x") : x;
  if (has_out) {
    CheckOverlap(fn, "grad", g, out);
    CheckOverlap(fn, "x", x, out);
  }
  const bool all_c = Has(g, kC) && Has(x, kC) && (!has_out || Has(out, kC));
  const bool all_f = Has(g, kF) && Has(x, kF) && (!has_out || Has(out, kF));
  if (all_c || all_f) {
    if (!has_out) out = EmptyLike(x, !all_c);
    RunBackward(fn, k, g.data(), x.data(), out.mutable_data(), n, a);
    return out;
  }
  py::array gc = Contiguous(g), xc = Contiguous(x);
  // The result goes straight into a C-contiguous out, else into a private copy of grad (grad_in may
  // alias grad_out), else into a new array.
  py::array result = has_out && Has(out, kC) ? out : (gc.ptr() != g.ptr() ? gc : EmptyLike(x, false));
  RunBackward(fn, k, gc.data(), xc.data(), result.mutable_data(), n, a);
  if (!has_out) return result;
  CopyBack(result, out);
  return out;
}

// numpy.ma.MaskedArray arguments, as NumPy's own ufuncs treat them (numpy 1.24 compared): the values are computed
// from the arrays' data (every element, masked or not: GELU is defined on every float, so a masked element's fill
// value cannot fail); without `out`, the result is a MaskedArray whose mask is a copy of the inputs' masks ORed
// together, with the first masked input's fill_value and hard_mask; a MaskedArray `out` is written through its
// data and given that mask (a hard mask too: softened, set, hardened again) and returned; a plain ndarray `out`
// is returned as it is, unmasked. Without this a masked array went through as the ndarray it derives from and
// its mask was dropped: masked elements came back as ordinary values.
// numpy.ma's functions, looked up once: PYBIND11_MODULE calls Ma() at import, so no call of forward/backward
// initialises the static (a first initialisation under the GIL can deadlock concurrent first calls); leaked like
// the module's other handles.
struct NumpyMa {
  py::handle masked_array, mask_or, getmask, make_mask, nomask;
};
const NumpyMa& Ma() {
  static const NumpyMa ma = [] {
    const py::module_ m = py::module_::import("numpy.ma");
    return NumpyMa{py::object(m.attr("MaskedArray")).release(), py::object(m.attr("mask_or")).release(),
                   py::object(m.attr("getmask")).release(), py::object(m.attr("make_mask")).release(),
                   py::object(m.attr("nomask")).release()};
  }();
  return ma;
}
bool IsMasked(const py::handle& obj) { return py::isinstance(obj, Ma().masked_array); }
// The ndarray under a MaskedArray (a view), anything else as it is.
py::object DataOf(const py::handle& obj) {
  return IsMasked(obj) ? py::object(obj.attr("data")) : py::reinterpret_borrow<py::object>(obj);
}
// The result of an operation on `inputs` computed into `result` (out's data when out is masked).
py::object WithInputMasks(std::initializer_list<py::handle> inputs, const py::object& result,
                          const py::handle& out) {
  const NumpyMa& ma = Ma();
  py::object mask = py::reinterpret_borrow<py::object>(ma.nomask);
  py::handle first;
  for (const py::handle& in : inputs) {
    mask = ma.mask_or(mask, ma.getmask(in), py::arg("shrink") = false);
    if (!first && IsMasked(in)) first = in;
  }
  mask = ma.make_mask(mask, py::arg("copy") = true, py::arg("shrink") = false);  // the result's own
  if (IsMasked(out)) {
    const bool hard = py::cast<bool>(out.attr("hardmask"));
    if (hard) out.attr("soften_mask")();
    out.attr("mask") = mask;
    if (hard) out.attr("harden_mask")();
    return py::reinterpret_borrow<py::object>(out);
  }
  return ma.masked_array(result, py::arg("mask") = mask, py::arg("copy") = false,
                         py::arg("fill_value") = first.attr("fill_value"),
                         py::arg("hard_mask") = first.attr("hardmask"));
}

py::object ForwardAny(const py::handle& x, const py::handle& approximate, const py::handle& out) {
  if (!IsMasked(x) && !IsMasked(out)) return Forward(x, approximate, out);
  if (!out.is_none() && !IsMasked(out)) return Forward(DataOf(x), approximate, out);  // a plain out, returned
  return WithInputMasks({x}, Forward(DataOf(x), approximate, DataOf(out)), out);
}

py::object BackwardAny(const py::handle& grad, const py::handle& x, const py::handle& approximate,
                       const py::handle& out) {
  if (!IsMasked(grad) && !IsMasked(x) && !IsMasked(out)) return Backward(grad, x, approximate, out);
  if (!out.is_none() && !IsMasked(out)) return Backward(DataOf(grad), DataOf(x), approximate, out);
  return WithInputMasks({grad, x}, Backward(DataOf(grad), DataOf(x), approximate, DataOf(out)), out);
}

// Raw-pointer entry points for gelu.torch: contiguous tensors pass data_ptr() here, which skips the NumPy
// conversions (about 2 us a call) and stays zero-copy. Private: the caller guarantees valid pointers (host memory
// for the CPU ones, device memory of the stream's device for the CUDA ones). dtype and approximate are the C API's
// values (gelu_dtype: _DTYPES; gelu_approximate: the index in _FORMS), mapped once by the caller, not names parsed
// per call; the library refuses a value outside its enums (GELU_INVALID_ARGUMENT: ValueError, Check).
void ForwardPtr(std::uintptr_t x, std::uintptr_t y, size_t n, int dtype, int approximate) {
  RunForward("gelu.torch.gelu", static_cast<gelu_dtype>(dtype), reinterpret_cast<const void*>(x),
             reinterpret_cast<void*>(y), n, static_cast<gelu_approximate>(approximate));
}
void BackwardPtr(std::uintptr_t g, std::uintptr_t x, std::uintptr_t out, size_t n, int dtype, int approximate) {
  RunBackward("gelu.torch.gelu (backward)", static_cast<gelu_dtype>(dtype), reinterpret_cast<const void*>(g),
              reinterpret_cast<const void*>(x), reinterpret_cast<void*>(out), n,
              static_cast<gelu_approximate>(approximate));
}

#ifdef GELU_PYTHON_CUDA
// The CUDA library's statuses: bad arguments are the caller's (ValueError); a CUDA failure carries CUDA's text.
void CheckCuda(const char* fn, gelu_status s) {
  if (s == GELU_OK) return;
  if (s == GELU_CUDA_ERROR) throw std::runtime_error(std::string(fn) + ": " + gelu_cuda_last_error_string());
  throw py::value_error(std::string(fn) + ": " + gelu_status_string(s));
}

// Queued on `stream` (a cudaStream_t as an integer: torch.cuda.current_stream().cuda_stream), not waited for.
void CudaForwardPtr(std::uintptr_t x, std::uintptr_t y, size_t n, int dtype, int approximate, std::uintptr_t stream) {
  constexpr const char* fn = "gelu.torch.gelu (CUDA)";
  const auto a = static_cast<gelu_approximate>(approximate);
  const auto t = static_cast<gelu_dtype>(dtype);
  using H = uint16_t;
  const auto* xp = reinterpret_cast<const void*>(x);
  void* yp = reinterpret_cast<void*>(y);
  void* s = reinterpret_cast<void*>(stream);
  gelu_status status = GELU_INVALID_ARGUMENT;  // float64 (no CUDA kernel) and values outside the enum
  {
    py::gil_scoped_release release;
    switch (t) {
      case GELU_DTYPE_FLOAT32:
        status = gelu_cuda_forward_f32(static_cast<const float*>(xp), static_cast<float*>(yp), n, a, s);
        break;
      case GELU_DTYPE_FLOAT16:
        status = gelu_cuda_forward_f16(static_cast<const H*>(xp), static_cast<H*>(yp), n, a, s);
        break;
      case GELU_DTYPE_BFLOAT16:
        status = gelu_cuda_forward_bf16(static_cast<const H*>(xp), static_cast<H*>(yp), n, a, s);
        break;
      case GELU_DTYPE_FLOAT64: break;
    }
  }
  CheckCuda(fn, status);
}
void CudaBackwardPtr(std::uintptr_t g, std::uintptr_t x, std::uintptr_t out, size_t n, int dtype, int approximate,
                     std::uintptr_t stream) {
  constexpr const char* fn = "gelu.torch.gelu (CUDA backward)";
  const auto a = static_cast<gelu_approximate>(approximate);
  const auto t = static_cast<gelu_dtype>(dtype);
  using H = uint16_t;
  const auto* gp = reinterpret_cast<const void*>(g);
  const auto* xp = reinterpret_cast<const void*>(x);
  void* op = reinterpret_cast<void*>(out);
  void* s = reinterpret_cast<void*>(stream);
  gelu_status status = GELU_INVALID_ARGUMENT;  // float64 (no CUDA kernel) and values outside the enum
  {
    py::gil_scoped_release release;
    switch (t) {
      case GELU_DTYPE_FLOAT32:
        status = gelu_cuda_backward_f32(static_cast<const float*>(gp), static_cast<const float*>(xp),
                                        static_cast<float*>(op), n, a, s);
        break;
      case GELU_DTYPE_FLOAT16:
        status = gelu_cuda_backward_f16(static_cast<const H*>(gp), static_cast<const H*>(xp), static_cast<H*>(op), n,
                                        a, s);
        break;
      case GELU_DTYPE_BFLOAT16:
        status = gelu_cuda_backward_bf16(static_cast<const H*>(gp), static_cast<const H*>(xp), static_cast<H*>(op), n,
                                         a, s);
        break;
      case GELU_DTYPE_FLOAT64: break;
    }
  }
  CheckCuda(fn, status);
}
#endif

#if defined(GELU_PYTHON_CHECK)
// gelu.check's two steps in the checker of `gelu check` (tools/checker.h), so that Python judges with the same
// inputs, metric and report: the inputs (float32 array: 16-bit types all 65,536 values, exact in float32; float32
// the stratified sample; float64 array: float64's stratified sample), then the judging of the callable's results.
gelu::check::Spec CheckSpec(const std::string& form, bool backward, const std::string& dtype) {
  gelu::check::Spec s;
  gelu_approximate a;
  if (gelu_approximate_from_name(form.c_str(), &a) != GELU_OK) {
    throw py::value_error("gelu.check: unknown approximate '" + form + "'; valid values are " + FormList());
  }
  s.form = static_cast<gelu::Approximation>(a);
  s.backward = backward;
  try {
    s.type = gelu::check::ParseType(dtype);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string("gelu.check: ") + e.what());
  }
  return s;
}

// As bytes of float32 (gelu/check.py: numpy.frombuffer): arrays cross this boundary through the buffer protocol
// only, which every NumPy the module meets supports.
py::bytes CheckInputs(const std::string& form, bool backward, const std::string& dtype) {
  const gelu::check::Spec s = CheckSpec(form, backward, dtype);
  if (s.type == gelu::common::kF64) {
    const std::vector<double> x = gelu::check::StratifiedInputsF64(s);
    return py::bytes(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(double));
  }
  const std::vector<float> x =
      s.type == gelu::common::kF32 ? gelu::check::StratifiedInputsF32(s) : gelu::check::AllHalfInputs(s.type);
  return py::bytes(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(float));
}

std::span<const float> Float32Vector(const py::buffer_info& b, const char* name) {
  if (b.format != py::format_descriptor<float>::format() || b.ndim != 1 || (b.size > 1 && b.strides[0] != 4)) {
    throw py::value_error(std::string("gelu.check: ") + name + " must be a contiguous 1-D float32 array");
  }
  return {static_cast<const float*>(b.ptr), static_cast<size_t>(b.size)};
}

std::span<const double> Float64Vector(const py::buffer_info& b, const char* name) {
  if (b.format != py::format_descriptor<double>::format() || b.ndim != 1 || (b.size > 1 && b.strides[0] != 8)) {
    throw py::value_error(std::string("gelu.check: ") + name + " must be a contiguous 1-D float64 array");
  }
  return {static_cast<const double*>(b.ptr), static_cast<size_t>(b.size)};
}

// (report in `format`, the JSON report) for results y at inputs x (arrays of the same length: float64 for
// dtype float64, float32 otherwise).
py::tuple CheckJudge(py::buffer xb, py::buffer yb, const std::string& form, bool backward, const std::string& dtype,
                     const std::string& format, const std::string& coverage) {
  const gelu::check::Spec s = CheckSpec(form, backward, dtype);
  const py::buffer_info xi = xb.request(), yi = yb.request();
  const bool f64 = s.type == gelu::common::kF64;
  std::span<const float> x, y;
  std::span<const double> x64, y64;
  if (f64) {
    x64 = Float64Vector(xi, "x");
    y64 = Float64Vector(yi, "y");
  } else {
    x = Float32Vector(xi, "x");
    y = Float32Vector(yi, "y");
  }
  if (x.size() != y.size() || x64.size() != y64.size()) throw py::value_error("gelu.check: x and y differ in size");
  gelu::check::Findings f = gelu::check::NewFindings(s);
  {
    py::gil_scoped_release release;
    const auto t0 = std::chrono::steady_clock::now();
    if (f64) gelu::check::JudgeAll(s, x64, y64, {}, f);
    else gelu::check::Judge(s, x, y, {}, 0, f);
    f.true_cutoff = gelu::check::TrueTailCutoff(s);
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  f.coverage = coverage;
  const auto fmt = format == "markdown" ? gelu::check::ReportFormat::markdown
                   : format == "json"   ? gelu::check::ReportFormat::json
                                        : gelu::check::ReportFormat::table;
  return py::make_tuple(gelu::check::FormatFindings(f, fmt),
                        gelu::check::FormatFindings(f, gelu::check::ReportFormat::json));
}
#endif

}  // namespace

PYBIND11_MODULE(_gelu, m) {
  (void)Ma();  // numpy.ma's handles, looked up here, at import, under the import's lock
  m.doc() = "Binding of the gelu C library; use the `gelu` package, which re-exports these functions.";
  m.attr("__version__") = GELU_VERSION_STRING;
  // The names approximate= accepts, in gelu_approximate order: the forms of the function table.
  const std::vector<std::string> form_names = FormNames();
  py::tuple forms(form_names.size());
  for (size_t f = 0; f < form_names.size(); ++f) forms[f] = form_names[f];
  m.attr("_FORMS") = forms;
  // The storage types' names and their gelu_dtype values (the pointer functions take the values).
  py::dict dtypes;
  for (const gelu_dtype t : gelu::common::kTypes) dtypes[gelu_dtype_name(t)] = static_cast<int>(t);
  m.attr("_DTYPES") = dtypes;
  // The function table (src/common/functions.h) for the tests: one dict per function, and the near-root window.
  py::list functions;
  for (const gelu::common::Function& f : gelu::common::kFunctions) {
    py::list types;
    for (const gelu_dtype t : gelu::common::kTypes) {
      if (f.Has(t)) types.append(gelu_dtype_name(t));
    }
    py::dict d;
    d["name"] = f.name;
    d["form"] = gelu::common::kFormNames[f.form()];
    d["backward"] = f.backward();
    d["types"] = types;
    d["f32_ulp"] = f.f32_ulp;
    d["f32_abs"] = f.f32_abs;
    d["f64_ulp"] = f.f64_ulp;
    d["f64_abs"] = f.f64_abs;
    functions.append(d);
  }
  m.attr("_FUNCTIONS") = functions;
  m.attr("_NEAR_ROOT") = py::make_tuple(gelu::common::kNearRoot.lo, gelu::common::kNearRoot.hi,
                                         gelu::common::kNearRoot.max_derivative);

  m.def("forward", &ForwardAny, py::arg("x"), py::arg("approximate") = "none", py::arg("out") = py::none(),
        R"doc(forward(x, approximate="none", out=None) -> numpy.ndarray

GELU of every element of x: y = f(x).

x: array of float16, float32 or float64, any shape and strides (array-likes are converted). float16 results
    are correctly rounded (the GELU of the exact input, rounded once).
approximate: "none" (exact, x*Phi(x)), "tanh" (PyTorch's tanh form) or "sigmoid" (x*sigmoid(1.702x)).
out: optional array of x's dtype and shape to write into; out=x computes in place. Any other overlap
    with x raises ValueError.
Returns out, or a new array. A numpy.ma.MaskedArray x gives a MaskedArray with x's mask (a masked out gets
that mask), as NumPy's ufuncs do. Accuracy (float32): "none" <= 1 ULP, "tanh"/"sigmoid" <= 2 ULP of their
formulas, for every input. The GIL is released while the library runs.

Example: gelu.forward(np.array([-1.0, 0.0, 1.0], np.float32))
)doc");
  m.def("backward", &BackwardAny, py::arg("grad"), py::arg("x"), py::arg("approximate") = "none",
        py::arg("out") = py::none(),
        R"doc(backward(grad, x, approximate="none", out=None) -> numpy.ndarray

Gradient of GELU: grad * f'(x), elementwise, as torch's gelu_backward(grad, x, approximate).

grad, x: arrays of the same float dtype (float16, float32 or float64) and the same shape (no broadcasting).
out: optional array like x; out=grad or out=x computes in place; any other overlap raises ValueError.
Returns out, or a new array; with a numpy.ma.MaskedArray among grad, x and out, a MaskedArray masked where grad
or x is. The GIL is released while the library runs.
)doc");
  m.def("_forward_ptr", &ForwardPtr, py::arg("x"), py::arg("y"), py::arg("n"), py::arg("dtype"),
        py::arg("approximate"));
  m.def("_backward_ptr", &BackwardPtr, py::arg("grad"), py::arg("x"), py::arg("out"), py::arg("n"),
        py::arg("dtype"), py::arg("approximate"));
#ifdef GELU_PYTHON_CUDA
  m.attr("_cuda_built") = true;
  m.def("_cuda_forward_ptr", &CudaForwardPtr, py::arg("x"), py::arg("y"), py::arg("n"), py::arg("dtype"),
        py::arg("approximate"), py::arg("stream"));
  m.def("_cuda_backward_ptr", &CudaBackwardPtr, py::arg("grad"), py::arg("x"), py::arg("out"), py::arg("n"),
        py::arg("dtype"), py::arg("approximate"), py::arg("stream"));
#else
  m.attr("_cuda_built") = false;
#endif

  m.def("simd_target", [] { return std::string(gelu_simd_target()); },
        "The instruction set the library chose for this CPU at run time, e.g. 'AVX2'.");
  m.def(
      "set_num_threads",
      [](int n) {
        if (n < 0) throw py::value_error("gelu.set_num_threads: n must be >= 0 (0 = all hardware threads); got " +
                                         std::to_string(n));
        gelu_set_num_threads(n);
      },
      py::arg("n"),
      "Threads the library uses for large arrays; 0 = all hardware threads (the default, or the environment "
      "variable GELU_NUM_THREADS). Results are bit-identical whatever the count.");
  m.def("get_num_threads", &gelu_get_num_threads, "Threads the library uses for large arrays.");
  m.def(
      "variants",
      [] {
        py::list names;
        for (int v = 0; v < GELU_VARIANT_COUNT; ++v) names.append(gelu_variant_name(static_cast<gelu_variant>(v)));
        return names;
      },
      "The named GELU variants the library computes (Hugging Face ACT2FN names, docs/VARIANTS.md), in the C API's "
      "order, e.g. 'gelu', 'gelu_new', 'gelu_fast', 'quick_gelu'.");
#if defined(GELU_PYTHON_CHECK)
  m.def("_check_has_float64", &gelu::check::HasFloat64, "Whether the checker judges float64 (built with MPFR).");
  m.def("_check_inputs", &CheckInputs, py::arg("approximate"), py::arg("backward"), py::arg("dtype"),
        "gelu.check's inputs (tools/checker.h), as the bytes of a float32 array.");
  m.def("_check_judge", &CheckJudge, py::arg("x"), py::arg("y"), py::arg("approximate"), py::arg("backward"),
        py::arg("dtype"), py::arg("format"), py::arg("coverage"),
        "Judges results y at x: (report in format, JSON report).");
#endif
}
