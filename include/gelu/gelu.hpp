// SPDX-License-Identifier: Apache-2.0
// gelu: the idiomatic C++20 face of the C API in gelu.h (spans, enum class, exceptions).
//
//   std::vector<float> x = {-1.f, 0.f, 1.f}, y(3);
//   gelu::forward(x, y, gelu::Approximation::tanh);        // y = GELU_tanh(x)
//   gelu::backward(dy, x, dx);                             // dx = dy * GELU'(x), exact form
//   float v = gelu::forward(0.5f);                         // one value
//
// Errors (size mismatch, partial overlap) throw gelu::Error, derived from std::invalid_argument,
// with a message that names the arguments. Accuracy and special values: see gelu.h.
#ifndef GELU_GELU_HPP_
#define GELU_GELU_HPP_

#include <span>
#include <stdexcept>
#include <string>

#include "gelu/gelu.h"

namespace gelu {

enum class Approximation { none = GELU_APPROXIMATE_NONE, tanh = GELU_APPROXIMATE_TANH, sigmoid = GELU_APPROXIMATE_SIGMOID };

// "none", "tanh" or "sigmoid", as PyTorch's `approximate=` spells them.
constexpr const char* to_string(Approximation a) {
  switch (a) {
    case Approximation::none: return "none";
    case Approximation::tanh: return "tanh";
    case Approximation::sigmoid: return "sigmoid";
  }
  return "unknown";
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

}  // namespace gelu

#endif  // GELU_GELU_HPP_
