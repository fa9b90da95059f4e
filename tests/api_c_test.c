/* SPDX-License-Identifier: Apache-2.0 */
/* The C header compiles as C and its functions are callable from C; gelu_api_test.cc runs this. */
#include <math.h>

#include "gelu/gelu.h"

int gelu_c_api_smoke(void) {
  float x[4] = {-1.0f, 0.0f, 1.0f, 2.0f}, y[4];
  double xd[2] = {-1.0, 1.0}, yd[2];
  if (gelu_forward_f32(x, y, 4, GELU_APPROXIMATE_NONE) != GELU_OK) return 1;
  if (!(fabsf(y[0] + 0.15865526f) < 1e-6f && y[1] == 0.0f && fabsf(y[2] - 0.84134474f) < 1e-6f)) return 2;
  if (gelu_backward_f32(x, x, y, 4, GELU_APPROXIMATE_TANH) != GELU_OK) return 3;
  if (gelu_forward_f64(xd, yd, 2, GELU_APPROXIMATE_SIGMOID) != GELU_OK) return 4;
  if (gelu_forward_f32(x, y, 4, (gelu_approximate)7) != GELU_INVALID_ARGUMENT) return 5;
  if (gelu_status_string(GELU_INVALID_ARGUMENT) == 0 || gelu_simd_target() == 0) return 6;
  return 0;
}
