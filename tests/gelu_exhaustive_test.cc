// SPDX-License-Identifier: Apache-2.0
// The accuracy claim of the float32 functions: every one of the 2^32 inputs, every Highway target this CPU
// supports and this build compiled except the one-lane fallbacks (below), every float32 function of the three forms
// in src/common/functions.h (forward, and backward with grad_out = 1; with grad_out = +-0 the sign of the zero),
// through the public dispatched entry points, against the double reference (src/reference/reference.h, itself
// checked against MPFR in reference_test.cc), with signed zeros told apart (src/reference/ulp.h).
//
// The reference dominates the cost, so it is evaluated once per input and function: the threads compute one
// 2^20-input chunk each for every target in turn (a std::barrier switches the dispatched target between
// turns, when no thread is inside the library), then every target's output is checked against the same
// reference values (targets with FMA give bit-identical results; the others differ in a few last bits).
//
// CTest label `exhaustive` (several minutes on 2 cores); CI runs it on every commit.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <thread>
#include <vector>

#include "gelu/gelu.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "src/common/functions.h"
#include "src/common/gelu_f32_math.h"
#include "src/reference/reference.h"
#include "src/reference/ulp.h"

namespace {

using gelu::reference::Worst;

using gelu::common::Function;
constexpr uint32_t kChunk = 1u << 20, kChunks = 4096;  // 4096 * 2^20 = 2^32 inputs

// Every compiled target this CPU supports, except the one-lane fallbacks (HWY_SCALAR, HWY_EMU128): they run only
// on CPUs without SSSE3/NEON, and evaluate one lane at a time through emulated vector code, which would take
// most of CI's time here. They get the fast per-target suite (gelu_f32_test.cc: specials, thresholds, a dense
// sweep, 4e5 random inputs), and the shared scalar path (src/common/gelu_scalar.h) is checked bit for bit
// against the FMA targets there.
std::vector<int64_t> ExhaustiveTargets() {
  std::vector<int64_t> targets;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    if (t != HWY_SCALAR && t != HWY_EMU128) targets.push_back(t);
  }
  return targets;
}

// grad_out = +-0: the result must be the zero IEEE gives grad_out * f'(x), of sign sign(grad_out) xor sign(f'(x)), and
// NaN for NaN x. The sign of f'(x) is the reference's (src/reference/reference.h), except where no claim fixes it:
// in the near-root window with |reference f'| <= the absolute bound fn.f32_abs (2^-24, src/common/functions.h), a
// kernel f' within that bound may have either sign, so there the zero must have the sign of the same kernel's
// grad_out = 1 result (it multiplies the f' it computed). Run stores the results' classes; Check, in the reference
// loop, compares each with the reference, which the sweep evaluates once per input.
struct ZeroGradOutSign {
  uint64_t errors = 0;
  float first_x = 0;
  std::vector<uint8_t> got;  // per input of the last Run: the class of the +0 result (bits 0-1), of the -0 one (2-3)
  static uint8_t Class(float v) { return std::isnan(v) ? 2 : v != 0 ? 3 : std::signbit(v) ? 1 : 0; }
  // zeros[0], zeros[1]: n times +0 and -0; scratch: n floats.
  void Run(const float* x, gelu_approximate a, size_t n, const std::vector<float> (&zeros)[2], float* scratch) {
    got.assign(n, 0);
    for (unsigned k = 0; k < 2; ++k) {
      EXPECT_EQ(gelu_backward_f32(zeros[k].data(), x, scratch, n, a), GELU_OK);
      for (size_t i = 0; i < n; ++i) got[i] |= static_cast<uint8_t>(Class(scratch[i]) << (2 * k));
    }
  }
  // Input i of the last Run: x, the reference f'(x), the kernel's grad_out = 1 result, the near-root bound.
  void Check(size_t i, float x, double ref, float y_one, double abs_bound) {
    uint8_t want = 2 | 2 << 2;  // NaN x: NaN for both
    if (!std::isnan(x)) {
      const bool tiny = gelu::common::InNearRootWindow(x, ref) && std::fabs(ref) <= abs_bound;
      const bool negative = tiny ? std::signbit(y_one) : std::signbit(ref);
      want = negative ? (1 | 0 << 2) : (0 | 1 << 2);  // +0 * f' has f''s sign, -0 * f' the other
    }
    if (got[i] != want && errors++ == 0) first_x = x;
  }
  void Merge(const ZeroGradOutSign& o) {
    if (errors == 0 && o.errors != 0) first_x = o.first_x;
    errors += o.errors;
  }
};

TEST(GeluExhaustiveTest, F32AllInputsAllFunctionsAllTargets) {
  // The functions under test: the table's float32 functions of the three forms, with their bounds.
  const std::vector<Function> kFunctions = [] {
    std::vector<Function> fns;
    for (const Function& f : gelu::common::kFunctions) {
      if (gelu::common::IsFormFunctionIn(f, gelu::common::kF32)) fns.push_back(f);
    }
    return fns;
  }();
  const size_t kNumFunctions = kFunctions.size();
  const std::vector<int64_t> targets = ExhaustiveTargets();
  const size_t num_targets = targets.size();
  ASSERT_GT(num_targets, 0u);
  gelu_set_num_threads(1);  // the test's own threads split the work; each library call stays on its thread
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());

  // worst[w][target][function]
  std::vector<std::vector<std::vector<Worst>>> worst(
      workers, std::vector<std::vector<Worst>>(num_targets, std::vector<Worst>(kNumFunctions)));
  std::vector<std::vector<const char*>> dispatched(workers, std::vector<const char*>(num_targets));
  std::vector<std::vector<std::vector<ZeroGradOutSign>>> zero_sign_errors(
      workers, std::vector<std::vector<ZeroGradOutSign>>(num_targets, std::vector<ZeroGradOutSign>(kNumFunctions)));

  const auto start = std::chrono::steady_clock::now();
  size_t turn = 0;
  hwy::SetSupportedTargetsForTest(targets[0]);
  std::barrier sync(workers, [&]() noexcept {  // runs once all threads arrived, before any is released
    turn = (turn + 1) % num_targets;
    hwy::SetSupportedTargetsForTest(targets[turn]);
  });
  {
    std::vector<std::jthread> pool;
    for (unsigned w = 0; w < workers; ++w) {
      pool.emplace_back([&, w] {
        std::vector<float> x(kChunk), ones(kChunk, 1.0f), y_zero(kChunk);
        const std::vector<float> zeros[2] = {std::vector<float>(kChunk, 0.0f), std::vector<float>(kChunk, -0.0f)};
        std::vector<std::vector<std::vector<float>>> y(
            num_targets, std::vector<std::vector<float>>(kNumFunctions, std::vector<float>(kChunk)));
        for (uint32_t batch = 0; batch * workers < kChunks; ++batch) {
          const uint32_t c = batch * workers + w;
          const bool active = c < kChunks;
          if (active) {
            for (uint32_t i = 0; i < kChunk; ++i) x[i] = std::bit_cast<float>(c * kChunk + i);
          }
          for (size_t t = 0; t < num_targets; ++t) {
            if (active) {
              dispatched[w][t] = gelu_simd_target();
              for (size_t f = 0; f < kNumFunctions; ++f) {
                const Function& fn = kFunctions[f];
                float* out = y[t][f].data();
                const auto a = static_cast<gelu_approximate>(fn.form());
                const gelu_status s = fn.backward() ? gelu_backward_f32(ones.data(), x.data(), out, kChunk, a)
                                                    : gelu_forward_f32(x.data(), out, kChunk, a);
                EXPECT_EQ(s, GELU_OK);
                if (fn.backward()) zero_sign_errors[w][t][f].Run(x.data(), a, kChunk, zeros, y_zero.data());
              }
            }
            sync.arrive_and_wait();
          }
          if (!active) continue;
          if (w == 0 && batch % 128 == 0) {
            std::fprintf(stderr, "exhaustive: chunk %u of %u, %.0f s\n", c, kChunks,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
          }
          for (uint32_t i = 0; i < kChunk; ++i) {
            gelu::reference::ValueAndDerivative ref[gelu::common::kNumForms];
            for (int form = 0; form < gelu::common::kNumForms; ++form) {
              ref[form] = gelu::reference::ForwardAndDerivative(x[i], static_cast<gelu::reference::Form>(form));
            }
            for (size_t f = 0; f < kNumFunctions; ++f) {
              const Function& fn = kFunctions[f];
              const bool derivative = fn.backward();
              const double r = derivative ? ref[fn.form()].derivative : ref[fn.form()].value;
              const float y0 = y[0][f][i];
              const double e0 = Worst::Error(x[i], y0, r, derivative);
              worst[w][0][f].AddError(x[i], y0, r, derivative, e0);
              for (size_t t = 1; t < num_targets; ++t) {
                const float yt = y[t][f][i];
                const bool same = std::bit_cast<uint32_t>(yt) == std::bit_cast<uint32_t>(y0);
                worst[w][t][f].AddError(x[i], yt, r, derivative, same ? e0 : Worst::Error(x[i], yt, r, derivative));
              }
              if (derivative) {
                for (size_t t = 0; t < num_targets; ++t) {
                  zero_sign_errors[w][t][f].Check(i, x[i], r, y[t][f][i], fn.f32_abs);
                }
              }
            }
          }
        }
      });
    }
  }  // jthreads join here
  hwy::SetSupportedTargetsForTest(0);
  gelu_set_num_threads(0);

  std::printf("| target | function | max ULP | where (x) | near-root max abs err / 2^-24 |\n|---|---|---|---|---|\n");
  for (size_t t = 0; t < num_targets; ++t) {
    EXPECT_STREQ(dispatched[0][t], hwy::TargetName(targets[t])) << "the library did not switch targets";
    for (size_t f = 0; f < kNumFunctions; ++f) {
      Worst w;
      for (auto& per_worker : worst) w.Merge(per_worker[t][f]);
      const Function& fn = kFunctions[f];
      std::printf("| %s | %s | %.4f | %a |", hwy::TargetName(targets[t]), fn.name, w.ulp, w.x);
      if (fn.backward()) std::printf(" %.4f (x=%a) |\n", w.abs24, w.abs_x); else std::printf(" - |\n");
      EXPECT_LE(w.ulp, fn.f32_ulp) << hwy::TargetName(targets[t]) << " " << fn.name << std::hexfloat << " x=" << w.x
                                   << " y=" << w.y << " ref=" << w.r;
      EXPECT_EQ(w.nan_mismatches, 0u) << hwy::TargetName(targets[t]) << " " << fn.name << std::hexfloat
                                      << " first at x=" << w.nan_x;
      if (fn.backward()) EXPECT_LE(w.abs24 * 0x1p-24, fn.f32_abs) << fn.name << std::hexfloat << " x=" << w.abs_x;
      if (fn.backward()) {
        ZeroGradOutSign z;
        for (auto& per_worker : zero_sign_errors) z.Merge(per_worker[t][f]);
        EXPECT_EQ(z.errors, 0u) << hwy::TargetName(targets[t]) << " " << fn.name << ": grad_out = +-0 gave a zero of the "
                                << "wrong sign, first at x=" << std::hexfloat << z.first_x;
      }
    }
  }
}

// The premise of the kernels' identity lanes (common::TailIdentity): from kTailIdentityFrom<Function> up, the float
// tail gives exactly x (forward) or grad_out (backward), so a kernel may return those without evaluating it. Every
// float from there to kTailTMax<Form> is checked through the shared scalar TailF32 (the vector targets compute the
// same bits); beyond kTailTMax TailF32 uses kTailTMax's tables and E, so a few points stand for the rest. Backward:
// grad_out = 1 and 0x1.fffffep0 (the largest significand) bound |f'(-t)| by 2^-25 and so cover every grad_out.
template <int kForm, bool kDerivative>
void CheckTailIdentity(float from, float tmax) {
  const gelu::common::ScalarOps o;
  const auto check_range = [&](uint32_t begin, uint32_t end, uint64_t* bad, float* first_bad) {
    for (uint32_t b = begin; b < end; ++b) {
      const float x = std::bit_cast<float>(b);
      for (float g : {1.0f, 0x1.fffffep0f}) {
        const auto t = gelu::common::TailF32<kForm, kDerivative>(o, x, g);
        const float want = kDerivative ? g : x;
        if (!t.valid || std::bit_cast<uint32_t>(t.value) != std::bit_cast<uint32_t>(want)) {
          if ((*bad)++ == 0) *first_bad = x;
        }
        if (!kDerivative) break;
      }
    }
  };
  const uint32_t begin = std::bit_cast<uint32_t>(from), end = std::bit_cast<uint32_t>(tmax) + 1;
  const uint32_t mid = begin + (end - begin) / 2;
  uint64_t bad[2] = {0, 0};
  float first_bad[2] = {0, 0};
  {
    std::jthread half(check_range, begin, mid, &bad[0], &first_bad[0]);
    check_range(mid, end, &bad[1], &first_bad[1]);
  }
  EXPECT_EQ(bad[0] + bad[1], 0u) << "form " << kForm << (kDerivative ? " backward" : " forward") << std::hexfloat
                                 << ", first at x=" << (bad[0] ? first_bad[0] : first_bad[1]);
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {2 * tmax, 1e30f, std::numeric_limits<float>::max(), inf}) {
    check_range(std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(x) + 1, &bad[0], &first_bad[0]);
  }
  EXPECT_EQ(bad[0] + bad[1], 0u) << "form " << kForm << " beyond kTailTMax";
  const auto identity = [&](float x) { return gelu::common::TailIdentity<kForm, kDerivative>(o, x); };
  EXPECT_TRUE(identity(from));
  EXPECT_FALSE(identity(std::nextafter(from, 0.0f)));
  EXPECT_FALSE(identity(std::numeric_limits<float>::quiet_NaN()));
}

TEST(GeluExhaustiveTest, TailIdentityLanesMatchTheTail) {
  namespace c = gelu::common;
  CheckTailIdentity<0, false>(c::kTailIdentityFromExactForward, c::kTailTMaxExact);
  CheckTailIdentity<1, false>(c::kTailIdentityFromTanhForward, c::kTailTMaxTanh);
  CheckTailIdentity<2, false>(c::kTailIdentityFromSigmoidForward, c::kTailTMaxSigmoid);
  CheckTailIdentity<0, true>(c::kTailIdentityFromExactDerivative, c::kTailTMaxExact);
  CheckTailIdentity<1, true>(c::kTailIdentityFromTanhDerivative, c::kTailTMaxTanh);
  CheckTailIdentity<2, true>(c::kTailIdentityFromSigmoidDerivative, c::kTailTMaxSigmoid);
}

}  // namespace
