// SPDX-License-Identifier: Apache-2.0
// The checker's oracle (tools/checker_oracle.h): float64's MPFR oracle, one per thread, and the near-root window in x.
#include "tools/checker_oracle.h"

namespace gelu::check {

#if defined(GELU_CHECK_HAVE_MPFR)
F64Oracle& ThreadOracle() {
  thread_local F64Oracle oracle;
  return oracle;
}
double ReferenceF64(double x, Approximation form, bool backward) {
  if (!std::isfinite(x)) return backward ? reference::Derivative(x, RefForm(form)) : reference::Forward(x, RefForm(form));
  return ThreadOracle().Eval(x, form, backward, 1.0);
}
#endif

std::pair<double, double> NearRootInterval(Approximation form) {
  const auto solve = [&](double target) {
    double lo = -2.0, hi = -0.3;  // f'(lo) < target < f'(hi) for both targets
    for (int i = 0; i < 80; ++i) {
      const double mid = 0.5 * (lo + hi);
      (reference::Derivative(mid, RefForm(form)) < target ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  };
  return {solve(-common::kNearRoot.max_derivative), solve(common::kNearRoot.max_derivative)};
}

}  // namespace gelu::check
