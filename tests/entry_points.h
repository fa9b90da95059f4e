// SPDX-License-Identifier: Apache-2.0
// Every C entry point x form (or named variant) x type, the forms and types taken from src/common/functions.h, as
// a list of cases and one call for each: shared by tests/entry_points_test.cc (thread counts, refusals) and
// tests/output_hash.cc (the output bits of every case, hashed per target, for changes that must not change them).
#ifndef GELU_TESTS_ENTRY_POINTS_H_
#define GELU_TESTS_ENTRY_POINTS_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gelu/gelu.h"
#include "gtest/gtest.h"
#include "src/common/functions.h"

namespace gelu::entry_points {

namespace common = gelu::common;

constexpr size_t kRows = 517, kCols = 257;
constexpr size_t kN = kRows * kCols;  // 132,869 > 2^16 elements, not a multiple of any vector length
constexpr unsigned char kSentinel = 0x5a;

enum class Op { kElementwise, kBias, kGeglu, kGegluRows, kVariant };
inline const char* OpName(Op op) {
  switch (op) {
    case Op::kElementwise: return "elementwise";
    case Op::kBias: return "bias";
    case Op::kGeglu: return "geglu";
    case Op::kGegluRows: return "geglu_rows";
    case Op::kVariant: return "variant";
  }
  return "?";
}

// One call of one C entry point: op, type, direction, and the form (gelu_approximate) or variant (gelu_variant).
struct Case {
  Op op;
  common::Type type;
  bool backward;
  int which;
  std::string Name() const {
    const std::string w = op == Op::kVariant ? gelu_variant_name(static_cast<gelu_variant>(which))
                                             : common::kFormNames[which];
    return std::string(OpName(op)) + (backward ? " backward " : " forward ") + common::TypeSuffix(type) + " " + w;
  }
};

inline std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const common::Function& fn : common::kFunctions) {
    if (!fn.is_form()) continue;  // the variant formulas are reached through Op::kVariant
    for (common::Type t : {common::kF32, common::kF64, common::kBf16, common::kF16}) {
      if (!fn.Has(t)) continue;
      for (Op op : {Op::kElementwise, Op::kBias, Op::kGeglu, Op::kGegluRows}) {
        if (op != Op::kElementwise && t == common::kF64) continue;  // no float64 fused operations
        cases.push_back({op, t, fn.backward(), fn.form()});
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

// Inputs. kNormal: N(0, 3) values (float32 rounded to the type; half types by truncating the float32 bits to bf16,
// or, for fp16, random finite bit patterns with |x| < 2^15). kWide adds, for every second element, a random bit
// pattern of the type (every binade, subnormals, infinities and NaNs; float64: the float32 patterns widened plus
// random float64 patterns), so that the tails and special values are reached too.
enum class Inputs { kNormal, kWide };
inline Arrays MakeArrays(common::Type t, Inputs inputs = Inputs::kNormal) {
  Arrays a;
  std::mt19937 rng(11 + common::TypeBit(t));  // the seeds of 1, 2, 4, 8 as before
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const size_t es = common::TypeSize(t), n = 2 * kN;
  for (auto& v : a.in) {
    v.resize(n * es);
    for (size_t i = 0; i < n; ++i) {
      if (inputs == Inputs::kWide && i % 2 == 1) {
        const uint64_t bits = (uint64_t{rng()} << 32) | rng();
        if (t == common::kF64 && i % 4 == 1) {
          const double d = static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)));
          std::memcpy(&v[i * es], &d, es);
        } else {
          std::memcpy(&v[i * es], &bits, es);  // little-endian: the low es bytes
        }
        continue;
      }
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
inline gelu_status Call(const Case& c, Arrays& a, int which, bool null_x = false, unsigned char* out0_override = nullptr) {
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

inline bool Untouched(const std::vector<unsigned char>& v) {
  for (unsigned char b : v) {
    if (b != kSentinel) return false;
  }
  return true;
}

}  // namespace gelu::entry_points

#endif  // GELU_TESTS_ENTRY_POINTS_H_
