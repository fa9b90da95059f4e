/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>

#include "gelu/gelu.h"

int main(void) {
  const double x[2] = {-1.0, 2.0};
  double g[2];
  const double ones[2] = {1.0, 1.0};
  if (gelu_backward_f64(ones, x, g, 2, GELU_APPROXIMATE_NONE) != GELU_OK) return 1;
  printf("consumer_c: GELU'(-1) = %.17g\n", g[0]);
  return (g[0] > -0.08332 && g[0] < -0.08331) ? 0 : 2; /* Phi(-1) - phi(-1) = -0.0833155 */
}
