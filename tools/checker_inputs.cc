// SPDX-License-Identifier: Apache-2.0
// The checker's inputs (tools/checker.h): all values of a 16-bit type, the float32 and float64 samples, the round
// values, and the true tail cutoff.
#include "tools/checker.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "tools/checker_oracle.h"

namespace gelu::check {

std::vector<float> AllHalfInputs(Type t) {
  std::vector<float> x(65536);
  for (uint32_t b = 0; b < 65536; ++b) x[b] = FromBits(t, static_cast<uint16_t>(b));
  return x;
}

double TrueTailCutoff(const Spec& s) {
  // Over negative finite values ordered by magnitude (bit patterns), the results are nonzero up to some
  // magnitude and zero (rounded) beyond: bisect on the bit pattern of |x|.
  if (s.type == common::kF64) {
#if defined(GELU_CHECK_HAVE_MPFR)
    const auto nonzero = [&](uint64_t b) { return ReferenceF64(-std::bit_cast<double>(b), s.form, s.backward) != 0; };
    uint64_t lo = 1, hi = 0x7fefffffffffffffu;
    if (nonzero(hi)) return -std::bit_cast<double>(hi);
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      (nonzero(mid) ? lo : hi) = mid;
    }
    return -std::bit_cast<double>(lo);
#else
    throw std::runtime_error(kNoFloat64);
#endif
  }
  const uint32_t top = s.type == common::kF32 ? 0x7f7fffffu : s.type == common::kBf16 ? 0x7f7fu : 0x7bffu;
  const auto value = [&](uint32_t b) {
    return s.type == common::kF32 ? -std::bit_cast<float>(b) : -FromBits(s.type, static_cast<uint16_t>(b));
  };
  const auto nonzero = [&](uint32_t b) { return RoundTo(s.type, Reference(value(b), s.form, s.backward)) != 0; };
  uint32_t lo = 1, hi = top;  // nonzero at lo (the smallest subnormal); hi: zero, else the whole range is nonzero
  if (nonzero(hi)) return value(hi);
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    (nonzero(mid) ? lo : hi) = mid;
  }
  return value(lo);
}

// Appends p and its `ulps` nearest neighbours on each side (a threshold +- a few ULP), in the order p, -1, +1, -2, ...
template <class T>
void PushWithNeighbours(T p, int ulps, std::vector<T>* x) {
  T lo = p, hi = p;
  x->push_back(p);
  for (int k = 0; k < ulps; ++k) {
    lo = std::nextafter(lo, -INFINITY);
    hi = std::nextafter(hi, INFINITY);
    x->push_back(lo);
    x->push_back(hi);
  }
}

std::vector<float> StratifiedInputsF32(const Spec& s) {
  std::vector<float> x;
  for (uint32_t sign : {0u, 0x80000000u}) {
    for (uint32_t e = 0; e < 255; ++e) {  // every binade, subnormals (e = 0) included: 64 values, ends included
      for (uint32_t k = 0; k <= 64; ++k) {
        const uint32_t m = k == 64 ? 0x7fffffu : k * (0x800000u / 64) + (k * 7919u) % (0x800000u / 64);
        x.push_back(std::bit_cast<float>(sign | (e << 23) | m));
      }
    }
  }
  constexpr int kGrid = 1 << 16;
  for (int i = 0; i < kGrid; ++i) x.push_back(static_cast<float>(-10.0 + 20.0 * (i + 0.5) / kGrid));
  const auto [near_lo, near_hi] = NearRootInterval(s.form);
  std::vector<float> points = {0.0f, FLT_MIN, -FLT_MIN, 4.0f, -4.0f, 10.0f, -10.0f, static_cast<float>(TrueTailCutoff(s)),
                               static_cast<float>(near_lo), static_cast<float>(near_hi),
                               static_cast<float>(0.5 * (near_lo + near_hi))};
  // Where f(x) rounds to x (forward) or f'(x) to 1 (backward): the first positive x, by bisection on the bits.
  {
    uint32_t lo = 0x3f800000u, hi = 0x42800000u;  // 1 (not yet), 64 (already)
    const auto done = [&](uint32_t b) {
      const float v = std::bit_cast<float>(b);
      return static_cast<float>(Reference(v, s.form, s.backward)) == (s.backward ? 1.0f : v);
    };
    while (hi - lo > 1) {
      const uint32_t mid = lo + (hi - lo) / 2;
      (done(mid) ? hi : lo) = mid;
    }
    points.push_back(std::bit_cast<float>(hi));
  }
  for (float p : points) {
    PushWithNeighbours(p, 64, &x);
  }
  for (float v : {INFINITY, -INFINITY, NAN, -0.0f, FLT_MAX, -FLT_MAX, FLT_TRUE_MIN, -FLT_TRUE_MIN}) x.push_back(v);
  for (double v : RoundValues()) x.push_back(static_cast<float>(v));
  std::vector<uint32_t> bits(x.size());
  for (size_t i = 0; i < x.size(); ++i) bits[i] = std::bit_cast<uint32_t>(x[i]);
  std::sort(bits.begin(), bits.end());
  bits.erase(std::unique(bits.begin(), bits.end()), bits.end());
  x.resize(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) x[i] = std::bit_cast<float>(bits[i]);
  return x;
}

std::vector<double> RoundValues() {
  std::vector<double> v;
  for (int k = -128; k <= 128; ++k) v.push_back(k / 8.0);
  for (int k = -100; k <= 100; ++k) v.push_back(k);
  for (int k = -100; k <= 100; ++k) v.push_back(k / 10.0);
  for (double big : {100.0, 1000.0}) {
    v.push_back(big);
    v.push_back(-big);
  }
  return v;
}

std::vector<double> StratifiedInputsF64(const Spec& s) {
#if !defined(GELU_CHECK_HAVE_MPFR)
  (void)s;
  throw std::runtime_error(kNoFloat64);
#else
  std::vector<double> x;
  for (uint64_t sign : {uint64_t{0}, uint64_t{1} << 63}) {
    for (uint64_t e = 0; e < 2047; ++e) {  // every binade, subnormals (e = 0) included: 17 values, ends included
      for (uint64_t k = 0; k <= 16; ++k) {
        constexpr uint64_t kStep = (uint64_t{1} << 52) / 16;
        const uint64_t m = k == 16 ? kStep * 16 - 1 : k * kStep + (k * 0x9e3779b97f4a7c15u) % kStep;
        x.push_back(std::bit_cast<double>(sign | (e << 52) | m));
      }
    }
  }
  constexpr int kGrid = 1 << 15;
  for (int i = 0; i < kGrid; ++i) x.push_back(-10.0 + 20.0 * (i + 0.5) / kGrid);
  for (double v : RoundValues()) x.push_back(v);
  const auto [near_lo, near_hi] = NearRootInterval(s.form);
  std::vector<double> points = {0.0, DBL_MIN, -DBL_MIN, 4.0, -4.0, 10.0, -10.0, TrueTailCutoff(s),
                                near_lo, near_hi, 0.5 * (near_lo + near_hi)};
  // Where f(x) rounds to x (forward) or f'(x) to 1 (backward): the first positive x, by bisection on the bits.
  {
    uint64_t lo = std::bit_cast<uint64_t>(1.0), hi = std::bit_cast<uint64_t>(64.0);  // not yet, already
    const auto done = [&](uint64_t b) {
      const double v = std::bit_cast<double>(b);
      return ReferenceF64(v, s.form, s.backward) == (s.backward ? 1.0 : v);
    };
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      (done(mid) ? hi : lo) = mid;
    }
    points.push_back(std::bit_cast<double>(hi));
  }
  for (double p : points) {
    PushWithNeighbours(p, 16, &x);
  }
  for (double v : std::initializer_list<double>{INFINITY, -INFINITY, NAN, -0.0, DBL_MAX, -DBL_MAX, DBL_TRUE_MIN, -DBL_TRUE_MIN}) x.push_back(v);
  std::mt19937_64 random_bits(0x6765'6c75u);  // the standard fixes mt19937_64's sequence: the same sample everywhere
  for (int i = 0; i < 1 << 14; ++i) x.push_back(std::bit_cast<double>(random_bits()));
  std::vector<uint64_t> bits(x.size());
  for (size_t i = 0; i < x.size(); ++i) bits[i] = std::bit_cast<uint64_t>(x[i]);
  std::sort(bits.begin(), bits.end());
  bits.erase(std::unique(bits.begin(), bits.end()), bits.end());
  x.resize(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) x[i] = std::bit_cast<double>(bits[i]);
  return x;
#endif
}

}  // namespace gelu::check
