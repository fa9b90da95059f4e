// SPDX-License-Identifier: Apache-2.0
// Prints a hash of the float32 output bits of every form and direction (src/common/functions.h), one line per
// float-core target this CPU supports (src/cpu/float_core_targets.h: x86 AVX3, AVX2; Arm NEON) and function, on a
// sample made from integer bit patterns only: no libm, no floating-point arithmetic, no std:: distribution, so
// every architecture builds the same inputs. scripts/test_arm.sh runs it natively and under qemu (NEON) and
// requires one hash per function across every target: the Arm float core returns the x86 float core's bits on the
// sample (docs/ACCURACY.md, "Arm"). NaN results are hashed as one canonical NaN (the library promises a NaN, not
// its payload, which x86 and Arm propagate differently).
//   float_core_hash [log2 of the sample size, default 22]
// The sweep of all 2^32 inputs (scripts/arm_sweep.sh, not in CI) runs every float32 bit pattern as x, in 256
// chunks of 2^24 consecutive patterns, and prints one hash per target, function and chunk ("NEON fwd-none 17
// <hash>"), a line as each chunk ends. grad_out is 1 (the backward is then f', what the x86 exhaustive test
// bounds, so equal bits carry that proof over), or with --grad-out hashed made from x's bits by the sample's hash
// (the backward's name then ends in "*hashed-grad-out"):
//   float_core_hash --sweep [--chunks A-B] [--functions fwd-none,bwd-tanh,...] [--targets NEON,SVE,...]
//                   [--grad-out one|hashed]
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gelu/gelu.h"
#include "hwy/targets.h"
#include "src/common/functions.h"
#include "src/cpu/float_core_targets.h"
#include "tests/fnv1a.h"

namespace {

// x: the 2^k inputs spread over all 2^32 bit patterns (both signs, every binade, NaNs), each stratum of 2^(32-k)
// patterns hit at a pseudo-random place (Knuth's multiplicative hash of i) so that the low mantissa bits vary;
// the strata that start at +-0 and +-inf take that pattern itself. grad_out: a sign, a mantissa and an exponent in [2^-32, 2^32) from another hash of i.
float GradOut(uint32_t i) {
  const uint32_t h = i * 2246822519u + 374761393u;
  const uint32_t exponent = 127 - 32 + (h >> 26);  // 2^-32 .. 2^31
  return std::bit_cast<float>((h & 0x807fffffu) | (exponent << 23));
}

void MakeInputs(int log2_size, std::vector<float>& x, std::vector<float>& g) {
  const uint32_t n = uint32_t{1} << log2_size, shift = 32 - static_cast<uint32_t>(log2_size);
  x.resize(n), g.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t start = i << shift, magnitude = start & 0x7fffffffu;
    const bool special = magnitude == 0 || magnitude == 0x7f800000u;
    const uint32_t within = special ? 0 : (i * 2654435761u) >> (32 - shift);
    x[i] = std::bit_cast<float>(start | within);
    g[i] = GradOut(i);
  }
}

// FNV-1a, 64 bits, over the output bits, NaNs as 0x7fc00000; h: the basis, or the hash of the preceding outputs.
constexpr uint64_t kFnvBasis = gelu::test::kFnv1aBasis;
uint64_t Hash(uint64_t h, const std::vector<float>& y) {
  for (float v : y) {
    uint32_t bits = std::bit_cast<uint32_t>(v);
    if ((bits & 0x7fffffffu) > 0x7f800000u) bits = 0x7fc00000u;
    h = gelu::test::Fnv1a(h, bits, 4);
  }
  return h;
}

gelu_status Run(gelu::common::Form form, bool backward, const std::vector<float>& g, const std::vector<float>& x,
                std::vector<float>& y) {
  const auto approximate = static_cast<gelu_approximate>(form);
  return backward ? gelu_backward_f32(g.data(), x.data(), y.data(), y.size(), approximate)
                  : gelu_forward_f32(x.data(), y.data(), y.size(), approximate);
}

std::string FunctionName(gelu::common::Form form, bool backward) {
  return std::string(backward ? "bwd-" : "fwd-") + gelu::common::kFormNames[form];
}

// Whether name is one of the comma-separated list (an empty list: all).
bool Listed(const std::string& list, const std::string& name) {
  if (list.empty()) return true;
  return ("," + list + ",").find("," + name + ",") != std::string::npos;
}

constexpr uint32_t kLog2Chunk = 24, kNumChunks = uint32_t{1} << (32 - kLog2Chunk), kBlock = 1u << 16;

int Sweep(uint32_t first, uint32_t last, const std::string& functions, const std::string& targets_listed,
          bool hashed_grad_out) {
  std::vector<float> x(kBlock), g(kBlock), y(kBlock);
  int targets = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (!gelu::cpu::RunsFloatCore(target) || !Listed(targets_listed, hwy::TargetName(target))) continue;
    hwy::SetSupportedTargetsForTest(target);
    ++targets;
    for (gelu::common::Form form : gelu::common::kForms) {
      for (bool backward : {false, true}) {
        const std::string name = FunctionName(form, backward);
        if (!Listed(functions, name)) continue;
        const std::string printed = backward && hashed_grad_out ? name + "*hashed-grad-out" : name;
        for (uint32_t chunk = first; chunk <= last; ++chunk) {
          uint64_t h = kFnvBasis;
          for (uint32_t block = 0; block < (uint32_t{1} << kLog2Chunk) / kBlock; ++block) {
            const uint32_t base = (chunk << kLog2Chunk) + block * kBlock;
            for (uint32_t k = 0; k < kBlock; ++k) {
              x[k] = std::bit_cast<float>(base + k);
              g[k] = hashed_grad_out ? GradOut(base + k) : 1.0f;
            }
            if (const gelu_status s = Run(form, backward, g, x, y); s != GELU_OK) {
              std::fprintf(stderr, "float_core_hash: %s returned status %d\n", gelu_simd_target(), static_cast<int>(s));
              return 1;
            }
            h = Hash(h, y);
          }
          std::printf("%s %s %u %016llx\n", gelu_simd_target(), printed.c_str(), chunk,
                      static_cast<unsigned long long>(h));
          std::fflush(stdout);
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  if (targets == 0) {
    std::fprintf(stderr, "float_core_hash: no float-core target on this CPU%s%s\n",
                 targets_listed.empty() ? "" : " among ", targets_listed.c_str());
    return 1;
  }
  return 0;
}

int SweepUsage(const char* why) {
  std::fprintf(stderr,
               "float_core_hash: %s\nusage: float_core_hash --sweep [--chunks A-B (0 <= A <= B <= %u)] "
               "[--functions fwd-none,bwd-tanh,...] [--targets NEON,SVE,...] [--grad-out one|hashed]\n",
               why, kNumChunks - 1);
  return 2;
}

// float_core_hash --sweep ...: the options of the sweep (a later one overrides an earlier), then Sweep.
int SweepMain(int argc, char** argv) {
  uint32_t first = 0, last = kNumChunks - 1;
  std::string functions, targets;
  bool hashed_grad_out = false;
  for (int i = 2; i < argc; i += 2) {
    if (i + 1 >= argc) return SweepUsage((std::string(argv[i]) + " needs a value").c_str());
    const std::string option = argv[i], value = argv[i + 1];
    if (option == "--chunks") {
      unsigned a = 0, b = 0;
      char end = 0;
      if (std::sscanf(value.c_str(), "%u-%u%c", &a, &b, &end) != 2 || a > b || b >= kNumChunks) {
        return SweepUsage(("--chunks " + value + ": not A-B with 0 <= A <= B <= 255").c_str());
      }
      first = a, last = b;
    } else if (option == "--functions") {
      for (size_t start = 0; start <= value.size();) {
        const size_t comma = std::min(value.find(',', start), value.size());
        const std::string name = value.substr(start, comma - start);
        bool known = false;
        for (gelu::common::Form form : gelu::common::kForms) {
          known = known || name == FunctionName(form, false) || name == FunctionName(form, true);
        }
        if (!known) return SweepUsage(("--functions: unknown function '" + name + "'").c_str());
        start = comma + 1;
      }
      functions = value;
    } else if (option == "--targets") {
      targets = value;
    } else if (option == "--grad-out") {
      if (value != "one" && value != "hashed") {
        return SweepUsage(("--grad-out " + value + ": not one or hashed").c_str());
      }
      hashed_grad_out = value == "hashed";
    } else {
      return SweepUsage(("unknown option " + option).c_str());
    }
  }
  gelu_set_num_threads(1);
  return Sweep(first, last, functions, targets, hashed_grad_out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--sweep") == 0) return SweepMain(argc, argv);
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
        if (const gelu_status s = Run(form, backward, g, x, y); s != GELU_OK) {
          std::fprintf(stderr, "float_core_hash: %s returned status %d\n", gelu_simd_target(), static_cast<int>(s));
          return 1;
        }
        std::printf("%s %s %016llx\n", gelu_simd_target(), FunctionName(form, backward).c_str(),
                    static_cast<unsigned long long>(Hash(kFnvBasis, y)));
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
