// SPDX-License-Identifier: Apache-2.0
// Fast float32 tests, run on every Highway target this CPU supports: special values (bitwise), thresholds,
// a dense sweep and random bit patterns against the reference, sizes and alignments around the vector
// length, in-place calls, and agreement of the shared scalar path (src/common/gelu_f32_math.h, which the CUDA
// kernels run) with the vector kernels.
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "gelu/gelu.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "src/common/functions.h"
#include "src/common/gelu_f32_math.h"
#include "src/cpu/float_core_targets.h"
#include "src/reference/reference.h"
#include "src/reference/ulp.h"

namespace {

using gelu::reference::Form;

using gelu::common::kForms;  // src/common/functions.h

float Forward(float x, gelu_approximate a) {
  float y;
  EXPECT_EQ(gelu_forward_f32(&x, &y, 1, a), GELU_OK);
  return y;
}
float Derivative(float x, gelu_approximate a) {
  const float one = 1.0f;
  float g;
  EXPECT_EQ(gelu_backward_f32(&one, &x, &g, 1, a), GELU_OK);
  return g;
}
uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }

using gelu::common::Function;

// The table's float32 functions of the three forms (src/common/functions.h), with their bounds.
std::vector<Function> F32FormFunctions() {
  std::vector<Function> fns(std::begin(gelu::common::kFunctions), std::end(gelu::common::kFunctions));
  std::erase_if(fns, [](const Function& f) { return !gelu::common::IsFormFunctionIn(f, gelu::common::kF32); });
  return fns;
}

void ExpectWithin(const gelu::reference::Worst& w, const Function& fn) {
  EXPECT_TRUE(w.Within(fn)) << fn.name << std::hexfloat << ": max " << w.ulp << " ULP at x=" << w.x << " y=" << w.y
                            << " ref=" << w.r << "; near-root abs " << w.abs24 << " * 2^-24 at x=" << w.abs_x << "; "
                            << w.nan_mismatches << " NaN mismatches (first x=" << w.nan_x << ")";
}

// Checks x[i] for every function of the table against the reference and its stated bounds.
void CheckAgainstReference(const std::vector<float>& x) {
  std::vector<float> y(x.size()), ones(x.size(), 1.0f);
  for (const Function& fn : F32FormFunctions()) {
    const auto a = static_cast<gelu_approximate>(fn.form());
    ASSERT_EQ(fn.backward() ? gelu_backward_f32(ones.data(), x.data(), y.data(), x.size(), a)
                            : gelu_forward_f32(x.data(), y.data(), x.size(), a),
              GELU_OK);
    gelu::reference::Worst w;
    for (size_t i = 0; i < x.size(); ++i) {
      const double r = fn.backward() ? gelu::reference::Derivative(x[i], fn.form()) : gelu::reference::Forward(x[i], fn.form());
      w.Add(x[i], y[i], r, fn.backward());
    }
    ExpectWithin(w, fn);
  }
}

class GeluF32Test : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(GeluF32Test);

TEST_P(GeluF32Test, DispatchesToTheTargetUnderTest) {
  EXPECT_EQ(Forward(1.0f, GELU_APPROXIMATE_NONE), Forward(1.0f, GELU_APPROXIMATE_NONE));  // dispatches
  EXPECT_STREQ(gelu_simd_target(), hwy::TargetName(GetParam()));
}

// The float32 root of form a's derivative as the core table expands about it (CoreRootInterval): the float just
// above the root.
float RootFloat(gelu_approximate a) {
  return gelu::common::VisitForm(static_cast<gelu::common::Form>(a), [](auto k) {
    using Root = gelu::common::CoreRootInterval<decltype(k)::value>;
    return Root::kCentre + Root::kOffset;
  });
}

// grad_out = +-0 gives the zero of the sign IEEE gives grad_out * f'(x), everywhere: the float core (where
// fma(g, head, g * tail) alone would add zeros of opposite signs, e.g. x = -1, g = +0; SignedTimesHeadTail), its
// root interval (the root's float and its neighbours, where f' changes sign), the sigmoid ring (both sides: its
// positive side computes grad_out - grad_out f'(-t), not y + grad_out; at x = -4.25 its fma also added zeros of
// opposite signs), the tails and the identity lanes. The exhaustive suite checks every input.
TEST_P(GeluF32Test, SignedZeroGradOutBitwise) {
  for (gelu_approximate a : kForms) {
    const float root = RootFloat(a);
    const float xs[] = {-12.5f, -9.0f, -5.0f, -4.25f, -4.2f, -4.0f, -3.9f, -2.5f, -1.0f, -0.8f,
                        std::nextafter(std::nextafter(root, -1.0f), -1.0f), std::nextafter(root, -1.0f), root,
                        std::nextafter(root, 0.0f), -0.7f, -0.3f, 0.1f, 1.0f, 3.0f, 3.9f, 4.5f, 9.0f, 11.8f,
                        12.0f, 20.0f};
    for (float x : xs) {
      for (float g : {0.0f, -0.0f}) {
        float y = 1.0f;
        ASSERT_EQ(gelu_backward_f32(&g, &x, &y, 1, a), GELU_OK);
        const double d = gelu::reference::Derivative(x, static_cast<gelu::reference::Form>(a));
        ASSERT_NE(d, 0.0) << x;
        EXPECT_EQ(Bits(y), Bits(static_cast<float>(g * d))) << "form " << a << std::hexfloat << " x=" << x << " g=" << g;
      }
    }
  }
}

TEST_P(GeluF32Test, SpecialValuesBitwise) {
  const float inf = std::numeric_limits<float>::infinity();
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float snan = std::numeric_limits<float>::signaling_NaN();
  for (gelu_approximate a : kForms) {
    SCOPED_TRACE(a);
    EXPECT_EQ(Bits(Forward(0.0f, a)), Bits(0.0f));
    EXPECT_EQ(Bits(Forward(-0.0f, a)), Bits(-0.0f));
    EXPECT_EQ(Forward(inf, a), inf);
    EXPECT_EQ(Bits(Forward(-inf, a)), Bits(-0.0f));  // not NaN: GELU(-inf) = -0
    EXPECT_EQ(Bits(Forward(-FLT_MAX, a)), Bits(-0.0f));
    EXPECT_EQ(Forward(FLT_MAX, a), FLT_MAX);
    EXPECT_EQ(Derivative(inf, a), 1.0f);
    // f'(-inf) = +0 is the library's convention (include/gelu/gelu.h); at a finite x in the far negative tail
    // f' < 0 rounds to -0 (src/reference/reference.h, SignedNegativeTail). Bits: SCALAR is not swept.
    EXPECT_EQ(Bits(Derivative(-inf, a)), Bits(0.0f));
    EXPECT_EQ(Derivative(FLT_MAX, a), 1.0f);
    EXPECT_EQ(Bits(Derivative(-FLT_MAX, a)), Bits(-0.0f));
    EXPECT_EQ(Derivative(0.0f, a), 0.5f);
    for (float nan : {qnan, -qnan, snan}) {
      const float y = Forward(nan, a), g = Derivative(nan, a);
      EXPECT_TRUE(std::isnan(y));
      EXPECT_TRUE(std::isnan(g));
      EXPECT_TRUE(Bits(y) & 0x00400000u) << "NaN result must be quiet";  // sNaN -> qNaN
    }
  }
  // Subnormals are honoured, not flushed: GELU(2 denorm_min) = denorm_min (Phi(tiny) = 1/2 + tiny), and exact
  // GELU is nonzero down to x = -0x1.cb64eap+3 (STYLE.md thresholds, from mpmath).
  EXPECT_EQ(Forward(2 * FLT_TRUE_MIN, GELU_APPROXIMATE_NONE), FLT_TRUE_MIN);
  EXPECT_EQ(Forward(-0x1p-120f, GELU_APPROXIMATE_NONE), -0x1p-121f);
  // The last nonzero float32 GELU is at -0x1.cb64e8p+3 (|GELU| = 1.0000047 * 2^-150, mpmath); from
  // -0x1.cb64eap+3 down (0.9999910 * 2^-150) it rounds to -0.
  EXPECT_EQ(Bits(Forward(-0x1.cb64e8p+3f, GELU_APPROXIMATE_NONE)), Bits(-FLT_TRUE_MIN));
  EXPECT_EQ(Bits(Forward(-0x1.cb64eap+3f, GELU_APPROXIMATE_NONE)), Bits(-0.0f));
  EXPECT_LT(Forward(-13.0f, GELU_APPROXIMATE_NONE), 0.0f);  // where 1+erf(x/sqrt 2) gives 0
  // Saturation: fl(GELU(x)) = x for x > 0x1.563dbp+2 (mpmath: GELU(0x1.563dcp+2) is x - 0.4999 ULP,
  // GELU(0x1.563dbp+2) is x - 0.50001 ULP).
  EXPECT_EQ(Forward(0x1.563dcp+2f, GELU_APPROXIMATE_NONE), 0x1.563dcp+2f);
  EXPECT_LT(Forward(0x1.563dbp+2f, GELU_APPROXIMATE_NONE), 0x1.563dbp+2f);
}

// Far below the root f'(x) < 0 is tiny but nonzero at every finite x, so an infinite grad_out gives the infinity
// of the opposite sign (IEEE's product), and every finite grad_out the zero of the sign of grad_out * -0; at
// x = -inf, f' = +0 and inf * +0 is NaN. Checked in the lanes that kernels select (x <= -kTailZeroFrom, from -14.5
// to -116.75 by form and direction) in one array with ordinary lanes, so that the vector loop's blend is exercised.
TEST_P(GeluF32Test, InfiniteAndHugeGradOutInTheFarNegativeTail) {
  const float inf = std::numeric_limits<float>::infinity();
  const float xs[] = {-117.0f, -200.0f, -1e20f, -FLT_MAX, -inf, -1.0f, 0.5f};
  for (gelu_approximate a : kForms) {
    SCOPED_TRACE(a);
    for (float g : {inf, -inf, FLT_MAX, -FLT_MAX}) {
      std::vector<float> x, grad, y;
      for (int i = 0; i < 16; ++i) {  // 16 copies of the list: whole vectors on every target
        for (float v : xs) x.push_back(v), grad.push_back(g);
      }
      y.assign(x.size(), 1.0f);
      ASSERT_EQ(gelu_backward_f32(grad.data(), x.data(), y.data(), x.size(), a), GELU_OK);
      for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] == -inf) {
          EXPECT_EQ(Bits(y[i]), Bits(g * 0.0f)) << "x=-inf g=" << g;  // NaN for an infinite g, else a signed zero
        } else if (x[i] < -100.0f) {
          EXPECT_EQ(Bits(y[i]), Bits(std::isinf(g) ? -g : g * -0.0f)) << "x=" << x[i] << " g=" << g;
        } else {
          // Ordinary lanes (the core): with a finite g, the product's sign.
          if (!std::isinf(g)) EXPECT_EQ(std::signbit(y[i]), std::signbit(Derivative(x[i], a) * g)) << x[i];
        }
      }
    }
  }
}

TEST_P(GeluF32Test, EdgesAndThresholdsAgainstReference) {
  std::vector<float> x;
  const float edges[] = {FLT_TRUE_MIN, 2 * FLT_TRUE_MIN, FLT_MIN, std::nextafter(FLT_MIN, 0.f), 1e-30f, 1e-10f,
                         0x1p-12f, 0.5f, 0.7518f, 1.0f, 2.0f, 4.0f, 5.0f, 0x1.563dbp+2f, 8.0f, 10.0f, 11.9f,
                         0x1.a4ae0ep+3f, 0x1.cb64eap+3f, 15.0f, 15.5f, 16.0f, 70.0f, 71.0f, 100.0f, 1e10f, FLT_MAX,
                         // the core range's ends, and where x + kCoreShifter leaves its binade (OutsideCore)
                         gelu::common::kCoreMin, gelu::common::kCoreEnd, 0x1p20f, 0x1p21f, 0x1.8p21f, 0x1p22f,
                         // the sigmoid ring's end, and its first and last intervals' edges
                         gelu::common::kRingEnd, 4.125f, 11.625f};
  for (float e : edges) {
    for (float s : {e, -e}) {
      x.push_back(s);
      x.push_back(std::nextafter(s, -FLT_MAX));
      x.push_back(std::nextafter(s, FLT_MAX));
    }
  }
  CheckAgainstReference(x);
}

// How many random bit patterns, and as many N(0, 3) inputs, SweepAndRandomBitsAgainstReference draws: 200,000, or
// GELU_RANDOM_INPUTS where set (scripts/test_arm.sh: fewer under qemu, where the double reference runs emulated).
// The other random samples scale with it (Scaled).
int RandomInputs() {
  const char* env = std::getenv("GELU_RANDOM_INPUTS");
  return env != nullptr ? std::atoi(env) : 200000;
}
int Scaled(int count) { return std::max(1, static_cast<int>(int64_t{count} * RandomInputs() / 200000)); }

// Tiny x (|x| < kCoreTinyBelow = 2^-40: zeros, subnormals, tiny normals), which the kernels serve by selection
// (src/common/gelu_f32_math.h): f(x) is x/2 rounded to nearest even, and grad_out f'(x) is grad_out/2 rounded to
// nearest even for every finite grad_out, subnormal halves (ties) included. The oracle is double arithmetic, exact
// here, and its rounding to float. Mixed with ordinary lanes in one array, so that the blocks' selection and the
// blends run with both kinds of lane. The float-core targets and the shared scalar path (the CUDA kernels' source);
// the other targets run the double path, which rounds f(x) and grad_out f'(x) once, not their halves: a tie goes
// the way of the true value there, one unit of the subnormal grid from the half at most.
TEST_P(GeluF32Test, TinyInputsGiveHalfOfXOrGradOut) {
  const bool float_core = gelu::cpu::RunsFloatCore(GetParam());
  const auto expect_half = [float_core](float result, float half) {
    if (float_core) return Bits(result) == Bits(half);
    const int64_t units = static_cast<int64_t>(Bits(result)) - static_cast<int64_t>(Bits(half));
    return units >= -1 && units <= 1;
  };
  std::mt19937 rng(7);
  std::vector<float> x, g;
  std::uniform_real_distribution<float> exponent(-126.0f, -40.0f);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const uint32_t stride = 0x00800000u / static_cast<uint32_t>(Scaled(86000)) | 1u;  // odd: both parities of units
  for (uint32_t bits = 0; bits < 0x00800000u; bits += stride) {  // subnormals (and +-0), both signs
    for (uint32_t sign : {0u, 0x80000000u}) x.push_back(std::bit_cast<float>(bits | sign));
  }
  for (int i = 0; i < Scaled(20000); ++i) {  // tiny normals, log-uniform
    const float v = std::exp2(exponent(rng));
    x.push_back(i % 2 ? v : -v);
  }
  for (size_t i = 0; i < x.size(); i += 5) x[i] = normal(rng);  // ordinary lanes among them
  x.push_back(std::bit_cast<float>(0x2B7FFFFFu));  // the largest tiny x, and the least that is not
  x.push_back(std::bit_cast<float>(0x2B800000u));
  for (size_t i = 0; i < x.size(); ++i) {
    // grad_out: mostly N(0, 1); every 7th an odd subnormal or a value in [2^-126, 2^-125) (a tie when halved)
    const uint32_t odd = (static_cast<uint32_t>(rng()) & 0x00ffffffu) | 1u;
    g.push_back(i % 7 ? normal(rng) : std::bit_cast<float>(odd | (i % 2 ? 0x80000000u : 0u)));
  }
  std::vector<float> y(x.size());
  const auto tiny = [](float v) { return std::fabs(v) < 0x1p-40f; };
  for (gelu_approximate a : kForms) {
    SCOPED_TRACE(a);
    ASSERT_EQ(gelu_forward_f32(x.data(), y.data(), x.size(), a), GELU_OK);
    size_t checked = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!tiny(x[i])) continue;
      ++checked;
      const float half = static_cast<float>(0.5 * static_cast<double>(x[i]));
      ASSERT_TRUE(expect_half(y[i], half)) << std::hexfloat << "forward x=" << x[i] << " y=" << y[i];
      ASSERT_EQ(Bits(gelu::common::ForwardF32(x[i], a)), Bits(half)) << std::hexfloat << "scalar path, x=" << x[i];
    }
    EXPECT_GT(checked, static_cast<size_t>(Scaled(80000)));
    ASSERT_EQ(gelu_backward_f32(g.data(), x.data(), y.data(), x.size(), a), GELU_OK);
    for (size_t i = 0; i < x.size(); ++i) {
      if (!tiny(x[i])) continue;
      const float half = static_cast<float>(0.5 * static_cast<double>(g[i]));
      ASSERT_TRUE(expect_half(y[i], half)) << std::hexfloat << "backward x=" << x[i] << " g=" << g[i] << " y=" << y[i];
      ASSERT_EQ(Bits(gelu::common::BackwardF32(g[i], x[i], a)), Bits(half))
          << std::hexfloat << "scalar path, x=" << x[i] << " g=" << g[i];
    }
  }
}

// Zeros among normal data (padding, masked activations): the float-core loop runs them through the core as they
// are, without the tiny path, in blocks with no other tiny x (src/cpu/gelu-inl.h, AnyNonzeroTiny), and they must
// give the tiny path's bits there too: +-0 forward (the sign kept), grad_out / 2 rounded to nearest even backward,
// subnormal halves (ties) included; the scalar path the same. N(0, 1) with a quarter of the elements +-0, in
// enough 1024-element blocks that every block runs without the tiny path (no draw of N(0, 1) is below 2^-40 here,
// checked); grad_out N(0, 1) but every third an odd subnormal or a value in [2^-126, 2^-125) (a tie when halved).
TEST_P(GeluF32Test, ZerosAmongNormalDataGiveTheTinyPathsBits) {
  const bool float_core = gelu::cpu::RunsFloatCore(GetParam());
  std::mt19937 rng(49);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t n = static_cast<size_t>(Scaled(16 * 1024 * 8));
  std::vector<float> x(n), g(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = i % 4 == 1 ? (rng() % 2 ? -0.0f : 0.0f) : normal(rng);
    if (x[i] != 0.0f) ASSERT_GE(std::fabs(x[i]), 0x1p-40f);
    const uint32_t odd = (static_cast<uint32_t>(rng()) & 0x00ffffffu) | 1u;
    g[i] = i % 3 ? normal(rng) : std::bit_cast<float>(odd | (rng() % 2 ? 0x80000000u : 0u));
  }
  const auto expect_half = [float_core](float result, float half) {
    if (float_core) return Bits(result) == Bits(half);
    const int64_t units = static_cast<int64_t>(Bits(result)) - static_cast<int64_t>(Bits(half));
    return units >= -1 && units <= 1;
  };
  for (gelu_approximate a : kForms) {
    SCOPED_TRACE(a);
    ASSERT_EQ(gelu_forward_f32(x.data(), y.data(), n, a), GELU_OK);
    for (size_t i = 1; i < n; i += 4) {
      ASSERT_EQ(Bits(y[i]), Bits(x[i])) << "forward of " << (std::signbit(x[i]) ? "-0" : "+0") << ", element " << i;
    }
    ASSERT_EQ(gelu_backward_f32(g.data(), x.data(), y.data(), n, a), GELU_OK);
    for (size_t i = 1; i < n; i += 4) {
      const float half = static_cast<float>(0.5 * static_cast<double>(g[i]));
      ASSERT_TRUE(expect_half(y[i], half)) << std::hexfloat << "backward x=" << x[i] << " g=" << g[i] << " y=" << y[i]
                                           << " (element " << i << ")";
      ASSERT_EQ(Bits(gelu::common::BackwardF32(g[i], x[i], a)), Bits(half)) << std::hexfloat << "scalar path, g=" << g[i];
    }
  }
}

TEST_P(GeluF32Test, SweepAndRandomBitsAgainstReference) {
  std::vector<float> x;
  for (int i = -5000; i <= 5000; ++i) x.push_back(static_cast<float>(i * 0.02));  // SLEEF tester: [-100, 100]
  std::mt19937 rng(12345);
  const int random_inputs = RandomInputs();
  ASSERT_GT(random_inputs, 0) << "GELU_RANDOM_INPUTS";
  for (int i = 0; i < random_inputs; ++i) x.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int i = 0; i < random_inputs; ++i) x.push_back(normal(rng));
  CheckAgainstReference(x);
}

TEST_P(GeluF32Test, SizesOffsetsAndInPlaceMatchElementwise) {
  // Every length from 0 to 3*64+1 (3 vectors + 1 of the widest target: SVE at 2048 bits, 64 float lanes), and
  // lengths around the float core's 1024-element tail blocks (kTailBlock), at 4 misalignments, out of place and in place, must equal the
  // one-element results: tails use the same vector code. Inputs, first 1024: U[-16, 16] (core and tail lanes
  // mixed), with NaN, -inf, +inf and x = -20 (a subnormal-or-zero result: the double path) sprinkled in.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-16.0f, 16.0f);
  std::vector<size_t> sizes;
  constexpr size_t kWidestLanes = 64;
  for (size_t n = 0; n <= 3 * kWidestLanes + 1; ++n) sizes.push_back(n);
  for (size_t n : {255, 256, 257, 1000, 1023, 1024, 1025, 2049, 4099}) sizes.push_back(n);
  std::vector<float> buffer(sizes.back() + 8), out(sizes.back() + 8), grad(sizes.back() + 8);
  // Past the first 1024 elements, core-range inputs with a tail input every 700: blocks with and without tails.
  std::uniform_real_distribution<float> core(-3.0f, 3.0f);
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = i < 1024 || i % 700 == 0 ? dist(rng) : core(rng);
  for (auto& v : grad) v = dist(rng);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -HUGE_VALF, HUGE_VALF, -20.0f};
  for (size_t i = 50; i < 1024; i += 97) buffer[i] = specials[(i / 97) % 4];
  for (gelu_approximate a : kForms) {
    for (size_t offset = 0; offset < 4; ++offset) {
      for (size_t n : sizes) {
        const float* x = buffer.data() + offset;
        ASSERT_EQ(gelu_forward_f32(x, out.data() + offset, n, a), GELU_OK);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(out[offset + i]), Bits(Forward(x[i], a))) << n << " " << i;
        std::vector<float> in_place(x, x + n);
        ASSERT_EQ(gelu_forward_f32(in_place.data(), in_place.data(), n, a), GELU_OK);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(in_place[i]), Bits(out[offset + i]));
        ASSERT_EQ(gelu_backward_f32(grad.data() + offset, x, out.data() + offset, n, a), GELU_OK);
        for (size_t i = 0; i < n; ++i) {
          const float g = grad[offset + i], expected = g * 1.0f;
          float single;
          ASSERT_EQ(gelu_backward_f32(&expected, &x[i], &single, 1, a), GELU_OK);
          ASSERT_EQ(Bits(out[offset + i]), Bits(single));
        }
        std::vector<float> g_in_place(grad.begin() + offset, grad.begin() + offset + n);
        ASSERT_EQ(gelu_backward_f32(g_in_place.data(), x, g_in_place.data(), n, a), GELU_OK);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(g_in_place[i]), Bits(out[offset + i]));
      }
    }
  }
}

// The float-core loop's per-vector shortcuts (src/cpu/gelu-inl.h, GeluF32Block's kSkipCore): after a block where
// most vectors did not need the core, the next block runs it only for the vectors that do; a vector without a core
// lane takes its selections, one of tiny lanes only HalfOfTiny (forward) or the core's derivative at +-2^-40. A
// lane's bits must not depend on the path its vector takes: every element equals the shared scalar path's (the same
// operations on the float-core targets; elsewhere, where the double-lane loop has no blocks, the one-element calls).
// Blocks of 1024 elements in pairs: a block whose vectors are each of lanes outside the core only (NaN, infinities,
// both tails, identity and ring lanes) or tiny lanes only (zeros, subnormals, tiny normals of both signs), which
// switches the next block to the skipping variant; then a block whose vectors each draw one mix: outside lanes
// only, outside lanes with one core lane, core lanes only, tiny lanes only, tiny lanes with one other. Every other
// pair without tiny lanes, so that the skipping variant runs in blocks with and without them; grad_out random of
// either sign.
TEST_P(GeluF32Test, VectorsThatSkipTheCoreMatchTheScalarPath) {
  std::mt19937 rng(48);
  std::uniform_real_distribution<float> core(-4.0f, 3.8f), tail(-80.0f, -4.2f), above(3.9f, 40.0f);
  std::uniform_int_distribution<uint32_t> tiny_bits(0, 0x2b7fffffu);  // |x| < 2^-40: zeros, subnormals, tiny normals
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -HUGE_VALF, HUGE_VALF, -FLT_MAX, FLT_MAX};
  auto outside = [&] {
    switch (rng() % 4) {
      case 0: return specials[rng() % 5];
      case 1: return tail(rng);
      default: return above(rng);
    }
  };
  auto tiny = [&] { return std::bit_cast<float>(tiny_bits(rng) | static_cast<uint32_t>(rng() & 0x80000000u)); };
  constexpr size_t kBlock = 1024, kVector = 16;  // the blocks of GeluF32Run; 16 lanes or fewer a vector
  std::vector<float> x;
  for (int pair = 0; pair < 16; ++pair) {
    const bool with_tiny = pair % 2 == 1;
    for (size_t v = 0; v < kBlock / kVector; ++v) {
      const bool tiny_vector = with_tiny && rng() % 2 == 0;
      for (size_t lane = 0; lane < kVector; ++lane) x.push_back(tiny_vector ? tiny() : outside());
    }
    for (size_t v = 0; v < kBlock / kVector; ++v) {
      const uint32_t mix = rng() % (with_tiny ? 5 : 3);
      const size_t odd_lane = rng() % kVector;
      for (size_t lane = 0; lane < kVector; ++lane) {
        const bool odd = lane == odd_lane;
        x.push_back(mix == 0 ? outside() : mix == 1 ? (odd ? core(rng) : outside()) : mix == 2 ? core(rng)
                    : mix == 3 ? tiny() : (odd ? (rng() % 2 ? outside() : core(rng)) : tiny()));
      }
    }
  }
  std::vector<float> g(x.size()), y(x.size());
  std::uniform_int_distribution<int> binade(-30, 30);
  for (float& v : g) v = (rng() & 1 ? -1.0f : 1.0f) * std::ldexp(1.0f + static_cast<float>(rng() % 1024) / 1024, binade(rng));
  const bool float_core = gelu::cpu::RunsFloatCore(GetParam());
  for (gelu_approximate a : kForms) {
    ASSERT_EQ(gelu_forward_f32(x.data(), y.data(), x.size(), a), GELU_OK);
    for (size_t i = 0; i < x.size(); ++i) {
      const float s = float_core ? gelu::common::ForwardF32(x[i], a) : Forward(x[i], a);
      ASSERT_TRUE(Bits(s) == Bits(y[i]) || (std::isnan(s) && std::isnan(y[i])))
          << "form " << a << std::hexfloat << " x=" << x[i] << " (element " << i << "): " << y[i] << ", expected " << s;
    }
    ASSERT_EQ(gelu_backward_f32(g.data(), x.data(), y.data(), x.size(), a), GELU_OK);
    for (size_t i = 0; i < x.size(); ++i) {
      float s = gelu::common::BackwardF32(g[i], x[i], a);
      if (!float_core) EXPECT_EQ(gelu_backward_f32(&g[i], &x[i], &s, 1, a), GELU_OK);
      ASSERT_TRUE(Bits(s) == Bits(y[i]) || (std::isnan(s) && std::isnan(y[i])))
          << "form " << a << std::hexfloat << " backward x=" << x[i] << " g=" << g[i] << " (element " << i
          << "): " << y[i] << ", expected " << s;
    }
  }
}

// Backward with random grad_out, against grad_out times the reference f' (their double product: relative error
// ~2^-40, far below a float32 ULP), at the derivative's bound in ULP of the product; in the near-root window of f',
// |error| <= |grad_out| 2^-24. 2^17 random bit patterns, 2^17 draws of N(0, 3), 2^15 of U[-125, -12] and 2^13 of
// U[-14, -11.5] (the deep negative tails, where |f'| < 2^-170 but a large grad_out makes the product a float: the
// double path computes f' down to 2^-408 there, kExactDerivativeTMax and kSigmoidDerivativeZMax; the second range
// is the tanh form's), each with its own grad_out of either
// sign: a third from the binades 2^-20 .. 2^20, a third from 2^-149 .. 2^20 (subnormals included: a tiny grad_out
// once lost the float tail's accuracy to an underflow before its last scaling), a third from 2^21 .. 2^127 (the
// deep-tail draws all from there). Where the product rounds past FLT_MAX the result must be the infinity of its
// sign. In the near-root window one subnormal ULP, 2^-149, is allowed beside |grad_out| 2^-24: where the product is
// subnormal the float core's grad_out * tail and its last fma each round to the subnormal grid. A sample, not a
// sweep: the exhaustive test covers grad_out = 1 over every input.
TEST_P(GeluF32Test, BackwardWithRandomGradOut) {
  std::mt19937 rng(2027);
  std::vector<float> x, g;
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::uniform_real_distribution<float> deep(-125.0f, -12.0f);
  for (int i = 0; i < Scaled(1 << 17); ++i) x.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  for (int i = 0; i < Scaled(1 << 17); ++i) x.push_back(normal(rng));
  const size_t deep_from = x.size();
  for (int i = 0; i < Scaled(1 << 15); ++i) x.push_back(deep(rng));
  std::uniform_real_distribution<float> tanh_deep(-14.0f, -11.5f);  // the tanh form's |z| from 127 to 218
  for (int i = 0; i < Scaled(1 << 13); ++i) x.push_back(tanh_deep(rng));
  std::uniform_int_distribution<int> moderate(-20, 20), any_binade(-149, 20), large(21, 127);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  for (size_t i = 0; i < x.size(); ++i) {
    const int e = i >= deep_from || i % 3 == 2 ? large(rng) : i % 3 == 0 ? moderate(rng) : any_binade(rng);
    g.push_back((rng() & 1 ? -1.0f : 1.0f) * std::ldexp(mantissa(rng), e));
  }
  std::vector<float> gi(x.size());
  for (const Function& fn : F32FormFunctions()) {
    if (!fn.backward()) continue;
    ASSERT_EQ(gelu_backward_f32(g.data(), x.data(), gi.data(), x.size(), static_cast<gelu_approximate>(fn.form())), GELU_OK);
    gelu::reference::MaxError worst_ulp, worst_abs;
    float worst_x = 0, worst_g = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double d = gelu::reference::Derivative(x[i], fn.form());
      const double r = static_cast<double>(g[i]) * d;
      if (std::fabs(r) >= 0x1.ffffffp127) {  // rounds to infinity
        EXPECT_EQ(gi[i], static_cast<float>(r)) << fn.name << std::hexfloat << " x=" << x[i] << " g=" << g[i];
        continue;
      }
      if (gelu::common::InNearRootWindow(x[i], d)) {
        worst_abs.Add(gi[i], r, std::max(0.0, std::fabs(gi[i] - r) - 0x1p-149) / std::fabs(g[i]));
        continue;
      }
      if (worst_ulp.Add(gi[i], r, gelu::reference::UlpErrorF32(gi[i], r))) {
        worst_x = x[i];
        worst_g = g[i];
      }
    }
    std::printf("%s, random grad_out: max %.4f ULP at x=%a g=%a; near-root max |error|/|g| %.3g\n", fn.name,
                worst_ulp.value, worst_x, worst_g, worst_abs.value);
    EXPECT_LE(worst_ulp.value, fn.f32_ulp) << fn.name << std::hexfloat << " x=" << worst_x << " g=" << worst_g;
    EXPECT_LE(worst_abs.value, fn.f32_abs) << fn.name;
  }
}

// The double path's far lanes (|x| > DoublePathForm<form>::FarFrom(derivative), src/common/gelu_in_double.inc): a
// vector of them returns DoublePathFar's selected values instead of evaluating, which must be the bits the scalar
// double path computes there (it evaluates every lane). The double-lane targets (no FMA) then agree with it bit for
// bit, since no rounding is left; so do the float-core targets, whose far lanes are selected too (TailZeroOrNaN,
// TailIdentity). Every 65,537th float beyond the point (a 100th of them under qemu, GELU_RANDOM_INPUTS=2000), both
// signs, the point's neighbour, FLT_MAX and inf; the backward with grad_out of every class (random bits: NaN, inf,
// subnormal, zero included).
TEST_P(GeluF32Test, FarLanesGiveTheScalarDoublePathsBits) {
  std::mt19937 rng(7);
  for (const Function& fn : F32FormFunctions()) {
    const auto a = static_cast<gelu_approximate>(fn.form());
    const bool derivative = fn.backward();
    const double far = gelu::common::VisitForm(fn.form(), [&](auto k) {
      return gelu::common::DoublePathForm<decltype(k)::value>::FarFrom(derivative);
    });
    std::vector<float> x;
    const uint32_t first = Bits(std::nextafter(static_cast<float>(far), HUGE_VALF)), inf = Bits(HUGE_VALF);
    const uint32_t step = 65537u * static_cast<uint32_t>(std::max(1, 200000 / RandomInputs()));  // qemu: fewer
    for (uint32_t b = first; b < inf; b += step) x.insert(x.end(), {std::bit_cast<float>(b), -std::bit_cast<float>(b)});
    x.insert(x.end(), {std::bit_cast<float>(first), -std::bit_cast<float>(first), FLT_MAX, -FLT_MAX, HUGE_VALF,
                       -HUGE_VALF});
    std::vector<float> y(x.size()), g(x.size());
    for (float& v : g) v = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    ASSERT_EQ(derivative ? gelu_backward_f32(g.data(), x.data(), y.data(), x.size(), a)
                         : gelu_forward_f32(x.data(), y.data(), x.size(), a),
              GELU_OK);
    size_t differ = 0;
    float first_x = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const float s = derivative ? gelu::common::BackwardF32ViaDoublePath(g[i], x[i], fn.form())
                                 : gelu::common::ForwardF32ViaDoublePath(x[i], fn.form());
      if (Bits(s) != Bits(y[i]) && !(std::isnan(s) && std::isnan(y[i])) && differ++ == 0) first_x = x[i];
    }
    EXPECT_EQ(differ, 0u) << fn.name << ": " << differ << " of " << x.size() << " far inputs differ, first at x="
                          << std::hexfloat << first_x;
  }
}

TEST_P(GeluF32Test, SharedScalarPathAgreesWithVectorKernels) {
  std::mt19937 rng(99);
  std::vector<float> x;
  for (int i = 0; i < Scaled(100000); ++i) x.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  std::uniform_real_distribution<float> dist(-16.0f, 8.0f);
  for (int i = 0; i < Scaled(100000); ++i) x.push_back(dist(rng));
  std::vector<float> y(x.size()), ones(x.size(), 1.0f);
  for (const Function& fn : F32FormFunctions()) {
    const auto a = static_cast<gelu_approximate>(fn.form());
    const Form form = fn.form();
    const bool derivative = fn.backward();
    {
      ASSERT_EQ(derivative ? gelu_backward_f32(ones.data(), x.data(), y.data(), x.size(), a)
                           : gelu_forward_f32(x.data(), y.data(), x.size(), a),
                GELU_OK);
      gelu::reference::Worst scalar_worst;
      size_t differ = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const float s = derivative ? gelu::common::BackwardF32(1.0f, x[i], a) : gelu::common::ForwardF32(x[i], a);
        if (Bits(s) != Bits(y[i]) && !(std::isnan(s) && std::isnan(y[i]))) ++differ;
        const double r = derivative ? gelu::reference::Derivative(x[i], form) : gelu::reference::Forward(x[i], form);
        scalar_worst.Add(x[i], s, r, derivative);
      }
      // The float-core targets (src/cpu/float_core_targets.h, which the kernels are compiled with) perform exactly
      // the scalar path's operations, FMAs included; the others (no FMA) run the double-lane kernel and round
      // differently, held to the bounds separately.
      if (gelu::cpu::RunsFloatCore(GetParam())) EXPECT_EQ(differ, 0u) << "form " << a << " derivative " << derivative;
      ExpectWithin(scalar_worst, fn);
    }
  }
  // Backward with grad_out other than 1: the core folds grad_out into its last FMA, the tails multiply in double.
  // (The accuracy above is the scalar path's, the float core's, whatever the target; the bits are each target's.)
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> g(x.size());
  for (float& v : g) v = normal(rng);
  if (!gelu::cpu::RunsFloatCore(GetParam())) return;
  for (gelu_approximate a : kForms) {
    ASSERT_EQ(gelu_backward_f32(g.data(), x.data(), y.data(), x.size(), a), GELU_OK);
    size_t differ = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const float s = gelu::common::BackwardF32(g[i], x[i], a);
      if (Bits(s) != Bits(y[i]) && !(std::isnan(s) && std::isnan(y[i]))) ++differ;
    }
    EXPECT_EQ(differ, 0u) << "form " << a << ", random grad_out";
  }
}

}  // namespace
