// SPDX-License-Identifier: Apache-2.0
// Element rates of the float32 functions by input range, one thread: where the cost per element leaves the
// usual range's. Lanes in the deep negative tail, subnormal x and NaN leave the float core's main path for
// slower ones (GeluF32BlockTails, FallbackLanesF32 in a profile), so an array of them runs at those paths' rate;
// N(0,1) and U[-10,10] (gelu_benchmark) never reach below -10. Each range is 2^20 consecutive float32 bit
// patterns from its first value; best of R calls (argument 1, default 7) after one warm-up. std::chrono, as
// half_rates.cc; docs/BENCHMARKS.md has the output.
//   build/bench/input_range_rates [R]
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gelu/gelu.h"

int main(int argc, char** argv) {
  int reps = 7;
  if (argc > 2 || (argc == 2 && std::sscanf(argv[1], "%d", &reps) != 1) || reps < 1) {
    std::fprintf(stderr, "usage: input_range_rates [R]  (R, the calls timed per cell: a positive integer)\n");
    return 2;
  }
  constexpr size_t kN = size_t{1} << 20;
  struct Range {
    const char* name;
    uint32_t first;  // bit pattern of the first input
  };
  const Range ranges[] = {{"[1, 4)", 0x3f800000u},      {"[-4, -1)", 0xbf800000u},
                          {"[-16, -8)", 0xc1000000u},   {"[-64, -16)", 0xc1800000u},
                          {"[-2^41, -2^40]", 0xd3800000u}, {"subnormal > 0", 0x00100000u},
                          {"NaN", 0x7fc00000u}};
  const char* forms[] = {"none", "tanh", "sigmoid"};
  std::vector<float> x(kN), y(kN), g(kN, 1.0f);
  gelu_set_num_threads(1);
  std::printf("target %s, %zu elements, best of %d, ns per element\n", gelu_simd_target(), kN, reps);
  std::printf("%-16s %9s %9s %9s %9s %9s %9s\n", "x", "fwd none", "fwd tanh", "fwd sigm", "bwd none", "bwd tanh",
              "bwd sigm");
  for (const Range& r : ranges) {
    for (size_t i = 0; i < kN; ++i) x[i] = std::bit_cast<float>(r.first + static_cast<uint32_t>(i));
    std::printf("%-16s", r.name);
    for (int backward = 0; backward < 2; ++backward) {
      for (int form = 0; form < 3; ++form) {
        const auto a = static_cast<gelu_approximate>(form);
        double best = 1e30;
        for (int rep = -1; rep < reps; ++rep) {  // rep -1: warm-up
          const auto t0 = std::chrono::steady_clock::now();
          const gelu_status s = backward ? gelu_backward_f32(g.data(), x.data(), y.data(), kN, a)
                                         : gelu_forward_f32(x.data(), y.data(), kN, a);
          const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          if (s != GELU_OK) {
            std::fprintf(stderr, "input_range_rates: %s %s returned status %d\n", backward ? "backward" : "forward",
                         forms[form], static_cast<int>(s));
            return 1;
          }
          if (rep >= 0) best = std::min(best, t);
        }
        std::printf(" %9.2f", best / kN * 1e9);
      }
    }
    std::printf("\n");
  }
  return 0;
}
