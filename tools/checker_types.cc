// SPDX-License-Identifier: Apache-2.0
// The checked types (tools/checker.h, tools/checker_types.h): names, facts, 16-bit patterns, rounding, printing.
#include "tools/checker_types.h"

#include <stdexcept>

#include <fmt/format.h>

#include "src/common/half.h"
#include "tools/checker_oracle.h"

namespace gelu::check {

bool HasFloat64() {
#if defined(GELU_CHECK_HAVE_MPFR)
  return true;
#else
  return false;
#endif
}
Type ParseType(const std::string& s) {
  for (Type t : {common::kF32, common::kBf16, common::kF16, common::kF64}) {
    if (s != gelu_dtype_name(t)) continue;
    if (t == common::kF64 && !HasFloat64()) throw std::invalid_argument(kNoFloat64);
    return t;
  }
  throw std::invalid_argument("--dtype must be float32, bfloat16, float16 or float64, not '" + s + "'");
}
const TypeInfo& Info(Type t) {
  static const TypeInfo kF32{24, -125, 0x1p-23, 1.3e-6, 1e-5};
  static const TypeInfo kBf16{8, -125, 0x1p-7, 1.6e-2, 1e-5};
  static const TypeInfo kF16{11, -13, 0x1p-10, 1e-3, 1e-5};
  static const TypeInfo kF64{53, -1021, 0x1p-52, 1e-7, 1e-7};
  return t == common::kF32 ? kF32 : t == common::kBf16 ? kBf16 : t == common::kF16 ? kF16 : kF64;
}
float FromBits(Type t, uint16_t bits) { return t == common::kBf16 ? common::Bf16ToFloat(bits) : common::F16ToFloat(bits); }
float RoundTo(Type t, double v) {
  if (t == common::kF32) return static_cast<float>(v);
  return FromBits(t, t == common::kBf16 ? common::DoubleToBf16(v) : common::DoubleToF16(v));
}
bool IsRepresentable(Type t, float v) { return std::isnan(v) || SameResult(RoundTo(t, v), v); }
uint16_t ToBits(Type t, float v) { return t == common::kBf16 ? common::DoubleToBf16(v) : common::DoubleToF16(v); }

std::string Describe(const Spec& s) {
  return fmt::format("{} {} {}", s.backward ? "backward" : "forward", to_string(s.form), gelu_dtype_name(s.type));
}

std::string Hex(double v) { return fmt::format("{:a}", v); }
std::string Dec(double v, Type t) { return t == common::kF64 ? fmt::format("{:.17g}", v) : fmt::format("{:.9g}", v); }

}  // namespace gelu::check
