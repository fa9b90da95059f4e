// SPDX-License-Identifier: Apache-2.0
// gelu.jax's CPU kernels as XLA FFI handlers (python/gelu/jax.py registers them with jax.ffi.register_ffi_target
// and calls them through jax.ffi.ffi_call): GeluForwardFfi(x) -> y and GeluBackwardFfi(grad, x) -> grad_in, attribute
// `approximate` (a form's name, gelu_approximate_from_name), for float32, float64, bfloat16 and float16 buffers of
// any shape (elementwise over their dense row-major elements). Built against XLA's header-only FFI API
// (jax.ffi.include_dir()), so the module links the library and nothing of jaxlib. Errors come back to JAX as
// XLA errors with one message; an unknown dtype or form computes nothing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gelu/gelu.h"
#include "xla/ffi/api/ffi.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace {

namespace ffi = xla::ffi;

// XLA runs CPU custom calls with flush-to-zero and denormals-are-zero set (x86's MXCSR FTZ and DAZ; Arm's FPCR FZ),
// which flushes the library's subnormal float64 results to zero (GELU(-38.0) in float64 came back -0, where the
// library gives -1.1e-314) and would read subnormal inputs as zero: the handlers run the library in IEEE mode and
// restore XLA's mode after. The library's own threads start in IEEE mode.
class IeeeSubnormals {
 public:
#if defined(__x86_64__) || defined(_M_X64)
  IeeeSubnormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ & ~kFtzDaz); }
  ~IeeeSubnormals() { _mm_setcsr(saved_); }

 private:
  static constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bit 15 (FTZ) and bit 6 (DAZ)
  unsigned saved_;
#elif defined(__aarch64__)
  IeeeSubnormals() : saved_(__builtin_aarch64_get_fpcr64()) { __builtin_aarch64_set_fpcr64(saved_ & ~kFz); }
  ~IeeeSubnormals() { __builtin_aarch64_set_fpcr64(saved_); }

 private:
  static constexpr unsigned long long kFz = 1ull << 24;  // FPCR.FZ
  unsigned long long saved_;
#endif
  IeeeSubnormals(const IeeeSubnormals&) = delete;
  IeeeSubnormals& operator=(const IeeeSubnormals&) = delete;
};

ffi::Error Failed(const char* op, gelu_status s) {
  return ffi::Error::InvalidArgument(std::string(op) + ": " + gelu_status_string(s));
}

ffi::Error Form(std::string_view approximate, gelu_approximate& form) {
  if (gelu_approximate_from_name(std::string(approximate).c_str(), &form) == GELU_OK) return ffi::Error::Success();
  return ffi::Error::InvalidArgument("gelu.jax: unknown approximate '" + std::string(approximate) + "'");
}

// The storage type of an XLA buffer the library computes, or an error naming it.
ffi::Error DtypeOf(ffi::DataType t, gelu_dtype& dtype) {
  switch (t) {
    case ffi::DataType::F32: dtype = GELU_DTYPE_FLOAT32; return ffi::Error::Success();
    case ffi::DataType::F64: dtype = GELU_DTYPE_FLOAT64; return ffi::Error::Success();
    case ffi::DataType::BF16: dtype = GELU_DTYPE_BFLOAT16; return ffi::Error::Success();
    case ffi::DataType::F16: dtype = GELU_DTYPE_FLOAT16; return ffi::Error::Success();
    default: return ffi::Error::InvalidArgument("gelu.jax: the gelu library does not handle this dtype");
  }
}

ffi::Error Forward(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y, std::string_view approximate) {
  gelu_approximate form;
  if (ffi::Error e = Form(approximate, form); e.failure()) return e;
  gelu_dtype dtype;
  if (ffi::Error e = DtypeOf(x.element_type(), dtype); e.failure()) return e;
  const IeeeSubnormals ieee;
  const gelu_status s = gelu_forward(dtype, x.untyped_data(), y->untyped_data(), x.element_count(), form);
  return s == GELU_OK ? ffi::Error::Success() : Failed("gelu.jax forward", s);
}

ffi::Error Backward(ffi::AnyBuffer grad, ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> grad_in,
                    std::string_view approximate) {
  gelu_approximate form;
  if (ffi::Error e = Form(approximate, form); e.failure()) return e;
  if (grad.element_type() != x.element_type() || grad.element_count() != x.element_count()) {
    return ffi::Error::InvalidArgument("gelu.jax backward: grad and x must have the same dtype and shape");
  }
  gelu_dtype dtype;
  if (ffi::Error e = DtypeOf(x.element_type(), dtype); e.failure()) return e;
  const IeeeSubnormals ieee;
  const gelu_status s = gelu_backward(dtype, grad.untyped_data(), x.untyped_data(),
                                                   grad_in->untyped_data(), x.element_count(), form);
  return s == GELU_OK ? ffi::Error::Success() : Failed("gelu.jax backward", s);
}

}  // namespace

// The handlers' symbols, which jax.py reads through ctypes and wraps with jax.ffi.pycapsule.
XLA_FFI_DEFINE_HANDLER_SYMBOL(GeluForwardFfi, Forward,
                              ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().Attr<std::string_view>(
                                  "approximate"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(GeluBackwardFfi, Backward,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<std::string_view>("approximate"));
