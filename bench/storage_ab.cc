// SPDX-License-Identifier: Apache-2.0
// Same-process A/B of two builds of libgelu (dlopen, RTLD_LOCAL, so each keeps its own symbols): element rates of
// the float32, 16-bit and fused entry points, 1 thread, n = 64 Ki (64 x 1024), x ~ N(0,1) and U[-10,10], exact
// form. Per row each library runs 3 rounds of `reps` timed calls; the figure is the median round's median call.
// A/A (the same file twice) shows the noise. Not a test. docs/EXPERIMENTS.md quotes it.
//
//   cp -a build/libgelu.so* /tmp/before/   (at the parent commit; then rebuild)
//   build/bench/storage_ab /tmp/before/libgelu.so.0 build/libgelu.so.0 [reps]
#include <dlfcn.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include "gelu/gelu.h"
#include "src/common/half.h"
struct Lib {
  void* h;
  template <class F> F Get(const char* name) { void* p = dlsym(h, name); if (!p) { std::printf("no %s\n", name); std::exit(1); } return reinterpret_cast<F>(p); }
};
template <class F> double Median(F&& f, int reps) {
  std::vector<double> t; f();
  for (int r = 0; r < reps; ++r) { auto t0 = std::chrono::steady_clock::now(); f(); auto t1 = std::chrono::steady_clock::now(); t.push_back(std::chrono::duration<double>(t1 - t0).count()); }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end()); return t[t.size() / 2];
}
int main(int argc, char** argv) {
  if (argc < 3) {
    std::printf("usage: storage_ab LIB_BEFORE LIB_AFTER [reps]\n");
    return 2;
  }
  Lib L[2] = {{dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)}, {dlopen(argv[2], RTLD_NOW | RTLD_LOCAL)}};
  if (!L[0].h || !L[1].h) { std::printf("dlopen: %s\n", dlerror()); return 1; }
  const int reps = argc > 3 ? atoi(argv[3]) : 101;
  for (auto& l : L) l.Get<void (*)(int)>("gelu_set_num_threads")(1);
  const size_t rows = 64, cols = 1024, n = rows * cols;
  const gelu_approximate a = GELU_APPROXIMATE_NONE;
  for (int dist = 0; dist < 2; ++dist) {
    std::mt19937 rng(1);
    std::normal_distribution<float> nd(0, 1);
    std::uniform_real_distribution<float> ud(-10, 10);
    std::vector<float> x(n), g(n), bias(cols), y(n), y2(n), gbias(cols);
    for (auto& v : x) v = dist ? ud(rng) : nd(rng);
    for (auto& v : g) v = nd(rng);
    for (auto& v : bias) v = 0.1f * nd(rng);
    std::vector<uint16_t> xb(n), gb(n), bb(cols), yb(n), yb2(n), gbb(cols), xh(n), gh(n), bh(cols);
    for (size_t i = 0; i < n; ++i) xb[i] = gelu::common::DoubleToBf16(x[i]), gb[i] = gelu::common::DoubleToBf16(g[i]), xh[i] = gelu::common::DoubleToF16(x[i]), gh[i] = gelu::common::DoubleToF16(g[i]);
    for (size_t c = 0; c < cols; ++c) bb[c] = gelu::common::DoubleToBf16(bias[c]), bh[c] = gelu::common::DoubleToF16(bias[c]);
    std::printf("%s, n = %zu, 1 thread, median of %d: Gelem/s before, after, after/before\n", dist ? "U[-10,10]" : "N(0,1)", n, reps);
    auto row = [&](const char* name, auto&& call) {
      double s[2] = {0, 0}, t[2][3];
      for (int k = 0; k < 3; ++k) for (int l = 0; l < 2; ++l) t[l][k] = Median([&] { call(L[l]); }, reps);
      for (int l = 0; l < 2; ++l) { std::sort(t[l], t[l] + 3); s[l] = t[l][1]; }
      std::printf("  %-30s %7.3f %7.3f  %5.2fx\n", name, n / s[0] * 1e-9, n / s[1] * 1e-9, s[0] / s[1]);
    };
    using F1 = gelu_status (*)(const float*, float*, size_t, gelu_approximate);
    using F2 = gelu_status (*)(const float*, const float*, float*, size_t, gelu_approximate);
    using H1 = gelu_status (*)(const uint16_t*, uint16_t*, size_t, gelu_approximate);
    using H2 = gelu_status (*)(const uint16_t*, const uint16_t*, uint16_t*, size_t, gelu_approximate);
    using BFf = gelu_status (*)(const float*, const float*, float*, size_t, size_t, gelu_approximate);
    using BFh = gelu_status (*)(const uint16_t*, const uint16_t*, uint16_t*, size_t, size_t, gelu_approximate);
    using BBf = gelu_status (*)(const float*, const float*, const float*, float*, float*, size_t, size_t, gelu_approximate);
    using BBh = gelu_status (*)(const uint16_t*, const uint16_t*, const uint16_t*, uint16_t*, uint16_t*, size_t, size_t, gelu_approximate);
    using GBf = gelu_status (*)(const float*, const float*, const float*, float*, float*, size_t, gelu_approximate);
    using GBh = gelu_status (*)(const uint16_t*, const uint16_t*, const uint16_t*, uint16_t*, uint16_t*, size_t, gelu_approximate);
    row("forward_f32", [&](Lib& l) { l.Get<F1>("gelu_forward_f32")(x.data(), y.data(), n, a); });
    row("backward_f32", [&](Lib& l) { l.Get<F2>("gelu_backward_f32")(g.data(), x.data(), y.data(), n, a); });
    row("forward_bf16 (table)", [&](Lib& l) { l.Get<H1>("gelu_forward_bf16")(xb.data(), yb.data(), n, a); });
    row("bias_forward_f32", [&](Lib& l) { l.Get<BFf>("gelu_bias_forward_f32")(x.data(), bias.data(), y.data(), rows, cols, a); });
    row("bias_forward_bf16", [&](Lib& l) { l.Get<BFh>("gelu_bias_forward_bf16")(xb.data(), bb.data(), yb.data(), rows, cols, a); });
    row("bias_forward_f16", [&](Lib& l) { l.Get<BFh>("gelu_bias_forward_f16")(xh.data(), bh.data(), yb.data(), rows, cols, a); });
    row("bias_backward_f32", [&](Lib& l) { l.Get<BBf>("gelu_bias_backward_f32")(g.data(), x.data(), bias.data(), y.data(), gbias.data(), rows, cols, a); });
    row("bias_backward_bf16", [&](Lib& l) { l.Get<BBh>("gelu_bias_backward_bf16")(gb.data(), xb.data(), bb.data(), yb.data(), gbb.data(), rows, cols, a); });
    row("bias_backward_f16", [&](Lib& l) { l.Get<BBh>("gelu_bias_backward_f16")(gh.data(), xh.data(), bh.data(), yb.data(), gbb.data(), rows, cols, a); });
    row("geglu_forward_f32", [&](Lib& l) { l.Get<F2>("gelu_geglu_forward_f32")(x.data(), g.data(), y.data(), n, a); });
    row("geglu_backward_f32", [&](Lib& l) { l.Get<GBf>("gelu_geglu_backward_f32")(g.data(), x.data(), g.data(), y.data(), y2.data(), n, a); });
    row("geglu_forward_bf16 (table)", [&](Lib& l) { l.Get<H2>("gelu_geglu_forward_bf16")(xb.data(), gb.data(), yb.data(), n, a); });
    row("geglu_backward_bf16 (table)", [&](Lib& l) { l.Get<GBh>("gelu_geglu_backward_bf16")(gb.data(), xb.data(), gb.data(), yb.data(), yb2.data(), n, a); });
  }
}
