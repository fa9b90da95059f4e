// SPDX-License-Identifier: Apache-2.0
// Element rates of the bf16/fp16 functions beside float32 and a copy, and of the fused operations beside the
// unfused sequence of passes they replace. Not a test: a measurement program whose output docs/VARIANTS.md
// quotes. Each figure is the best of `reps` timed runs (std::chrono::steady_clock) after one warm-up run.
//
//   build/bench/half_rates [reps]
//   GELU_BENCH_BASELINE=<earlier build>/libgelu.so build/bench/half_rates [reps]
// With GELU_BENCH_BASELINE, also the 16-bit elementwise functions of this build against the same C API from that
// library (dlopen, in this process): x ~ N(0,1) and U[-10,10], grad_out ~ N(0,1), 64 Ki elements on 1 thread and
// 16 Mi on all, 9 interleaved rounds of (ours, baseline), each the best of `reps`; medians and their ratio.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "gelu/gelu.h"
#include "gelu/gelu.hpp"
#include "bench/baseline_library.h"

namespace {

int g_reps = 7;

template <class F>
double BestSeconds(F&& f) {
  f();
  double best = 1e30;
  for (int r = 0; r < g_reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

void Row(const char* what, size_t n, double seconds, double baseline_seconds = 0) {
  std::printf("  %-44s %8.3f Gelem/s", what, n / seconds * 1e-9);
  if (baseline_seconds > 0) std::printf("   %5.2fx", baseline_seconds / seconds);
  std::printf("\n");
}

std::vector<float> Normal(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& e : v) e = nd(rng);
  return v;
}
std::vector<uint16_t> ToBf16(const std::vector<float>& v) {
  std::vector<uint16_t> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) h[i] = gelu::bf16::from_float(v[i]).bits;
  return h;
}
std::vector<uint16_t> ToF16(const std::vector<float>& v) {
  std::vector<uint16_t> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) h[i] = gelu::f16::from_float(v[i]).bits;
  return h;
}

// memcpy split over `threads` threads (as the library splits an array): the memory-bound rows' yardstick.
void Copy(void* dst, const void* src, size_t bytes, int threads) {
  if (threads <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  std::vector<std::thread> pool;
  const size_t chunk = (bytes / threads + 63) / 64 * 64;
  for (int t = 0; t < threads; ++t) {
    const size_t begin = std::min(bytes, t * chunk), end = std::min(bytes, begin + chunk);
    pool.emplace_back([=] { std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, end - begin); });
  }
  for (auto& th : pool) th.join();
}

void Elementwise(size_t n, int threads) {
  gelu_set_num_threads(threads);
  std::printf("\nElementwise, n = %zu, %d thread(s), x ~ N(0,1), grad_out ~ N(0,1), approximate = none; ratio to "
              "float32 forward\n", n,
              gelu_get_num_threads());
  const auto x = Normal(n, 1);
  const auto xb = ToBf16(x), xh = ToF16(x);
  const auto g = Normal(n, 2);
  const auto gb = ToBf16(g), gh = ToF16(g);
  std::vector<float> y(n);
  std::vector<uint16_t> yh(n);
  const double f32 = BestSeconds([&] { gelu_forward_f32(x.data(), y.data(), n, GELU_APPROXIMATE_NONE); });
  const int copiers = gelu_get_num_threads();
  Row("copy float32 (memcpy, same bytes as f32)", n, BestSeconds([&] { Copy(y.data(), x.data(), n * 4, copiers); }),
      f32);
  Row("copy 16-bit (memcpy, same bytes as bf16)", n,
      BestSeconds([&] { Copy(yh.data(), xb.data(), n * 2, copiers); }), f32);
  Row("gelu_forward_f32", n, f32, f32);
  Row("gelu_forward_bf16", n, BestSeconds([&] { gelu_forward_bf16(xb.data(), yh.data(), n, GELU_APPROXIMATE_NONE); }),
      f32);
  Row("gelu_forward_f16", n, BestSeconds([&] { gelu_forward_f16(xh.data(), yh.data(), n, GELU_APPROXIMATE_NONE); }),
      f32);
  Row("gelu_forward_bf16 tanh", n,
      BestSeconds([&] { gelu_forward_bf16(xb.data(), yh.data(), n, GELU_APPROXIMATE_TANH); }), f32);
  Row("gelu_backward_f32", n,
      BestSeconds([&] { gelu_backward_f32(g.data(), x.data(), y.data(), n, GELU_APPROXIMATE_NONE); }), f32);
  Row("gelu_backward_bf16", n,
      BestSeconds([&] { gelu_backward_bf16(gb.data(), xb.data(), yh.data(), n, GELU_APPROXIMATE_NONE); }), f32);
  Row("gelu_backward_f16", n,
      BestSeconds([&] { gelu_backward_f16(gh.data(), xh.data(), yh.data(), n, GELU_APPROXIMATE_NONE); }), f32);
}

// Fused against the unfused passes a framework would run (the extra passes as plain loops over the arrays).
void Fused(size_t rows, size_t cols, int threads) {
  gelu_set_num_threads(threads);
  const size_t n = rows * cols;
  std::printf("\nFused vs unfused, %zu x %zu = %zu elements, %d thread(s), approximate = none; ratio = unfused time /"
              " fused time\n",
              rows, cols, n, gelu_get_num_threads());
  const auto x = Normal(n, 2), bias = Normal(cols, 3), g = Normal(n, 4), b = Normal(n, 5);
  std::vector<float> y(n), h(n), t(n), gx(n), gbias(cols), ga(n), gbv(n);
  const auto a = gelu_approximate{GELU_APPROXIMATE_NONE};

  // Bias + GELU forward: h = x + bias (one pass), y = gelu(h) (another).
  const double unf_bf = BestSeconds([&] {
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) h[r * cols + c] = x[r * cols + c] + bias[c];
    gelu_forward_f32(h.data(), y.data(), n, a);
  });
  const double fus_bf = BestSeconds([&] { gelu_bias_forward_f32(x.data(), bias.data(), y.data(), rows, cols, a); });
  Row("unfused bias add + gelu_forward_f32", n, unf_bf);
  Row("gelu_bias_forward_f32", n, fus_bf, unf_bf);

  // Bias + GELU backward: h = x + bias, grad_x = gelu_backward(g, h), grad_bias = column sums (double).
  std::vector<double> acc(cols);
  const double unf_bb = BestSeconds([&] {
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) h[r * cols + c] = x[r * cols + c] + bias[c];
    gelu_backward_f32(g.data(), h.data(), gx.data(), n, a);
    std::fill(acc.begin(), acc.end(), 0.0);
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) acc[c] += gx[r * cols + c];
    for (size_t c = 0; c < cols; ++c) gbias[c] = static_cast<float>(acc[c]);
  });
  const double fus_bb = BestSeconds(
      [&] { gelu_bias_backward_f32(g.data(), x.data(), bias.data(), gx.data(), gbias.data(), rows, cols, a); });
  Row("unfused bias add + gelu_backward_f32 + sum", n, unf_bb);
  Row("gelu_bias_backward_f32", n, fus_bb, unf_bb);

  // GEGLU forward: t = gelu(a), y = t * b.
  const double unf_gf = BestSeconds([&] {
    gelu_forward_f32(x.data(), t.data(), n, a);
    for (size_t i = 0; i < n; ++i) y[i] = t[i] * b[i];
  });
  const double fus_gf = BestSeconds([&] { gelu_geglu_forward_f32(x.data(), b.data(), y.data(), n, a); });
  Row("unfused gelu_forward_f32 + multiply", n, unf_gf);
  Row("gelu_geglu_forward_f32", n, fus_gf, unf_gf);

  // GEGLU backward: grad_b = g * gelu(a); u = g * b; grad_a = gelu_backward(u, a).
  const double unf_gb = BestSeconds([&] {
    gelu_forward_f32(x.data(), t.data(), n, a);
    for (size_t i = 0; i < n; ++i) {
      gbv[i] = g[i] * t[i];
      h[i] = g[i] * b[i];
    }
    gelu_backward_f32(h.data(), x.data(), ga.data(), n, a);
  });
  const double fus_gb =
      BestSeconds([&] { gelu_geglu_backward_f32(g.data(), x.data(), b.data(), ga.data(), gbv.data(), n, a); });
  Row("unfused forward + 2 multiplies + backward", n, unf_gb);
  Row("gelu_geglu_backward_f32", n, fus_gb, unf_gb);

  // The same in bf16: the unfused sequence rounds h (and t) to bf16 between passes, as a bf16 framework does.
  const auto xb = ToBf16(x), biasb = ToBf16(bias), bb = ToBf16(b);
  std::vector<uint16_t> hb(n), yb(n), tb(n);
  const double unf_bf16 = BestSeconds([&] {
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c)
        hb[r * cols + c] = gelu::bf16::from_float(gelu::bf16{xb[r * cols + c]}.to_float() +
                                                  gelu::bf16{biasb[c]}.to_float())
                               .bits;
    gelu_forward_bf16(hb.data(), yb.data(), n, a);
  });
  const double fus_bf16 =
      BestSeconds([&] { gelu_bias_forward_bf16(xb.data(), biasb.data(), yb.data(), rows, cols, a); });
  Row("unfused bf16 bias add + gelu_forward_bf16", n, unf_bf16);
  Row("gelu_bias_forward_bf16", n, fus_bf16, unf_bf16);
  const double unf_gf16 = BestSeconds([&] {
    gelu_forward_bf16(xb.data(), tb.data(), n, a);
    for (size_t i = 0; i < n; ++i)
      yb[i] = gelu::bf16::from_float(gelu::bf16{tb[i]}.to_float() * gelu::bf16{bb[i]}.to_float()).bits;
  });
  const double fus_gf16 = BestSeconds([&] { gelu_geglu_forward_bf16(xb.data(), bb.data(), yb.data(), n, a); });
  Row("unfused gelu_forward_bf16 + bf16 multiply", n, unf_gf16);
  Row("gelu_geglu_forward_bf16", n, fus_gf16, unf_gf16);
}

}  // namespace

// The entry points of this build and of the baseline (bench/baseline_library.h).
using HalfApi = gelu::bench::Library;
const HalfApi* BaselineApi() { return gelu::bench::Baseline("half_rates"); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void AgainstBaseline(const HalfApi& base, size_t n, int threads) {
  const HalfApi& ours = gelu::bench::Ours();
  ours.set_num_threads(threads);
  base.set_num_threads(threads);
  const auto g = Normal(n, 2);
  const auto gb = ToBf16(g), gh = ToF16(g);
  std::vector<uint16_t> y(n);
  constexpr int kRounds = 9;
  for (const bool uniform : {false, true}) {
    std::vector<float> x = Normal(n, 1);
    if (uniform) {
      std::mt19937 rng(3);
      std::uniform_real_distribution<float> ud(-10.0f, 10.0f);
      for (auto& e : x) e = ud(rng);
    }
    const auto xb = ToBf16(x), xh = ToF16(x);
    std::printf("\n16-bit against the baseline, n = %zu, %d thread(s), x ~ %s, grad_out ~ N(0,1), exact form; "
                "median Gelem/s of %d interleaved rounds, ratio ours / baseline\n",
                n, gelu_get_num_threads(), uniform ? "U[-10,10]" : "N(0,1)", kRounds);
    const char* const kRows[] = {"gelu_forward_bf16", "gelu_forward_f16", "gelu_backward_bf16", "gelu_backward_f16"};
    auto time = [&](const HalfApi& api, int row) {
      const auto a = GELU_APPROXIMATE_NONE;
      switch (row) {
        case 0: return BestSeconds([&] { api.forward_bf16(xb.data(), y.data(), n, a); });
        case 1: return BestSeconds([&] { api.forward_f16(xh.data(), y.data(), n, a); });
        case 2: return BestSeconds([&] { api.backward_bf16(gb.data(), xb.data(), y.data(), n, a); });
        default: return BestSeconds([&] { api.backward_f16(gh.data(), xh.data(), y.data(), n, a); });
      }
    };
    for (int row = 0; row < 4; ++row) {
      std::vector<double> mine, theirs;
      for (int r = 0; r < kRounds; ++r) {
        mine.push_back(time(ours, row));
        theirs.push_back(time(base, row));
      }
      const double m = Median(mine), t = Median(theirs);
      std::printf("  %-22s ours %7.3f  baseline %7.3f Gelem/s   %5.2fx\n", kRows[row], n / m * 1e-9, n / t * 1e-9,
                  t / m);
    }
  }
}

int main(int argc, char** argv) {
  if (argc > 1) g_reps = std::max(1, std::atoi(argv[1]));
  std::printf("SIMD target: %s; best of %d runs\n", gelu_simd_target(), g_reps);
  if (const HalfApi* base = BaselineApi()) {
    AgainstBaseline(*base, size_t{1} << 16, 1);
    AgainstBaseline(*base, size_t{1} << 24, 0);
    return 0;
  }
  Elementwise(size_t{1} << 16, 1);
  Elementwise(size_t{1} << 24, 0);
  Fused(64, 1024, 1);
  Fused(4096, 1024, 0);
  return 0;
}
