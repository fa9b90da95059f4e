// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/element_bits.h"

#include <cstdio>

namespace gelu::cuda_test {

std::string Hex(uint32_t v, Type t) {
  char buf[16];
  std::snprintf(buf, sizeof buf, t == common::kF32 ? "0x%08x" : "0x%04x", v);
  return buf;
}

}  // namespace gelu::cuda_test
