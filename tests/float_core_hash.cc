// SPDX-License-Identifier: Apache-2.0
// Prints a hash of the float32 output bits of every form and direction (src/common/functions.h), one line per
// float-core target this CPU supports (src/cpu/float_core_targets.h: x86 AVX3, AVX2; Arm NEON) and function, on a
// sample made from integer bit patterns only: no libm, no floating-point arithmetic, no std:: distribution, so
// every architecture builds the same inputs. scripts/test_arm.sh runs it natively and under qemu (NEON) and
// requires one hash per function across every target: the Arm float core returns the x86 float core's bits on the
// sample (docs/ACCURACY.md, "Arm"). NaN results are hashed as one canonical NaN (the library promises a NaN, not
// its payload, which x86 and Arm propagate differently).
//   float_core_hash [log2 of the sample size, default 22]
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gelu/gelu.h"
#include "hwy/targets.h"
#include "src/common/functions.h"
#include "src/cpu/float_core_targets.h"

namespace {

// x: the 2^k inputs spread over all 2^32 bit patterns (both signs, every binade, NaNs), each stratum of 2^(32-k)
// patterns hit at a pseudo-random place (Knuth's multiplicative hash of i) so that the low mantissa bits vary;
// the strata that start at +-0 and +-inf take that pattern itself. grad_out: a sign, a mantissa and an exponent in [2^-32, 2^32) from another hash of i.
void MakeInputs(int log2_size, std::vector<float>& x, std::vector<float>& g) {
  const uint32_t n = uint32_t{1} << log2_size, shift = 32 - static_cast<uint32_t>(log2_size);
  x.resize(n), g.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t start = i << shift, magnitude = start & 0x7fffffffu;
    const bool special = magnitude == 0 || magnitude == 0x7f800000u;
    const uint32_t within = special ? 0 : (i * 2654435761u) >> (32 - shift);
    x[i] = std::bit_cast<float>(start | within);
    const uint32_t h = i * 2246822519u + 374761393u;
    const uint32_t exponent = 127 - 32 + (h >> 26);  // 2^-32 .. 2^31
    g[i] = std::bit_cast<float>((h & 0x807fffffu) | (exponent << 23));
  }
}

// FNV-1a, 64 bits, over the output bits, NaNs as 0x7fc00000.
uint64_t Hash(const std::vector<float>& y) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (float v : y) {
    uint32_t bits = std::bit_cast<uint32_t>(v);
    if ((bits & 0x7fffffffu) > 0x7f800000u) bits = 0x7fc00000u;
    for (int b = 0; b < 32; b += 8) h = (h ^ ((bits >> b) & 0xffu)) * 0x100000001b3ull;
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  const int log2_size = argc > 1 ? std::atoi(argv[1]) : 22;
  if (argc > 2 || log2_size < 1 || log2_size > 30) {
    std::fprintf(stderr, "usage: float_core_hash [log2 of the sample size, 1..30; default 22]\n");
    return 2;
  }
  std::vector<float> x, g;
  MakeInputs(log2_size, x, g);
  std::vector<float> y(x.size());
  gelu_set_num_threads(1);
  int targets = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (!gelu::cpu::RunsFloatCore(target)) continue;
    hwy::SetSupportedTargetsForTest(target);
    ++targets;
    for (gelu::common::Form form : gelu::common::kForms) {
      for (bool backward : {false, true}) {
        const auto approximate = static_cast<gelu_approximate>(form);
        const gelu_status s = backward ? gelu_backward_f32(g.data(), x.data(), y.data(), y.size(), approximate)
                                       : gelu_forward_f32(x.data(), y.data(), y.size(), approximate);
        if (s != GELU_OK) {
          std::fprintf(stderr, "float_core_hash: %s returned status %d\n", gelu_simd_target(), static_cast<int>(s));
          return 1;
        }
        std::printf("%s %s-%s %016llx\n", gelu_simd_target(), backward ? "bwd" : "fwd",
                    gelu::common::kFormNames[form], static_cast<unsigned long long>(Hash(y)));
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  if (targets == 0) {
    std::fprintf(stderr, "float_core_hash: no float-core target on this CPU\n");
    return 1;
  }
  return 0;
}
