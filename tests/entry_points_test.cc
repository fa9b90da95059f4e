// SPDX-License-Identifier: Apache-2.0
// The promises every C entry point makes, one table-driven test each, over every entry point x form (or named
// variant) x type, the forms and types taken from src/common/functions.h:
//   - the same bits whatever the thread count: 1, 2, 3 and 7 threads on arrays above the parallel threshold
//     (2^16 elements) with odd tails;
//   - a refused call (unknown approximate or variant, null input, partly overlapping output) returns its error
//     status and leaves every output untouched.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gelu/gelu.h"
#include "gtest/gtest.h"
#include "src/common/functions.h"

namespace {

namespace common = gelu::common;

constexpr size_t kRows = 517, kCols = 257;
constexpr size_t kN = kRows * kCols;  // 132,869 > 2^16 elements, not a multiple of any vector length
constexpr unsigned char kSentinel = 0x5a;

enum class Op { kElementwise, kBias, kGeglu, kGegluRows, kVariant };
const char* OpName(Op op) {
  switch (op) {
    case Op::kElementwise: return "elementwise";
    case Op::kBias: return "bias";
    case Op::kGeglu: return "geglu";
    case Op::kGegluRows: return "geglu_rows";
    case Op::kVariant: return "variant";
  }
  return "?";
}
const char* TypeName(common::Type t) {
  return t == common::kF32 ? "f32" : t == common::kF64 ? "f64" : t == common::kBf16 ? "bf16" : "f16";
}
size_t ElementSize(common::Type t) { return t == common::kF32 ? 4 : t == common::kF64 ? 8 : 2; }

// One call of one C entry point: op, type, direction, and the form (gelu_approximate) or variant (gelu_variant).
struct Case {
  Op op;
  common::Type type;
  bool backward;
  int which;
  std::string Name() const {
    const std::string w = op == Op::kVariant ? gelu_variant_name(static_cast<gelu_variant>(which))
                                             : common::kFormNames[which];
    return std::string(OpName(op)) + (backward ? " backward " : " forward ") + TypeName(type) + " " + w;
  }
};

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const common::Function& fn : common::kFunctions) {
    if (!common::IsApproximateForm(fn.form)) continue;  // the variant formulas are reached through Op::kVariant
    for (common::Type t : {common::kF32, common::kF64, common::kBf16, common::kF16}) {
      if (!fn.Has(t)) continue;
      for (Op op : {Op::kElementwise, Op::kBias, Op::kGeglu, Op::kGegluRows}) {
        if (op != Op::kElementwise && t == common::kF64) continue;  // no float64 fused operations
        cases.push_back({op, t, fn.backward(), fn.form});
      }
    }
  }
  for (int v = 0; v < GELU_VARIANT_COUNT; ++v) {
    for (common::Type t : {common::kF32, common::kBf16, common::kF16}) {
      for (bool backward : {false, true}) cases.push_back({Op::kVariant, t, backward, v});
    }
  }
  return cases;
}

// Byte arrays of 2 kN elements (enough for every operand: geglu_rows inputs are kRows x 2 kCols).
struct Arrays {
  std::vector<unsigned char> in[3];  // x (or a), grad_out (or b), bias (or b)
  std::vector<unsigned char> out[2];
};

// Inputs: N(0, 3) values (float32 rounded to the type; half types by truncating the float32 bits to bf16, or
// converting to fp16 with the compiler's _Float16 where it has one, else random finite fp16 bit patterns).
Arrays MakeArrays(common::Type t) {
  Arrays a;
  std::mt19937 rng(11 + static_cast<unsigned>(t));
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const size_t es = ElementSize(t), n = 2 * kN;
  for (auto& v : a.in) {
    v.resize(n * es);
    for (size_t i = 0; i < n; ++i) {
      const float f = normal(rng);
      if (t == common::kF32) {
        std::memcpy(&v[i * 4], &f, 4);
      } else if (t == common::kF64) {
        const double d = f;
        std::memcpy(&v[i * 8], &d, 8);
      } else if (t == common::kBf16) {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        const uint16_t h = static_cast<uint16_t>(bits >> 16);
        std::memcpy(&v[i * 2], &h, 2);
      } else {
        // fp16: sign, exponent 1..29 (|x| < 2^15, finite), random mantissa.
        const uint16_t h = static_cast<uint16_t>((rng() & 0x8000u) | ((1 + rng() % 29) << 10) | (rng() & 0x3ffu));
        std::memcpy(&v[i * 2], &h, 2);
      }
    }
  }
  for (auto& v : a.out) v.assign(n * es, kSentinel);
  return a;
}

// Calls c's entry point with `which` in place of its form or variant (to try invalid ones) on a's arrays. null_x
// passes a null first input; out0_override replaces the first output (to try overlaps with an input).
gelu_status Call(const Case& c, Arrays& a, int which, bool null_x = false, unsigned char* out0_override = nullptr) {
  void* x = null_x ? nullptr : a.in[0].data();
  void* g = a.in[1].data();
  void* bias = a.in[2].data();
  void* o0 = out0_override != nullptr ? out0_override : a.out[0].data();
  void* o1 = a.out[1].data();
  const auto ap = static_cast<gelu_approximate>(which);
  const auto vr = static_cast<gelu_variant>(which);
  using U = uint16_t;
#define GELU_TYPED(T, SUFFIX)                                                                                       \
  {                                                                                                                 \
    auto X = static_cast<const T*>(x);                                                                              \
    auto G = static_cast<const T*>(g);                                                                              \
    auto B = static_cast<const T*>(bias);                                                                           \
    auto O0 = static_cast<T*>(o0);                                                                                  \
    auto O1 = static_cast<T*>(o1);                                                                                  \
    (void)B;                                                                                                        \
    (void)O1;                                                                                                       \
    switch (c.op) {                                                                                                 \
      case Op::kElementwise:                                                                                        \
        return c.backward ? gelu_backward_##SUFFIX(G, X, O0, kN, ap) : gelu_forward_##SUFFIX(X, O0, kN, ap);        \
      GELU_FUSED_CASES(SUFFIX)                                                                                      \
    }                                                                                                               \
    break;                                                                                                          \
  }
#define GELU_FUSED_CASES(SUFFIX)                                                                                    \
  case Op::kBias:                                                                                                   \
    return c.backward ? gelu_bias_backward_##SUFFIX(G, X, B, O0, O1, kRows, kCols, ap)                              \
                      : gelu_bias_forward_##SUFFIX(X, B, O0, kRows, kCols, ap);                                     \
  case Op::kGeglu:                                                                                                  \
    return c.backward ? gelu_geglu_backward_##SUFFIX(G, X, B, O0, O1, kN, ap)                                       \
                      : gelu_geglu_forward_##SUFFIX(X, B, O0, kN, ap);                                              \
  case Op::kGegluRows:                                                                                              \
    return c.backward ? gelu_geglu_rows_backward_##SUFFIX(G, X, O0, kRows, kCols, ap)                               \
                      : gelu_geglu_rows_forward_##SUFFIX(X, O0, kRows, kCols, ap);                                  \
  case Op::kVariant:                                                                                                \
    return c.backward ? gelu_variant_backward_##SUFFIX(vr, G, X, O0, kN) : gelu_variant_forward_##SUFFIX(vr, X, O0, kN);
  switch (c.type) {
    case common::kF32: GELU_TYPED(float, f32)
    case common::kBf16: GELU_TYPED(U, bf16)
    case common::kF16: GELU_TYPED(U, f16)
    case common::kF64: {
      auto X = static_cast<const double*>(x);
      auto G = static_cast<const double*>(g);
      auto O0 = static_cast<double*>(o0);
      if (c.op != Op::kElementwise) break;
      return c.backward ? gelu_backward_f64(G, X, O0, kN, ap) : gelu_forward_f64(X, O0, kN, ap);
    }
  }
#undef GELU_FUSED_CASES
#undef GELU_TYPED
  ADD_FAILURE() << "no entry point for " << c.Name();
  return GELU_INVALID_ARGUMENT;
}

bool Untouched(const std::vector<unsigned char>& v) {
  for (unsigned char b : v) {
    if (b != kSentinel) return false;
  }
  return true;
}

TEST(EntryPoints, TableCoversEveryFormTypeAndVariant) {
  const std::vector<Case> cases = AllCases();
  // 6 functions x (f32, bf16, f16: 4 ops; f64: 1) + 8 variants x 3 types x 2 directions.
  EXPECT_EQ(cases.size(), 6u * (3 * 4 + 1) + 8u * 3 * 2);
}

TEST(EntryPoints, SameBitsForThreadCounts1_2_3_7) {
  const int saved = gelu_get_num_threads();
  for (common::Type t : {common::kF32, common::kF64, common::kBf16, common::kF16}) {
    Arrays a = MakeArrays(t);
    for (const Case& c : AllCases()) {
      if (c.type != t) continue;
      std::vector<unsigned char> first[2];
      for (int threads : {1, 2, 3, 7}) {
        gelu_set_num_threads(threads);
        for (auto& o : a.out) std::fill(o.begin(), o.end(), kSentinel);
        ASSERT_EQ(Call(c, a, c.which), GELU_OK) << c.Name();
        if (threads == 1) {
          first[0] = a.out[0];
          first[1] = a.out[1];
          EXPECT_FALSE(Untouched(a.out[0])) << c.Name() << ": wrote nothing";
          continue;
        }
        EXPECT_TRUE(a.out[0] == first[0] && a.out[1] == first[1]) << c.Name() << ": " << threads << " threads";
      }
    }
  }
  gelu_set_num_threads(saved);
}

TEST(EntryPoints, RefusedCallsLeaveOutputsUntouched) {
  for (common::Type t : {common::kF32, common::kF64, common::kBf16, common::kF16}) {
    Arrays a = MakeArrays(t);
    for (const Case& c : AllCases()) {
      if (c.type != t) continue;
      const gelu_status unknown = c.op == Op::kVariant ? GELU_UNKNOWN_VARIANT : GELU_INVALID_ARGUMENT;
      const int bad = c.op == Op::kVariant ? GELU_VARIANT_COUNT : common::kNumForms;
      for (int which : {bad, -1}) {
        EXPECT_EQ(Call(c, a, which), unknown) << c.Name() << " with " << which;
        EXPECT_TRUE(Untouched(a.out[0]) && Untouched(a.out[1])) << c.Name() << " with " << which;
      }
      EXPECT_EQ(Call(c, a, c.which, /*null_x=*/true), GELU_INVALID_ARGUMENT) << c.Name() << " null x";
      EXPECT_TRUE(Untouched(a.out[0]) && Untouched(a.out[1])) << c.Name() << " null x";
      // The first output one element into the first input: a partial overlap, refused before anything is written.
      std::vector<unsigned char> saved_x = a.in[0];
      EXPECT_EQ(Call(c, a, c.which, false, a.in[0].data() + ElementSize(t)), GELU_INVALID_ARGUMENT)
          << c.Name() << " overlap";
      EXPECT_TRUE(a.in[0] == saved_x && Untouched(a.out[1])) << c.Name() << " overlap";
    }
  }
}

}  // namespace
