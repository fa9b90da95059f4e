// SPDX-License-Identifier: Apache-2.0
// The facts `gelu report` states (computed here by the library, not typed in): the minimum of each form.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "gelu/gelu.hpp"
#include "tools/commands.h"

namespace gelu::cli {

Extremum FindMinimum(Approximation form) {
  // f' < 0 at -2 and > 0 at -0.3 for all three forms, and f' is increasing in between (f'' > 0 on (-sqrt2,
  // sqrt2) for the exact form; likewise for the others), so the bracket holds exactly one root.
  double lo = -2.0, hi = -0.3;
  if (!(gelu::derivative(lo, form) < 0 && gelu::derivative(hi, form) > 0)) {
    throw Failure(fmt::format("f' of the {} form does not change sign on [-2, -0.3]", FormName(form)));
  }
  // Bisect until the interval is two adjacent doubles.
  while (true) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (gelu::derivative(mid, form) < 0 ? lo : hi) = mid;
  }
  const double dlo = gelu::derivative(lo, form), dhi = gelu::derivative(hi, form);
  Extremum e;
  e.x = std::fabs(dlo) <= std::fabs(dhi) ? lo : hi;
  e.df = gelu::derivative(e.x, form);
  e.f = gelu::forward(e.x, form);
  return e;
}

std::string FormatFacts() {
  using gelu::derivative;
  using gelu::forward;
  const Extremum m = FindMinimum(Approximation::none);
  const Extremum mt = FindMinimum(Approximation::tanh);
  const Extremum ms = FindMinimum(Approximation::sigmoid);
  const double r2 = std::sqrt(2.0);
  std::string s;
  s += "Facts about GELU, f(x) = x*Phi(x), each computed by this library in float64 (gelu::forward/derivative):\n";
  s += fmt::format("  minimum        x* = {:.10f}  (root of f', bisection to adjacent doubles)\n", m.x);
  s += fmt::format("                 f(x*) = {:.10f}  (the minimum VALUE; the location is x* ~ {:.4f})\n", m.f, m.x);
  s += fmt::format("  f'(x*)         = {:.3g}  (zero to rounding: the gradient IS zero at x*; f'(x*-0.1) = {:.4f} "
                   "< 0,\n                 f'(x*+0.1) = {:.4f} > 0)\n",
                   m.df, derivative(m.x - 0.1), derivative(m.x + 0.1));
  s += fmt::format("  f(0) = {}, f'(0) = Phi(0) = {}\n", forward(0.0), derivative(0.0));
  s += fmt::format("  f' ranges over [{:.6f}, {:.6f}]: f'' = phi(x)(2 - x^2) vanishes at x = -+sqrt2, and "
                   "f'(-sqrt2) = {:.6f}, f'(sqrt2) = {:.6f}\n",
                   derivative(-r2), derivative(r2), derivative(-r2), derivative(r2));
  s += fmt::format("  asymptotes     f(x) - x -> 0 as x -> +inf and f(x) -> 0 as x -> -inf (one fact: f(x) - f(-x) = x):\n"
                   "                 f(5) - 5 = {:.6g}, f(-5) = {:.6g}; f(10) - 10 = {:.3g}, f(-10) = {:.6g}; "
                   "f'(-10) = {:.3g}, f'(10) = {}\n",
                   forward(5.0) - 5.0, forward(-5.0), forward(10.0) - 10.0, forward(-10.0), derivative(-10.0),
                   derivative(10.0));
  s += fmt::format("  tanh form      minimum at x = {:.10f}, f = {:.10f}\n", mt.x, mt.f);
  s += fmt::format("  sigmoid form   minimum at x = {:.10f}, f = {:.10f}\n", ms.x, ms.f);
  s += "Common write-ups get two of these wrong: -0.17 is the minimum's value, not its location (x* ~ -0.7518);\n"
       "and \"GELU's gradient is never zero\" is false: f'(x*) = 0, and f' < 0 for every x < x*.\n";
  return s;
}

}  // namespace gelu::cli
