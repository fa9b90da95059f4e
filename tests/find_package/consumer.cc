// SPDX-License-Identifier: Apache-2.0
#include <cstdio>
#include <vector>

#include "gelu/gelu.hpp"

int main() {
  std::vector<float> x = {-1.0f, 0.0f, 1.0f}, y(3);
  gelu::forward(x, y);
  std::printf("consumer_cpp %s: GELU(-1) = %.8f\n", gelu::simd_target(), y[0]);
  return (y[0] < -0.1586f && y[0] > -0.1587f && y[1] == 0.0f) ? 0 : 1;
}
