// SPDX-License-Identifier: Apache-2.0
// The checker's judging (tools/checker.h): each result's verdict against the oracle (tools/checker_oracle.h), the
// error histogram per region, the profiles, the findings and their merging, and the profile names.
#include "tools/checker.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "src/common/functions.h"
#include "src/reference/reference.h"
#include "src/reference/ulp.h"
#include "tools/checker_oracle.h"
#include "tools/checker_plot_bins.h"
#include "tools/checker_types.h"

namespace gelu::check {
namespace {

int Bin(double e) {
  if (e == 0) return 0;
  if (e <= 0.5) return 1;
  if (e <= 1) return 2;
  if (e <= 2) return 3;
  if (e <= 4) return 4;
  if (e <= 16) return 5;
  if (e <= 256) return 6;
  if (e < kInf) return 7;
  return 8;
}

void Raise(Place& p, const Place& o) {
  if (o.index == UINT64_MAX) return;
  if (p.index == UINT64_MAX || o.error > p.error || (o.error == p.error && o.index < p.index)) p = o;
}
void First(Place& p, const Place& o) {
  if (o.index != UINT64_MAX && (p.index == UINT64_MAX || o.index < p.index)) p = o;
}

// One result against one reference: the reference r (f, or dy f'), the correctly rounded value of the type, the
// error (ULP of the type, or inside a derivative's near-root window |y - r| / (|dy| 2^-precision); NaN for a NaN
// mismatch, as reference::PairError gives it) and |y - r|.
struct Verdict {
  double r, expected, error, abs_error;
};

// The verdict for float32 and 16-bit results against the double reference.
Verdict FloatVerdict(const Spec& s, const TypeInfo& info, float x, float y, double dy, Approximation form) {
  double r = Reference(x, form, s.backward);
  if (s.backward) r *= dy;
  double e;
  const double fprime = dy != 0 ? r / dy : 0;
  if (s.backward && dy != 0 && !std::isnan(r) && common::InNearRootWindow(x, fprime)) {
    e = reference::PairError(y, r, std::fabs(static_cast<double>(y) - r) / (std::fabs(dy) * std::ldexp(1.0, -info.precision)));
  } else {
    e = reference::PairError(y, r, s.type == common::kF32 ? reference::UlpErrorF32(y, r)
                                                       : reference::UlpErrorIn(y, r, info.precision, info.min_exponent));
  }
  return {r, RoundTo(s.type, r), e, std::fabs(static_cast<double>(y) - r)};
}

#if defined(GELU_CHECK_HAVE_MPFR)
// The verdict for float64 results against MPFR; r is RN(r), which the profiles' absolute tests (torch, abs10eps)
// compare with, half an ULP of the true value away at most.
Verdict F64Verdict(const Spec& s, double x, double y, double dy, Approximation form) {
  if (!std::isfinite(x)) {
    double r = ReferenceF64(x, form, s.backward);
    if (s.backward) r *= dy;
    return {r, r, SameResult(y, r) ? 0.0 : std::nan(""), std::fabs(y - r)};
  }
  F64Oracle& oracle = ThreadOracle();
  const double r = oracle.Eval(x, form, s.backward, dy);
  // NaN, inf and the sign of zero as UlpErrorF32 (src/reference/ulp.h) rules them, with PairError's NaN.
  if (std::isnan(r) || std::isnan(y)) return {r, r, reference::PairError(y, r, 0.0), std::fabs(y - r)};
  if (std::isinf(r) || std::isinf(y)) return {r, r, y == r ? 0.0 : kInf, std::fabs(y - r)};
  const F64Oracle::Errors err = oracle.Error(y, dy);
  double e = err.ulps;
  if (y == 0 && std::signbit(y) != std::signbit(r)) e = kInf;
  else if (s.backward && dy != 0 && common::InNearRootWindow(x, oracle.derivative())) e = err.window;
  return {r, r, e, err.abs};
}
#endif

void JudgeOne(const TypeInfo& info, double x, double y, const Verdict& v, bool near_root_x, uint64_t index,
              Judgement& j, std::vector<double>* plot) {
  const double r = v.r, expected = v.expected;
  double e = v.error;
  if (std::isnan(e)) e = kInf;  // a NaN mismatch: worse than any number
  const Place here{e, x, y, r, index};
  Raise(j.worst, here);
  const double ax = std::fabs(x);
  const double min_normal = std::ldexp(1.0, info.min_exponent - 1);
  bool in[kNumRegions] = {ax < 4, x <= -4, x >= 4, expected != 0 && std::fabs(expected) < min_normal, near_root_x};
  for (int k = 0; k < kNumRegions; ++k) {
    if (!in[k]) continue;
    ++j.histogram[k][Bin(e)];
    Raise(j.region_worst[k], here);
  }
  bool torch_ok;
  if (std::isnan(expected) || std::isnan(y) || std::isinf(expected) || std::isinf(y)) {
    torch_ok = SameResult(y, expected);
  } else {
    torch_ok = std::fabs(static_cast<double>(y) - expected) <= info.torch_atol + info.torch_rtol * std::fabs(expected);
  }
  const bool abs_ok = !(ax <= 10) || v.abs_error <= 10 * info.eps;
  const bool ok[kNumProfiles] = {e <= 1, e <= 4, torch_ok, abs_ok, SameResult(y, expected)};
  for (int p = 0; p < kNumProfiles; ++p) {
    if (ok[p]) continue;
    if (j.profile_failures[p]++ == 0 || index < j.profile_first[p].index) j.profile_first[p] = here;
  }
  if (plot != nullptr && !std::isinf(x) && !std::isnan(x)) {
    double& m = (*plot)[static_cast<size_t>(PlotBin(static_cast<float>(x)))];
    m = std::max(m, std::min(e, 1e30));
  }
}

}  // namespace

bool Special::ok() const { return SameResult(y, expected); }

void Judgement::Merge(const Judgement& o) {
  Raise(worst, o.worst);
  for (int k = 0; k < kNumRegions; ++k) {
    Raise(region_worst[k], o.region_worst[k]);
    for (int b = 0; b < kNumBins; ++b) histogram[k][b] += o.histogram[k][b];
  }
  for (int p = 0; p < kNumProfiles; ++p) {
    profile_failures[p] += o.profile_failures[p];
    First(profile_first[p], o.profile_first[p]);
  }
}

namespace {
double MinNan(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b); }
}  // namespace

void Findings::Merge(const Findings& o) {
  inputs += o.inputs;
  own.Merge(o.own);
  exact.Merge(o.exact);
  for (int k = 0; k < kNumSpecials; ++k) {
    if (o.specials[k].seen && !specials[k].seen) specials[k] = o.specials[k];
  }
  cutoff = MinNan(cutoff, o.cutoff);
  cutoff_expected = MinNan(cutoff_expected, o.cutoff_expected);
  subnormal_expected += o.subnormal_expected;
  subnormal_flushed += o.subnormal_flushed;
  subnormal_inputs += o.subnormal_inputs;
  subnormal_inputs_zeroed += o.subnormal_inputs_zeroed;
  for (size_t i = 0; i < plot_max.size() && i < o.plot_max.size(); ++i) plot_max[i] = std::max(plot_max[i], o.plot_max[i]);
}

Findings NewFindings(const Spec& s) {
  Findings f;
  f.spec = s;
  f.plot_max.assign(2 * kPlotSide + 1, 0.0);
  f.inputs = 0;
  return f;
}

namespace {

// Judges results y at inputs x of one type; verdict(x, y, dy, form) judges one result against one form.
template <typename T, typename VerdictFn>
void JudgeWith(const Spec& s, std::span<const T> x, std::span<const T> y, std::span<const T> dy, uint64_t index0,
               Findings& f, VerdictFn verdict) {
  const TypeInfo& info = Info(s.type);
  const auto [near_lo, near_hi] = NearRootInterval(s.form);  // 160 reference derivatives: once a call
  const double min_normal = std::ldexp(1.0, info.min_exponent - 1);
  const bool same_form = s.form == Approximation::none;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xi = x[i], yi = y[i], g = dy.empty() ? 1.0 : static_cast<double>(dy[i]);
    const uint64_t index = index0 + i;
    const Verdict v = verdict(x[i], y[i], g, s.form);
    const bool near = xi > near_lo && xi < near_hi;
    JudgeOne(info, xi, yi, v, near, index, f.own, &f.plot_max);
    if (!same_form) {  // form none: the exact judgement is the own one, copied below
      JudgeOne(info, xi, yi, verdict(x[i], y[i], g, Approximation::none), near, index, f.exact, nullptr);
    }
    const double r = v.r, expected = v.expected;
    int special = -1;
    if (xi == 0) special = std::signbit(xi) ? 1 : 0;
    else if (std::isinf(xi)) special = xi > 0 ? 2 : 3;
    else if (std::isnan(xi)) special = 4;
    if (special >= 0 && !f.specials[special].seen) f.specials[special] = {xi, yi, expected, true};
    if (std::isfinite(xi) && xi < 0) {
      if (yi != 0 && !std::isnan(yi)) f.cutoff = MinNan(f.cutoff, xi);
      if (expected != 0) f.cutoff_expected = MinNan(f.cutoff_expected, xi);
    }
    // Flushed: 0 for a result of at least the smallest subnormal (a 0 for r below it is a rounding, at most 1 ULP).
    const double min_subnormal = std::ldexp(1.0, info.min_exponent - info.precision);
    if (std::fabs(r) >= min_subnormal && std::fabs(expected) < min_normal) {
      ++f.subnormal_expected;
      if (yi == 0) ++f.subnormal_flushed;
    }
    if (xi != 0 && std::fabs(xi) < min_normal && std::fabs(r) >= min_subnormal) {
      ++f.subnormal_inputs;
      if (yi == 0) ++f.subnormal_inputs_zeroed;
    }
  }
  f.inputs += x.size();
  if (same_form) f.exact = f.own;
}

}  // namespace

void Judge(const Spec& s, std::span<const float> x, std::span<const float> y, std::span<const float> dy,
           uint64_t index0, Findings& f) {
  const TypeInfo& info = Info(s.type);
  JudgeWith(s, x, y, dy, index0, f, [&](float xi, float yi, double g, Approximation form) {
    return FloatVerdict(s, info, xi, yi, g, form);
  });
}

void Judge(const Spec& s, std::span<const double> x, std::span<const double> y, std::span<const double> dy,
           uint64_t index0, Findings& f) {
#if defined(GELU_CHECK_HAVE_MPFR)
  JudgeWith(s, x, y, dy, index0, f,
            [&](double xi, double yi, double g, Approximation form) { return F64Verdict(s, xi, yi, g, form); });
#else
  (void)s, (void)x, (void)y, (void)dy, (void)index0, (void)f;
  throw std::runtime_error(kNoFloat64);
#endif
}

void JudgeAll(const Spec& s, std::span<const double> x, std::span<const double> y, std::span<const double> dy,
              Findings& f) {
  constexpr size_t kPart = size_t{1} << 12;
  const size_t parts = (x.size() + kPart - 1) / kPart;
  std::vector<Findings> found(parts, NewFindings(s));
  std::atomic<size_t> next{0};
  {
    std::vector<std::jthread> pool;
    const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(parts)));
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (size_t p; (p = next++) < parts;) {
          const size_t b = p * kPart, n = std::min(kPart, x.size() - b);
          Judge(s, x.subspan(b, n), y.subspan(b, n), dy.empty() ? dy : dy.subspan(b, n), b, found[p]);
        }
      });
    }
  }
  for (const Findings& part : found) f.Merge(part);
}

std::pair<Profile, bool> ParseProfile(const std::string& name) {
  const bool exact = name.rfind("exact:", 0) == 0;
  const std::string base = exact ? name.substr(6) : name;
  for (int p = 0; p < kNumProfiles; ++p) {
    if (base == kProfileNames[p]) return {static_cast<Profile>(p), exact};
  }
  throw std::invalid_argument("unknown profile '" + name + "': the profiles are " + ProfileChoices() +
                              ", each also as exact:NAME (judged against the exact GELU)");
}
std::string ProfileChoices() {
  std::string s;
  for (int p = 0; p < kNumProfiles; ++p) s += (p ? ", " : "") + std::string(kProfileNames[p]);
  return s;
}
bool Meets(const Findings& f, const std::string& profile) {
  const auto [p, exact] = ParseProfile(profile);
  return (exact ? f.exact : f.own).Meets(p);
}

}  // namespace gelu::check
