// SPDX-License-Identifier: Apache-2.0
// gelu: the idiomatic C++20 face of the C API in gelu.h (spans, enum class, exceptions).
//
//   std::vector<float> x = {-1.f, 0.f, 1.f}, y(3);
//   gelu::forward(x, y, gelu::Approximation::tanh);        // y = GELU_tanh(x)
//   gelu::backward(dy, x, dx);                             // dx = dy * GELU'(x), exact form
//   float v = gelu::forward(0.5f);                         // one value
//
// Errors (size mismatch, partial overlap) throw gelu::Error, derived from std::invalid_argument: a size mismatch
// names the arguments ("x has 3 elements but y has 2"), anything else gives the C status's text
// (gelu_status_string). Accuracy and special values: see gelu.h.
#ifndef GELU_GELU_HPP_
#define GELU_GELU_HPP_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "gelu/gelu.h"

namespace gelu {

enum class Approximation { none = GELU_APPROXIMATE_NONE, tanh = GELU_APPROXIMATE_TANH, sigmoid = GELU_APPROXIMATE_SIGMOID };

// "none", "tanh" or "sigmoid", as PyTorch's `approximate=` spells them: gelu_approximate_name's (the library's one
// list of forms); "unknown" for a value outside the enum.
inline const char* to_string(Approximation a) {
  const char* name = gelu_approximate_name(static_cast<gelu_approximate>(a));
  return name != nullptr ? name : "unknown";
}

class Error : public std::invalid_argument {
 public:
  Error(gelu_status status, const std::string& what) : std::invalid_argument(what), status_(status) {}
  gelu_status status() const noexcept { return status_; }

 private:
  gelu_status status_;
};

namespace detail {
inline void check(gelu_status s, const char* function) {
  if (s != GELU_OK) throw Error(s, std::string(function) + ": " + gelu_status_string(s));
}
template <class T>
void check_sizes(const char* function, std::span<const T> in, std::span<T> out, const char* in_name,
                 const char* out_name) {
  if (in.size() != out.size()) {
    throw Error(GELU_INVALID_ARGUMENT, std::string(function) + ": " + in_name + " has " +
                                           std::to_string(in.size()) + " elements but " + out_name + " has " +
                                           std::to_string(out.size()));
  }
}
inline gelu_approximate c_enum(Approximation a) { return static_cast<gelu_approximate>(a); }
}  // namespace detail

// y = f(x). x and y may be the same memory (in place); a partial overlap throws.
inline void forward(std::span<const float> x, std::span<float> y, Approximation a = Approximation::none) {
  detail::check_sizes("gelu::forward", x, y, "x", "y");
  detail::check(gelu_forward_f32(x.data(), y.data(), x.size(), detail::c_enum(a)), "gelu::forward");
}
inline void forward(std::span<const double> x, std::span<double> y, Approximation a = Approximation::none) {
  detail::check_sizes("gelu::forward", x, y, "x", "y");
  detail::check(gelu_forward_f64(x.data(), y.data(), x.size(), detail::c_enum(a)), "gelu::forward");
}

// grad_in = grad_out * f'(x). grad_in may alias grad_out or x exactly.
inline void backward(std::span<const float> grad_out, std::span<const float> x, std::span<float> grad_in,
                     Approximation a = Approximation::none) {
  detail::check_sizes("gelu::backward", grad_out, grad_in, "grad_out", "grad_in");
  detail::check_sizes("gelu::backward", x, grad_in, "x", "grad_in");
  detail::check(gelu_backward_f32(grad_out.data(), x.data(), grad_in.data(), x.size(), detail::c_enum(a)),
                "gelu::backward");
}
inline void backward(std::span<const double> grad_out, std::span<const double> x, std::span<double> grad_in,
                     Approximation a = Approximation::none) {
  detail::check_sizes("gelu::backward", grad_out, grad_in, "grad_out", "grad_in");
  detail::check_sizes("gelu::backward", x, grad_in, "x", "grad_in");
  detail::check(gelu_backward_f64(grad_out.data(), x.data(), grad_in.data(), x.size(), detail::c_enum(a)),
                "gelu::backward");
}

// One value, through the same dispatched kernels (so the same bits as the array functions).
inline float forward(float x, Approximation a = Approximation::none) {
  float y;
  forward(std::span<const float>(&x, 1), std::span<float>(&y, 1), a);
  return y;
}
inline double forward(double x, Approximation a = Approximation::none) {
  double y;
  forward(std::span<const double>(&x, 1), std::span<double>(&y, 1), a);
  return y;
}
// f'(x).
inline float derivative(float x, Approximation a = Approximation::none) {
  const float one = 1.0f;
  float g;
  backward(std::span<const float>(&one, 1), std::span<const float>(&x, 1), std::span<float>(&g, 1), a);
  return g;
}
inline double derivative(double x, Approximation a = Approximation::none) {
  const double one = 1.0;
  double g;
  backward(std::span<const double>(&one, 1), std::span<const double>(&x, 1), std::span<double>(&g, 1), a);
  return g;
}

inline void set_num_threads(int n) { gelu_set_num_threads(n); }
inline int num_threads() { return gelu_get_num_threads(); }
inline const char* simd_target() { return gelu_simd_target(); }

// ==== Half precision, fused operations, named variants =========================================================
//
//   std::vector<gelu::bf16> x(n), y(n);                     // bfloat16 storage (the bit pattern)
//   x[0] = gelu::bf16::from_float(1.5f);
//   gelu::forward(std::span<const gelu::bf16>(x), std::span<gelu::bf16>(y));   // correctly rounded
//   gelu::bias_forward(x32, bias32, y32, gelu::Approximation::tanh);          // y = f(x + bias), rows x bias.size()
//   gelu::Variant v = gelu::variant_from_name("gelu_new");                  // throws on unknown names
//   gelu::forward(v, x32, y32);
//
// Semantics, accuracy and aliasing rules: the matching C functions in gelu.h.

// bfloat16 and IEEE binary16 values as stored: the 16-bit pattern and nothing else (standard layout, 2 bytes, so a
// span of them is passed to the C API as uint16_t). from_float rounds to nearest even; to_float is exact.
struct bf16 {
  uint16_t bits;
  static constexpr bf16 from_bits(uint16_t b) { return bf16{b}; }
  static constexpr bf16 from_float(float f) {
    const uint32_t u = std::bit_cast<uint32_t>(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{static_cast<uint16_t>((u >> 16) | 0x40u)};  // quiet NaN
    return bf16{static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)};  // carries reach inf correctly
  }
  constexpr float to_float() const { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }
  friend constexpr bool operator==(bf16, bf16) = default;  // bit equality (so NaN == NaN, +0 != -0)
};
struct f16 {
  uint16_t bits;
  static constexpr f16 from_bits(uint16_t b) { return f16{b}; }
  static constexpr f16 from_float(float f) {
    const uint32_t u = std::bit_cast<uint32_t>(f);
    const auto sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
    const uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return f16{static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu))};  // quiet NaN
    if (a >= 0x477ff000u) return f16{static_cast<uint16_t>(sign | 0x7c00u)};  // >= 65520 = 65504 + ulp/2: inf
    if (a >= 0x38800000u) {  // normal: rebias 127 -> 15, round away 13 bits (a carry moves to the exponent)
      const uint32_t r = a - 0x38000000u;
      return f16{static_cast<uint16_t>(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13))};
    }
    if (a <= 0x33000000u) return f16{sign};  // <= 2^-25, half the smallest subnormal (a tie rounds to even: 0)
    const uint32_t m = (a & 0x7fffffu) | 0x800000u, s = 126u - (a >> 23);  // |f| = m 2^-(s + 24): keep m >> s
    const uint32_t kept = m >> s, rest = m & ((1u << s) - 1u), half = 1u << (s - 1u);
    return f16{static_cast<uint16_t>(sign | (kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u)))};
  }
  constexpr float to_float() const {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16, e = (bits >> 10) & 0x1fu, m = bits & 0x3ffu;
    if (e == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (m << 13));
    if (e == 0) return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(static_cast<float>(m) * 0x1p-24f));
    return std::bit_cast<float>(sign | ((e + 112u) << 23) | (m << 13));
  }
  friend constexpr bool operator==(f16, f16) = default;
};
static_assert(sizeof(bf16) == 2 && sizeof(f16) == 2);

namespace detail {
inline const uint16_t* c_ptr(const bf16* p) { return reinterpret_cast<const uint16_t*>(p); }
inline uint16_t* c_ptr(bf16* p) { return reinterpret_cast<uint16_t*>(p); }
inline const uint16_t* c_ptr(const f16* p) { return reinterpret_cast<const uint16_t*>(p); }
inline uint16_t* c_ptr(f16* p) { return reinterpret_cast<uint16_t*>(p); }
inline const float* c_ptr(const float* p) { return p; }
inline float* c_ptr(float* p) { return p; }

// The C functions of one storage type.
template <class T>
struct api;
#define GELU_HPP_API(T, C, suffix)                                                              \
  template <>                                                                                   \
  struct api<T> {                                                                               \
    static constexpr auto bias_forward = gelu_bias_forward_##suffix;                            \
    static constexpr auto bias_backward = gelu_bias_backward_##suffix;                          \
    static constexpr auto geglu_forward = gelu_geglu_forward_##suffix;                          \
    static constexpr auto geglu_backward = gelu_geglu_backward_##suffix;                        \
    static constexpr auto geglu_rows_forward = gelu_geglu_rows_forward_##suffix;                \
    static constexpr auto geglu_rows_backward = gelu_geglu_rows_backward_##suffix;              \
    static constexpr auto variant_forward = gelu_variant_forward_##suffix;                      \
    static constexpr auto variant_backward = gelu_variant_backward_##suffix;                    \
  };
GELU_HPP_API(float, float, f32)
GELU_HPP_API(bf16, uint16_t, bf16)
GELU_HPP_API(f16, uint16_t, f16)
#undef GELU_HPP_API

[[noreturn]] inline void fail(const char* function, const std::string& what) {
  throw Error(GELU_INVALID_ARGUMENT, std::string(function) + ": " + what);
}
// rows of a matrix whose row has `cols` elements and which holds `size` elements in all.
inline size_t rows_of(const char* function, size_t size, size_t cols, const char* name) {
  if (cols == 0 ? size != 0 : size % cols != 0) {
    fail(function, std::string(name) + " has " + std::to_string(size) + " elements, not a multiple of " +
                       std::to_string(cols));
  }
  return cols == 0 ? 0 : size / cols;
}

template <class T>
void bias_forward(std::span<const T> x, std::span<const T> bias, std::span<T> y, Approximation a) {
  constexpr const char* f = "gelu::bias_forward";
  check_sizes(f, x, y, "x", "y");
  const size_t rows = rows_of(f, x.size(), bias.size(), "x");
  check(api<T>::bias_forward(c_ptr(x.data()), c_ptr(bias.data()), c_ptr(y.data()), rows, bias.size(), c_enum(a)), f);
}
template <class T>
void bias_backward(std::span<const T> grad_out, std::span<const T> x, std::span<const T> bias, std::span<T> grad_x,
                   std::span<T> grad_bias, Approximation a) {
  constexpr const char* f = "gelu::bias_backward";
  check_sizes(f, x, grad_x, "x", "grad_x");
  check_sizes(f, grad_out, grad_x, "grad_out", "grad_x");
  check_sizes(f, bias, grad_bias, "bias", "grad_bias");
  const size_t rows = rows_of(f, x.size(), bias.size(), "x");
  check(api<T>::bias_backward(c_ptr(grad_out.data()), c_ptr(x.data()), c_ptr(bias.data()), c_ptr(grad_x.data()),
                              c_ptr(grad_bias.data()), rows, bias.size(), c_enum(a)),
        f);
}
template <class T>
void geglu_forward(std::span<const T> a, std::span<const T> b, std::span<T> y, Approximation ap) {
  constexpr const char* f = "gelu::geglu_forward";
  check_sizes(f, a, y, "a", "y");
  check_sizes(f, b, y, "b", "y");
  check(api<T>::geglu_forward(c_ptr(a.data()), c_ptr(b.data()), c_ptr(y.data()), y.size(), c_enum(ap)), f);
}
template <class T>
void geglu_backward(std::span<const T> grad_out, std::span<const T> a, std::span<const T> b, std::span<T> grad_a,
                    std::span<T> grad_b, Approximation ap) {
  constexpr const char* f = "gelu::geglu_backward";
  check_sizes(f, grad_out, grad_a, "grad_out", "grad_a");
  check_sizes(f, a, grad_a, "a", "grad_a");
  check_sizes(f, b, grad_a, "b", "grad_a");
  check_sizes(f, b, grad_b, "b", "grad_b");
  check(api<T>::geglu_backward(c_ptr(grad_out.data()), c_ptr(a.data()), c_ptr(b.data()), c_ptr(grad_a.data()),
                               c_ptr(grad_b.data()), a.size(), c_enum(ap)),
        f);
}
template <class T>
void geglu_rows_forward(std::span<const T> x, std::span<T> y, size_t cols, Approximation a) {
  constexpr const char* f = "gelu::geglu_rows_forward";
  const size_t rows = rows_of(f, y.size(), cols, "y");
  if (x.size() != 2 * y.size()) {
    fail(f, "x has " + std::to_string(x.size()) + " elements but must have twice y's " + std::to_string(y.size()));
  }
  check(api<T>::geglu_rows_forward(c_ptr(x.data()), c_ptr(y.data()), rows, cols, c_enum(a)), f);
}
template <class T>
void geglu_rows_backward(std::span<const T> grad_out, std::span<const T> x, std::span<T> grad_x, size_t cols,
                         Approximation a) {
  constexpr const char* f = "gelu::geglu_rows_backward";
  check_sizes(f, x, grad_x, "x", "grad_x");
  const size_t rows = rows_of(f, grad_out.size(), cols, "grad_out");
  if (x.size() != 2 * grad_out.size()) {
    fail(f, "x has " + std::to_string(x.size()) + " elements but must have twice grad_out's " +
                std::to_string(grad_out.size()));
  }
  check(api<T>::geglu_rows_backward(c_ptr(grad_out.data()), c_ptr(x.data()), c_ptr(grad_x.data()), rows, cols,
                                    c_enum(a)),
        f);
}
}  // namespace detail

// Half-precision GELU: correctly rounded (see gelu_forward_bf16). In place allowed; partial overlap throws.
inline void forward(std::span<const bf16> x, std::span<bf16> y, Approximation a = Approximation::none) {
  detail::check_sizes("gelu::forward", x, y, "x", "y");
  detail::check(gelu_forward_bf16(detail::c_ptr(x.data()), detail::c_ptr(y.data()), x.size(), detail::c_enum(a)),
                "gelu::forward");
}
inline void forward(std::span<const f16> x, std::span<f16> y, Approximation a = Approximation::none) {
  detail::check_sizes("gelu::forward", x, y, "x", "y");
  detail::check(gelu_forward_f16(detail::c_ptr(x.data()), detail::c_ptr(y.data()), x.size(), detail::c_enum(a)),
                "gelu::forward");
}
inline void backward(std::span<const bf16> grad_out, std::span<const bf16> x, std::span<bf16> grad_in,
                     Approximation a = Approximation::none) {
  detail::check_sizes("gelu::backward", grad_out, grad_in, "grad_out", "grad_in");
  detail::check_sizes("gelu::backward", x, grad_in, "x", "grad_in");
  detail::check(gelu_backward_bf16(detail::c_ptr(grad_out.data()), detail::c_ptr(x.data()),
                                   detail::c_ptr(grad_in.data()), x.size(), detail::c_enum(a)),
                "gelu::backward");
}
inline void backward(std::span<const f16> grad_out, std::span<const f16> x, std::span<f16> grad_in,
                     Approximation a = Approximation::none) {
  detail::check_sizes("gelu::backward", grad_out, grad_in, "grad_out", "grad_in");
  detail::check_sizes("gelu::backward", x, grad_in, "x", "grad_in");
  detail::check(gelu_backward_f16(detail::c_ptr(grad_out.data()), detail::c_ptr(x.data()),
                                  detail::c_ptr(grad_in.data()), x.size(), detail::c_enum(a)),
                "gelu::backward");
}

// Fused operations, for T = float, bf16, f16. Bias + GELU: x, y and grad_* are row-major rows x bias.size(); rows is
// x.size() / bias.size(). GEGLU: y = f(a) * b; the rows form takes x as rows x (2 cols) with a, b its halves.
#define GELU_HPP_FUSED(T)                                                                                            \
  inline void bias_forward(std::span<const T> x, std::span<const T> bias, std::span<T> y,                           \
                           Approximation a = Approximation::none) {                                                 \
    detail::bias_forward<T>(x, bias, y, a);                                                                         \
  }                                                                                                                  \
  inline void bias_backward(std::span<const T> grad_out, std::span<const T> x, std::span<const T> bias,            \
                            std::span<T> grad_x, std::span<T> grad_bias, Approximation a = Approximation::none) {   \
    detail::bias_backward<T>(grad_out, x, bias, grad_x, grad_bias, a);                                              \
  }                                                                                                                  \
  inline void geglu_forward(std::span<const T> a, std::span<const T> b, std::span<T> y,                             \
                            Approximation ap = Approximation::none) {                                               \
    detail::geglu_forward<T>(a, b, y, ap);                                                                          \
  }                                                                                                                  \
  inline void geglu_backward(std::span<const T> grad_out, std::span<const T> a, std::span<const T> b,              \
                             std::span<T> grad_a, std::span<T> grad_b, Approximation ap = Approximation::none) {    \
    detail::geglu_backward<T>(grad_out, a, b, grad_a, grad_b, ap);                                                  \
  }                                                                                                                  \
  inline void geglu_rows_forward(std::span<const T> x, std::span<T> y, size_t cols,                                 \
                                 Approximation a = Approximation::none) {                                           \
    detail::geglu_rows_forward<T>(x, y, cols, a);                                                                   \
  }                                                                                                                  \
  inline void geglu_rows_backward(std::span<const T> grad_out, std::span<const T> x, std::span<T> grad_x,          \
                                  size_t cols, Approximation a = Approximation::none) {                             \
    detail::geglu_rows_backward<T>(grad_out, x, grad_x, cols, a);                                                   \
  }
GELU_HPP_FUSED(float)
GELU_HPP_FUSED(bf16)
GELU_HPP_FUSED(f16)
#undef GELU_HPP_FUSED

// Named variants (Hugging Face ACT2FN names; docs/VARIANTS.md).
enum class Variant {
  gelu = GELU_VARIANT_GELU,
  gelu_python = GELU_VARIANT_GELU_PYTHON,
  gelu_new = GELU_VARIANT_GELU_NEW,
  gelu_pytorch_tanh = GELU_VARIANT_GELU_PYTORCH_TANH,
  gelu_accurate = GELU_VARIANT_GELU_ACCURATE,
  gelu_fast = GELU_VARIANT_GELU_FAST,
  quick_gelu = GELU_VARIANT_QUICK_GELU,
  gelu_10 = GELU_VARIANT_GELU_10
};

// The ACT2FN name of v, e.g. "gelu_new".
inline const char* to_string(Variant v) {
  const char* name = gelu_variant_name(static_cast<gelu_variant>(v));
  return name != nullptr ? name : "unknown";
}

// The variant called `name`; throws gelu::Error (status GELU_UNKNOWN_VARIANT) naming the known ones otherwise.
inline Variant variant_from_name(std::string_view name) {
  gelu_variant v;
  if (gelu_variant_from_name(std::string(name).c_str(), &v) == GELU_OK) return static_cast<Variant>(v);
  std::string known;
  for (int i = 0; i < GELU_VARIANT_COUNT; ++i) {
    known += (i == 0 ? "" : ", ");
    known += gelu_variant_name(static_cast<gelu_variant>(i));
  }
  throw Error(GELU_UNKNOWN_VARIANT,
              "gelu::variant_from_name: unknown GELU variant '" + std::string(name) + "' (known: " + known + ")");
}

#define GELU_HPP_VARIANT(T)                                                                                          \
  inline void forward(Variant v, std::span<const T> x, std::span<T> y) {                                            \
    detail::check_sizes("gelu::forward", x, y, "x", "y");                                                           \
    detail::check(detail::api<T>::variant_forward(static_cast<gelu_variant>(v), detail::c_ptr(x.data()),            \
                                                  detail::c_ptr(y.data()), x.size()),                               \
                  "gelu::forward");                                                                                  \
  }                                                                                                                  \
  inline void backward(Variant v, std::span<const T> grad_out, std::span<const T> x, std::span<T> grad_in) {       \
    detail::check_sizes("gelu::backward", grad_out, grad_in, "grad_out", "grad_in");                                \
    detail::check_sizes("gelu::backward", x, grad_in, "x", "grad_in");                                              \
    detail::check(detail::api<T>::variant_backward(static_cast<gelu_variant>(v), detail::c_ptr(grad_out.data()),    \
                                                   detail::c_ptr(x.data()), detail::c_ptr(grad_in.data()),          \
                                                   x.size()),                                                        \
                  "gelu::backward");                                                                                 \
  }
GELU_HPP_VARIANT(float)
GELU_HPP_VARIANT(bf16)
GELU_HPP_VARIANT(f16)
#undef GELU_HPP_VARIANT
// ==== end of half precision, fused operations, named variants ==================================================

}  // namespace gelu

#endif  // GELU_GELU_HPP_
