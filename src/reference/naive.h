// SPDX-License-Identifier: Apache-2.0
// The textbook GELU formulas as people write them (scalar libm, in the type of the data), shown beside ours by
// `gelu accuracy`, `gelu plot`, `gelu bench` and bench/gelu_benchmark.cc. No care for cancellation: the exact form's
// 1 + erf(x/sqrt 2) loses every digit below x ~ -4 and returns 0 below x ~ -5.5 in float32, where GELU is still a
// normal float down to x ~ -13.1; GELU(-inf) comes out NaN.
#ifndef GELU_SRC_REFERENCE_NAIVE_H_
#define GELU_SRC_REFERENCE_NAIVE_H_

#include <cmath>

#include "src/common/functions.h"

namespace gelu::reference {

// The formulas of each form, one block per form (a form without one does not compile).
template <common::Form kForm>
struct NaiveFormula;
template <>
struct NaiveFormula<common::kNone> {
  template <class T>
  static T Forward(T x) {
    return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(M_SQRT1_2)));
  }
  template <class T>
  static T Derivative(T x) {
    return T(0.5) * (T(1) + std::erf(x * static_cast<T>(M_SQRT1_2))) +
           x * static_cast<T>(0.39894228040143267794) * std::exp(T(-0.5) * x * x);
  }
};
template <>
struct NaiveFormula<common::kTanh> {
  template <class T>
  static T Forward(T x) {
    return T(0.5) * x * (T(1) + std::tanh(T(0.7978845608) * (x + T(0.044715) * x * x * x)));
  }
  template <class T>
  static T Derivative(T x) {
    const T t = std::tanh(T(0.7978845608) * (x + T(0.044715) * x * x * x));
    return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * T(0.7978845608) * (T(1) + T(3) * T(0.044715) * x * x);
  }
};
template <>
struct NaiveFormula<common::kSigmoid> {
  template <class T>
  static T Forward(T x) {
    return x / (T(1) + std::exp(T(-1.702) * x));
  }
  template <class T>
  static T Derivative(T x) {
    const T s = T(1) / (T(1) + std::exp(T(-1.702) * x));
    return s + T(1.702) * x * s * (T(1) - s);
  }
};

template <class T>
T NaiveForward(T x, common::Form form) {
  return common::VisitForm(form, [&](auto k) { return NaiveFormula<decltype(k)::value>::Forward(x); });
}

template <class T>
T NaiveDerivative(T x, common::Form form) {
  return common::VisitForm(form, [&](auto k) { return NaiveFormula<decltype(k)::value>::Derivative(x); });
}

}  // namespace gelu::reference

#endif  // GELU_SRC_REFERENCE_NAIVE_H_
