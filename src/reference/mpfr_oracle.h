// SPDX-License-Identifier: Apache-2.0
// The MPFR oracle: f and f' of every formula of src/common/functions.h, evaluated as written, with the decimal
// constants (0.044715, 1.702, 0.7978845608) as exact reals, at a chosen precision. Used by tests/reference_test.cc
// (checks the double reference), tests/f64/gelu_f64_test.cc (the float64 claim),
// tests/half/half_exhaustive_test.cc (decides roundings the double reference cannot) and `gelu check`
// (tools/checker_oracle.h: another library's float64). Header-only; the caller links MPFR.
//
// Forms, with t = |x|, Phi(-t) = Q(t), phi the normal density:
//   none       f = x Phi(x), f' = Phi(x) + x phi(x);  gelu_10: the same, clipped (x > 10: f = 10, f' = 0);
//   tanh, gelu_fast, sigmoid: f = x s(z), f' = s + x z'(x) s (1 - s), z = k (x + c x^3), s the logistic function
//   (tanh: k = 2 sqrt(2/pi), c = 0.044715; gelu_fast: k = 2 * 0.7978845608, c = 0.044715; sigmoid: k = 1.702,
//   c = 0), with e = exp(-|z|), s = 1/(1+e) or e/(1+e), s (1 - s) = e/(1+e)^2: no cancellation.
// Q(t) for t >= 2 sqrt 2 at precisions <= 128 bits: mpfr_erfc takes up to 1 ms per call for 3 < t/sqrt(2) < 20 (its
// asymptotic series needs ~t^2 terms), so Laplace's continued fraction of the Mills ratio is used there:
// Q(t) = phi(t) / (t + 1/(t + 2/(t + 3/(t + ...)))), evaluated bottom-up from n = 1.5 (39/t)^2 + 25 terms, 2^-112
// or better (measured against 20000 terms for t in [2, 38]; CrossCheckContinuedFraction compares it with mpfr_erfc).
// Higher precisions take mpfr_erfc everywhere. x must be finite.
#ifndef GELU_SRC_REFERENCE_MPFR_ORACLE_H_
#define GELU_SRC_REFERENCE_MPFR_ORACLE_H_

#include <mpfr.h>

#include <cmath>
#include <cstdlib>
#include <initializer_list>

#include "src/common/functions.h"

namespace gelu::test {

class MpfrGelu {
 public:
  static constexpr double kContinuedFractionMin = 2.8284271247461903;  // 2 sqrt 2: mpfr_erfc below

  explicit MpfrGelu(mpfr_prec_t precision = 120) : prec_(precision) {
    for (mpfr_ptr p : {x_, t_, u_, v_, w_, c_, k_, a_, one_}) mpfr_init2(p, precision);
    mpfr_set_ui(one_, 1, MPFR_RNDN);
  }
  ~MpfrGelu() {
    for (mpfr_ptr p : {x_, t_, u_, v_, w_, c_, k_, a_, one_}) mpfr_clear(p);
  }
  MpfrGelu(const MpfrGelu&) = delete;
  MpfrGelu& operator=(const MpfrGelu&) = delete;

  // A formula as the oracle evaluates it: x Phi(x) (sigmoid false), or x sigmoid(z) with z = k (x + c x^3), k and c
  // decimal strings as the formula states them (k null: 2 sqrt(2/pi), computed). One case per formula, no default:
  // -Werror=switch refuses a formula without its own (a new one must not pass for another's).
  struct SigmoidArgument {
    bool sigmoid;
    const char* k;
    const char* c;
  };
  static SigmoidArgument SigmoidArgumentOf(common::Formula form) {
    switch (form) {
      case common::Formula::kNone: return {false, nullptr, nullptr};
      case common::Formula::kGelu10: return {false, nullptr, nullptr};  // the exact form below its clip at 10
      case common::Formula::kTanh: return {true, nullptr, "0.044715"};
      case common::Formula::kSigmoid: return {true, "1.702", "0"};
      case common::Formula::kGeluFast: return {true, "1.5957691216", "0.044715"};
    }
    std::abort();  // a value outside the enum
  }

  // f(x) into fwd and f'(x) into der (each initialised by the caller, any precision; either may be null).
  void Eval(double xd, common::Form form, mpfr_ptr fwd, mpfr_ptr der) { Eval(xd, common::FormulaOf(form), fwd, der); }
  void Eval(double xd, common::Formula form, mpfr_ptr fwd, mpfr_ptr der) {
    mpfr_set_d(x_, xd, MPFR_RNDN);
    if (form == common::Formula::kGelu10 && xd > 10.0) {
      if (fwd) mpfr_set_ui(fwd, 10, MPFR_RNDN);
      if (der) mpfr_set_zero(der, 1);
      return;
    }
    if (!SigmoidArgumentOf(form).sigmoid) {
      // w = phi(x); u = Phi(x); f = x u; f' = u + x w.
      Density();
      QTail(std::fabs(xd));  // u = Phi(-|x|)
      if (xd > 0) mpfr_ui_sub(u_, 1, u_, MPFR_RNDN);
      if (fwd) mpfr_mul(fwd, x_, u_, MPFR_RNDN);
      if (der) {
        mpfr_mul(w_, w_, x_, MPFR_RNDN);
        mpfr_add(der, u_, w_, MPFR_RNDN);
        SignTailZero(xd, der);
      }
      return;
    }
    // u = z = k (x + c x^3), v = zp = x z'(x) = k (x + 3 c x^3).
    const SigmoidArgument z = SigmoidArgumentOf(form);
    if (z.k == nullptr) {  // 2 sqrt(2/pi)
      mpfr_const_pi(t_, MPFR_RNDN);
      mpfr_ui_div(t_, 2, t_, MPFR_RNDN);
      mpfr_sqrt(k_, t_, MPFR_RNDN);
      mpfr_mul_2ui(k_, k_, 1, MPFR_RNDN);
    } else {
      mpfr_set_str(k_, z.k, 10, MPFR_RNDN);
    }
    mpfr_set_str(a_, z.c, 10, MPFR_RNDN);
    mpfr_sqr(t_, x_, MPFR_RNDN);
    mpfr_mul(t_, t_, a_, MPFR_RNDN);  // c x^2
    mpfr_add(u_, t_, one_, MPFR_RNDN);
    mpfr_mul(u_, u_, x_, MPFR_RNDN);
    mpfr_mul(u_, u_, k_, MPFR_RNDN);  // z
    mpfr_mul_ui(t_, t_, 3, MPFR_RNDN);
    mpfr_add(v_, t_, one_, MPFR_RNDN);
    mpfr_mul(v_, v_, x_, MPFR_RNDN);
    mpfr_mul(v_, v_, k_, MPFR_RNDN);  // zp
    const bool neg = mpfr_sgn(u_) < 0;
    mpfr_abs(t_, u_, MPFR_RNDN);
    mpfr_neg(t_, t_, MPFR_RNDN);
    mpfr_exp(w_, t_, MPFR_RNDN);                   // e
    mpfr_add(t_, w_, one_, MPFR_RNDN);             // 1 + e
    mpfr_div(u_, neg ? w_ : one_, t_, MPFR_RNDN);  // s
    if (fwd) mpfr_mul(fwd, x_, u_, MPFR_RNDN);
    if (der) {
      mpfr_div(w_, w_, t_, MPFR_RNDN);
      mpfr_div(w_, w_, t_, MPFR_RNDN);  // s (1 - s)
      mpfr_mul(w_, w_, v_, MPFR_RNDN);
      mpfr_add(der, w_, u_, MPFR_RNDN);
      SignTailZero(xd, der);
    }
  }

  // Relative difference between the continued fraction and mpfr_erfc at t >= kContinuedFractionMin.
  double CrossCheckContinuedFraction(double ta) {
    mpfr_set_d(x_, ta, MPFR_RNDN);
    Density();
    ContinuedFraction(ta);
    mpfr_set(v_, u_, MPFR_RNDN);
    Erfc(ta);
    mpfr_sub(v_, v_, u_, MPFR_RNDN);
    mpfr_div(v_, v_, u_, MPFR_RNDN);
    return std::fabs(mpfr_get_d(v_, MPFR_RNDN));
  }

 private:
  // Far in the negative tail exp(-x^2/2) or e^-|z| leaves MPFR's exponent range (below 2^-(2^30): |x| > ~46000
  // exact form, |z| > ~7.4e8) and underflows to +0, so f' = u + x w sums two zeros to +0. Every form has f' < 0
  // below its root (~ -0.75), so the true f' there rounds to -0: the zero takes that sign.
  static void SignTailZero(double xd, mpfr_ptr der) {
    if (xd < -1.0 && mpfr_zero_p(der)) mpfr_set_zero(der, -1);
  }
  // w = phi(x) = exp(-x^2/2) / sqrt(2 pi).
  void Density() {
    mpfr_sqr(t_, x_, MPFR_RNDN);
    mpfr_div_2ui(t_, t_, 1, MPFR_RNDN);
    mpfr_neg(t_, t_, MPFR_RNDN);
    mpfr_exp(w_, t_, MPFR_RNDN);
    mpfr_const_pi(t_, MPFR_RNDN);
    mpfr_mul_2ui(t_, t_, 1, MPFR_RNDN);
    mpfr_sqrt(t_, t_, MPFR_RNDN);
    mpfr_div(w_, w_, t_, MPFR_RNDN);
  }
  // u = Q(ta) = erfc(ta/sqrt 2)/2 for ta >= 0, with w = phi(ta) already set.
  void QTail(double ta) {
    if (ta < kContinuedFractionMin || std::isinf(ta) || prec_ > 128) {
      Erfc(ta);
    } else {
      ContinuedFraction(ta);
    }
  }
  void Erfc(double ta) {
    mpfr_set_d(t_, ta, MPFR_RNDN);
    mpfr_sqrt_ui(u_, 2, MPFR_RNDN);
    mpfr_div(t_, t_, u_, MPFR_RNDN);
    mpfr_erfc(u_, t_, MPFR_RNDN);
    mpfr_div_2ui(u_, u_, 1, MPFR_RNDN);
  }
  void ContinuedFraction(double ta) {
    const int n = static_cast<int>(1.5 * (39.0 / ta) * (39.0 / ta)) + 25;
    mpfr_set_d(t_, ta, MPFR_RNDN);
    mpfr_set(u_, t_, MPFR_RNDN);
    for (int j = n; j >= 1; --j) {
      mpfr_ui_div(u_, static_cast<unsigned long>(j), u_, MPFR_RNDN);
      mpfr_add(u_, u_, t_, MPFR_RNDN);
    }
    mpfr_div(u_, w_, u_, MPFR_RNDN);
  }

  mpfr_prec_t prec_;
  mpfr_t x_, t_, u_, v_, w_, c_, k_, a_, one_;
};

// An mpfr_t that frees itself.
class MpfrValue {
 public:
  explicit MpfrValue(mpfr_prec_t precision = 120) { mpfr_init2(v_, precision); }
  ~MpfrValue() { mpfr_clear(v_); }
  MpfrValue(const MpfrValue&) = delete;
  MpfrValue& operator=(const MpfrValue&) = delete;
  mpfr_ptr get() { return v_; }

 private:
  mpfr_t v_;
};

}  // namespace gelu::test

#endif  // GELU_SRC_REFERENCE_MPFR_ORACLE_H_
