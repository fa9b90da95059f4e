// SPDX-License-Identifier: Apache-2.0
// The checker's oracle (tools/checker.h): the reference value of f or f' that a result is judged against, in double
// for float32 and the 16-bit types (src/reference/reference.h), against MPFR for float64 (src/reference/mpfr_oracle.h), and
// the near-root window in x. For the checker's files; `gelu check`'s interface is tools/checker.h.
#ifndef GELU_TOOLS_CHECKER_ORACLE_H_
#define GELU_TOOLS_CHECKER_ORACLE_H_

#include <algorithm>
#include <cmath>
#include <utility>

#include "gelu/gelu.hpp"
#include "src/common/half.h"
#include "src/reference/reference.h"
#if defined(GELU_CHECK_HAVE_MPFR)
#include "src/reference/mpfr_oracle.h"
#endif

namespace gelu::check {

inline reference::Form RefForm(Approximation a) { return static_cast<reference::Form>(static_cast<int>(a)); }

// f or f' of the form, in double, at float x. The forward takes the half-precision kernels' tiny-x correction
// (src/common/half.h: f(x) lies strictly above x/2 where the double sum cannot see it, which decides the rounding
// of x/2 at subnormal midpoints); elsewhere it moves the value by less than the reference's own error.
inline double Reference(float x, Approximation form, bool backward) {
  if (backward) return reference::Derivative(x, RefForm(form));
  return common::TinyForwardNudge(x, reference::Forward(x, RefForm(form)));
}

#if defined(GELU_CHECK_HAVE_MPFR)
// float64's reference: f, or dy f', at a finite double against MPFR at 120 bits (src/reference/mpfr_oracle.h, the oracle
// of tests/f64/gelu_f64_test.cc; its worst conditioning costs < 12 bits, so the value is good to ~2^-100 relative).
// The metric is that test's: ulp(r) = 2^(max(e, -1021) - 53) for r = m 2^e, m in [0.5, 1), and 2^-1074 at r = 0.
class F64Oracle {
 public:
  F64Oracle() = default;
  // MPFR keeps per-thread caches (pi, for the density); freed with the thread's oracle, so that a worker thread's
  // exit leaves nothing behind (LeakSanitizer in scripts/test.sh).
  ~F64Oracle() { mpfr_free_cache(); }
  F64Oracle(const F64Oracle&) = delete;
  F64Oracle& operator=(const F64Oracle&) = delete;
  // r at x (finite), kept for Error; returns RN(r), the correctly rounded double.
  double Eval(double x, Approximation form, bool backward, double dy) {
    oracle_.Eval(x, static_cast<common::Form>(static_cast<int>(form)), backward ? nullptr : r_.get(),
                 backward ? r_.get() : nullptr);
    if (backward) {
      derivative_ = mpfr_get_d(r_.get(), MPFR_RNDN);
      mpfr_mul_d(r_.get(), r_.get(), dy, MPFR_RNDN);
    } else if (x != 0) {
      // Every form has f(x) - x/2 = x (s(x) - 1/2) > 0 (s = Phi or the logistic, above 1/2 exactly for x > 0), but
      // for |x| < 2^-120 the 120 bits hold only x/2, a tie for RN at the subnormal x = 2^-1074 (the true value
      // rounds up): one step up keeps the value strictly above x/2 and moves it by 2^-120 relative at most.
      mpfr_set_d(t_.get(), x, MPFR_RNDN);
      mpfr_div_2ui(t_.get(), t_.get(), 1, MPFR_RNDN);
      if (mpfr_equal_p(r_.get(), t_.get())) mpfr_nextabove(r_.get());
    }
    return mpfr_get_d(r_.get(), MPFR_RNDN);
  }
  // f'(x) of the last backward Eval, rounded (before the product with dy): what decides the near-root window.
  double derivative() const { return derivative_; }
  // For a finite y against the last r: |y - r|, |y - r| / ulp(r), and |y - r| / (|dy| 2^-53) (in MPFR, which
  // neither underflows nor overflows where dy is subnormal).
  struct Errors {
    double abs, ulps, window;
  };
  Errors Error(double y, double dy) {
    Errors out;
    mpfr_sub_d(t_.get(), r_.get(), y, MPFR_RNDN);
    mpfr_abs(t_.get(), t_.get(), MPFR_RNDN);
    out.abs = mpfr_get_d(t_.get(), MPFR_RNDN);
    mpfr_div_d(u_.get(), t_.get(), std::fabs(dy), MPFR_RNDN);
    mpfr_mul_2si(u_.get(), u_.get(), 53, MPFR_RNDN);
    out.window = mpfr_get_d(u_.get(), MPFR_RNDN);
    const long e = mpfr_zero_p(r_.get()) ? -1021 : std::max<long>(mpfr_get_exp(r_.get()), -1021);
    mpfr_mul_2si(t_.get(), t_.get(), 53 - e, MPFR_RNDN);
    out.ulps = mpfr_get_d(t_.get(), MPFR_RNDN);
    return out;
  }

 private:
  test::MpfrGelu oracle_{120};
  test::MpfrValue r_{120}, t_{120}, u_{120};
  double derivative_ = 0;
};
F64Oracle& ThreadOracle();  // the calling thread's oracle
// RN(f(x)) or RN(f'(x)) for any double: MPFR for finite x, the conventions of reference.h at +-inf and NaN.
double ReferenceF64(double x, Approximation form, bool backward);
#endif
inline constexpr const char* kNoFloat64 = "float64 needs MPFR (libmpfr-dev), which this build of the checker was configured without";

// The x interval where |f'| < 2^-8 around the root of f' (-2 < x < 0): common::kNearRoot's window in x, found by
// bisection on the reference derivative, which increases through its root there.
std::pair<double, double> NearRootInterval(Approximation form);

}  // namespace gelu::check

#endif  // GELU_TOOLS_CHECKER_ORACLE_H_
