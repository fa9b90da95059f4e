// SPDX-License-Identifier: Apache-2.0
// The accuracy claim of the float32 functions: every one of the 2^32 inputs, every Highway target this CPU
// supports, all six functions (forward and backward with grad_out = 1, forms none/tanh/sigmoid), against the
// double reference (src/reference/reference.h, itself checked against MPFR in reference_test.cc).
//
// The first target to run is checked against the reference on every input; it also records a hash of its
// output bits per 2^20-input chunk. Each later target computes the same chunks and is checked against the
// reference on every chunk whose hash differs (targets without native FMA round some intermediate steps
// differently), so each target's bound is proven over all inputs without paying for the reference again on
// chunks that are bit-identical to an already verified target.
//
// CTest label `exhaustive` (several minutes on 2 cores); CI runs it on every commit.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "gelu/gelu.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "src/reference/reference.h"
#include "src/reference/ulp.h"

namespace {

using gelu::reference::Worst;

struct Function {
  const char* name;
  gelu_approximate form;
  bool derivative;
  double max_ulp;  // the claimed bound (include/gelu/gelu.h); derivatives also: abs error <= 2^-24 near the root
};
constexpr Function kFunctions[] = {
    {"forward none", GELU_APPROXIMATE_NONE, false, 1.0},     {"forward tanh", GELU_APPROXIMATE_TANH, false, 2.0},
    {"forward sigmoid", GELU_APPROXIMATE_SIGMOID, false, 2.0}, {"backward none", GELU_APPROXIMATE_NONE, true, 2.0},
    {"backward tanh", GELU_APPROXIMATE_TANH, true, 2.0},     {"backward sigmoid", GELU_APPROXIMATE_SIGMOID, true, 2.0},
};
constexpr size_t kNumFunctions = std::size(kFunctions);
constexpr uint32_t kChunk = 1u << 20, kChunks = 4096;  // 4096 * 2^20 = 2^32 inputs

uint64_t HashBits(const float* y, size_t n) {  // FNV-1a over the 32-bit patterns
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ std::bit_cast<uint32_t>(y[i])) * 0x100000001b3ull;
  return h;
}

// Hashes of the first fully verified target, per function and chunk (0 = none recorded).
std::vector<uint64_t>& VerifiedHashes() {
  static std::vector<uint64_t> h(kNumFunctions * kChunks, 0);
  return h;
}
bool& HaveVerifiedHashes() {
  static bool have = false;
  return have;
}

class GeluExhaustiveTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(GeluExhaustiveTest);

TEST_P(GeluExhaustiveTest, F32AllInputsAllFunctions) {
  gelu_set_num_threads(1);  // the test's own threads split the work; each library call stays on its thread
  const bool full = !HaveVerifiedHashes();
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::vector<Worst>> worst(workers, std::vector<Worst>(kNumFunctions));
  std::atomic<uint32_t> next{0};
  std::atomic<uint64_t> chunks_checked{0};
  {
    std::vector<std::jthread> pool;
    for (unsigned w = 0; w < workers; ++w) {
      pool.emplace_back([&, w] {
        std::vector<float> x(kChunk), y(kChunk), ones(kChunk, 1.0f);
        for (uint32_t c; (c = next++) < kChunks;) {
          for (uint32_t i = 0; i < kChunk; ++i) x[i] = std::bit_cast<float>(c * kChunk + i);
          for (size_t f = 0; f < kNumFunctions; ++f) {
            const Function& fn = kFunctions[f];
            const gelu_status s = fn.derivative ? gelu_backward_f32(ones.data(), x.data(), y.data(), kChunk, fn.form)
                                                : gelu_forward_f32(x.data(), y.data(), kChunk, fn.form);
            ASSERT_EQ(s, GELU_OK);
            const uint64_t h = HashBits(y.data(), kChunk);
            uint64_t& verified = VerifiedHashes()[f * kChunks + c];
            if (!full && h == verified) continue;  // bit-identical to a verified target
            if (full) verified = h;
            ++chunks_checked;
            const auto form = static_cast<gelu::reference::Form>(fn.form);
            for (uint32_t i = 0; i < kChunk; ++i) {
              const double r = fn.derivative ? gelu::reference::Derivative(x[i], form)
                                             : gelu::reference::Forward(x[i], form);
              worst[w][f].Add(x[i], y[i], r, fn.derivative);
            }
          }
        }
      });
    }
  }  // jthreads join here
  if (full) HaveVerifiedHashes() = true;

  std::printf("target %s (%s): %llu function-chunks checked against the reference\n",
              hwy::TargetName(GetParam()), gelu_simd_target(),
              static_cast<unsigned long long>(chunks_checked.load()));
  for (size_t f = 0; f < kNumFunctions; ++f) {
    Worst w;
    for (auto& per_worker : worst) w.Merge(per_worker[f]);
    const Function& fn = kFunctions[f];
    std::printf("  %-17s max %.4f ULP at x=%a (y=%a, ref=%a)", fn.name, w.ulp, w.x, w.y, w.r);
    if (fn.derivative) std::printf("; near root max abs err %.4f * 2^-24 at x=%a", w.abs24, w.abs_x);
    std::printf("\n");
    EXPECT_LE(w.ulp, fn.max_ulp) << fn.name << std::hexfloat << " x=" << w.x << " y=" << w.y << " ref=" << w.r;
    if (fn.derivative) EXPECT_LE(w.abs24, 1.0) << fn.name << std::hexfloat << " x=" << w.abs_x;
  }
  gelu_set_num_threads(0);
}

}  // namespace
