// SPDX-License-Identifier: Apache-2.0
// Prints a hash of the bf16 and fp16 output bits of every function (src/common/functions.h) on all 65,536 inputs
// of the type, one line per Highway target this CPU supports, type and function:
//   fwd   forward, every x;
//   bwd1  backward with grad_out = 1 (f'), every x: with fwd, exactly what half_exhaustive_test proves correctly
//         rounded on every target of the CPU it runs on;
//   bwdg  backward with grad_out made from a hash of x's index (every sign and mantissa, exponents 2^-8..2^7), every x.
// scripts/test_arm.sh runs it natively (x86) and under qemu (NEON, SVE, SVE2, SVE2_128, SVE_256) and requires one hash per
// line name across every target of both builds: equal bits carry the x86 exhaustive proof over to Arm, which
// cannot afford the double reference emulated (docs/ACCURACY.md, "Arm"). A quiet NaN result is hashed as one
// canonical quiet NaN (the library promises a quiet NaN, not its payload); any other NaN keeps its bits.
//   half_hash
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gelu/gelu.h"
#include "hwy/targets.h"
#include "src/common/functions.h"
#include "tests/fnv1a.h"

namespace {

struct Type {
  const char* name;
  int mantissa_bits, bias;
  uint16_t one;
  gelu_status (*forward)(const uint16_t*, uint16_t*, size_t, gelu_approximate);
  gelu_status (*backward)(const uint16_t*, const uint16_t*, uint16_t*, size_t, gelu_approximate);
  gelu_status (*variant_forward)(gelu_variant, const uint16_t*, uint16_t*, size_t);
  gelu_status (*variant_backward)(gelu_variant, const uint16_t*, const uint16_t*, uint16_t*, size_t);
};
const Type kTypes[] = {
    {"bf16", 7, 127, 0x3f80, gelu_forward_bf16, gelu_backward_bf16, gelu_variant_forward_bf16,
     gelu_variant_backward_bf16},
    {"f16", 10, 15, 0x3c00, gelu_forward_f16, gelu_backward_f16, gelu_variant_forward_f16, gelu_variant_backward_f16},
};

// FNV-1a, 64 bits, over the output bits; quiet NaNs (exponent all ones, top mantissa bit set) as the canonical one.
uint64_t Hash(const Type& type, const std::vector<uint16_t>& y) {
  const uint16_t exponent_mask = static_cast<uint16_t>(0x7fff & ~((1u << type.mantissa_bits) - 1));
  const uint16_t quiet_bit = static_cast<uint16_t>(1u << (type.mantissa_bits - 1));
  uint64_t h = gelu::test::kFnv1aBasis;
  for (uint16_t bits : y) {
    if ((bits & exponent_mask) == exponent_mask && (bits & quiet_bit) != 0) bits = exponent_mask | quiet_bit;
    h = gelu::test::Fnv1a(h, bits, 2);
  }
  return h;
}

// grad_out for bwdg: sign and mantissa bits from a hash of the index, exponents 2^-8 .. 2^7.
std::vector<uint16_t> HashedGradOut(const Type& type) {
  std::vector<uint16_t> g(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    const uint32_t h = i * 2246822519u + 374761393u;
    const uint32_t exponent = static_cast<uint32_t>(type.bias) - 8 + (h >> 28);
    g[i] = static_cast<uint16_t>(((h >> 16) & 0x8000u) | (exponent << type.mantissa_bits) |
                                 (h & ((1u << type.mantissa_bits) - 1)));
  }
  return g;
}

gelu_status Run(const Type& type, const gelu::common::Function& fn, const std::vector<uint16_t>& g,
                const std::vector<uint16_t>& x, std::vector<uint16_t>& y) {
  if (fn.is_form()) {
    const auto a = static_cast<gelu_approximate>(fn.form());
    return fn.backward() ? type.backward(g.data(), x.data(), y.data(), y.size(), a)
                         : type.forward(x.data(), y.data(), y.size(), a);
  }
  const auto v = fn.formula == gelu::common::Formula::kGeluFast ? GELU_VARIANT_GELU_FAST : GELU_VARIANT_GELU_10;
  return fn.backward() ? type.variant_backward(v, g.data(), x.data(), y.data(), y.size())
                       : type.variant_forward(v, x.data(), y.data(), y.size());
}

}  // namespace

int main(int argc, char**) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: half_hash (no arguments)\n");
    return 2;
  }
  std::vector<uint16_t> x(65536), y(65536);
  for (uint32_t i = 0; i < 65536; ++i) x[i] = static_cast<uint16_t>(i);
  gelu_set_num_threads(1);
  int targets = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    ++targets;
    for (const Type& type : kTypes) {
      const std::vector<uint16_t> ones(65536, type.one);
      const std::vector<uint16_t> hashed = HashedGradOut(type);
      for (const gelu::common::Function& fn : gelu::common::kFunctions) {
        std::string name = fn.name;  // "backward gelu_fast" -> "gelu_fast"
        name = name.substr(name.find(' ') + 1);
        for (const std::vector<uint16_t>* g : {&ones, &hashed}) {
          if (!fn.backward() && g != &ones) continue;
          const gelu_status s = Run(type, fn, *g, x, y);
          if (s != GELU_OK) {
            std::fprintf(stderr, "half_hash: %s %s %s returned status %d\n", gelu_simd_target(), type.name, fn.name,
                         static_cast<int>(s));
            return 1;
          }
          const char* direction = !fn.backward() ? "fwd" : g == &ones ? "bwd1" : "bwdg";
          std::printf("%s %s-%s-%s %016llx\n", gelu_simd_target(), type.name, direction, name.c_str(),
                      static_cast<unsigned long long>(Hash(type, y)));
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  if (targets == 0) {
    std::fprintf(stderr, "half_hash: no target on this CPU\n");
    return 1;
  }
  return 0;
}
