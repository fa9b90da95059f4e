// SPDX-License-Identifier: Apache-2.0
// The checked types' values, beyond what tools/checker.h declares, for the checker's files: infinity, one result
// the same as another (NaN as NaN, the sign of zero counted), a value's 16-bit pattern, and a value printed.
#ifndef GELU_TOOLS_CHECKER_TYPES_H_
#define GELU_TOOLS_CHECKER_TYPES_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "tools/checker.h"

namespace gelu::check {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline bool SameResult(double y, double e) {
  if (std::isnan(y) || std::isnan(e)) return std::isnan(y) && std::isnan(e);
  return y == e && std::signbit(y) == std::signbit(e);
}

uint16_t ToBits(Type t, float v);  // the 16-bit pattern of a bfloat16 or float16 value

std::string Hex(double v);
// Decimal: 9 digits tell float32 values apart, 17 float64 values.
std::string Dec(double v, Type t = common::kF32);

}  // namespace gelu::check

#endif  // GELU_TOOLS_CHECKER_TYPES_H_
