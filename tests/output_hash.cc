// SPDX-License-Identifier: Apache-2.0
// Prints a hash of the output bits of every C entry point x form (or variant) x type (tests/entry_points.h), on
// inputs from every binade (Inputs::kWide), once per compiled target this CPU supports, one line per target and
// case, then one line over everything. For a change that must not change any result (a restructuring): run it
// before and after, and compare (`diff`); the last line goes in the commit message. Not a test: it asserts nothing.
// NaN results are hashed as one canonical NaN: which input NaN's payload (and sign) a sum or product of two NaNs
// carries depends on the operand order the compiler picks for a commutative operation, which a restructuring may
// change; the library promises a NaN there, not its payload (include/gelu/gelu.h).
//   build/tests/output_hash > before.txt
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "hwy/targets.h"
#include "tests/entry_points.h"

namespace {

namespace common = gelu::common;
using namespace gelu::entry_points;

// Every NaN of type t in `bytes` replaced by the type's canonical quiet NaN (see the top of the file).
void CanonicalizeNans(common::Type t, std::vector<unsigned char>& bytes) {
  const size_t es = common::TypeSize(t);
  for (size_t i = 0; i + es <= bytes.size(); i += es) {
    uint64_t v = 0;
    std::memcpy(&v, &bytes[i], es);
    bool nan = false;
    uint64_t canonical = 0;
    if (t == common::kF32) {
      nan = (v & 0x7fffffffu) > 0x7f800000u, canonical = 0x7fc00000u;
    } else if (t == common::kF64) {
      nan = (v & 0x7fffffffffffffffull) > 0x7ff0000000000000ull, canonical = 0x7ff8000000000000ull;
    } else if (t == common::kBf16) {
      nan = (v & 0x7fffu) > 0x7f80u, canonical = 0x7fc0u;
    } else {
      nan = (v & 0x7fffu) > 0x7c00u, canonical = 0x7e00u;
    }
    if (nan) std::memcpy(&bytes[i], &canonical, es);
  }
}

// FNV-1a, 64 bits.
uint64_t Hash(uint64_t h, const std::vector<unsigned char>& bytes) {
  for (unsigned char b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}
constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;

}  // namespace

int main() {
  gelu_set_num_threads(1);
  uint64_t all = kFnvBasis;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (common::Type t : {common::kF32, common::kF64, common::kBf16, common::kF16}) {
      Arrays a = MakeArrays(t, Inputs::kWide);
      for (const Case& c : AllCases()) {
        if (c.type != t) continue;
        for (auto& o : a.out) o.assign(o.size(), kSentinel);
        const gelu_status s = Call(c, a, c.which);
        for (auto& o : a.out) CanonicalizeNans(t, o);
        const uint64_t h = Hash(Hash(kFnvBasis, a.out[0]), a.out[1]);
        all = (all ^ h) * 0x100000001b3ull;
        std::printf("%-6s %-40s %d %016llx\n", gelu_simd_target(), c.Name().c_str(), static_cast<int>(s),
                    static_cast<unsigned long long>(h));
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  std::printf("all %016llx\n", static_cast<unsigned long long>(all));
  return 0;
}
