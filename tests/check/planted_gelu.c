/* SPDX-License-Identifier: Apache-2.0
 * Implementations for `gelu check` to judge (tests/check/check_test.cc): this library's functions behind the
 * checker's signatures, void f(const T* x, T* y, size_t n) and void f(const T* dy, const T* x, T* dx, size_t n),
 * one symbol per form, direction and type (gelu_<direction>_<type>_<form>). Built once clean (the library must pass
 * its own claims) and once per planted defect, PLANT_<NAME>, each a single wrong behaviour the checker must name
 * at its input:
 *   ONE_WRONG      forward float32: one input in 2^32 (x = pi) answered 16 ULP high
 *   POSITIVE_ZERO  forward float32: +0 for -0 in the tail (every result -0 below x = -1 made +0)
 *   NAN_AT_NEG_INF forward float32: NaN for -inf
 *   FLUSHED_TAIL   forward float32: -0 for every x < -5.5 (the textbook formula's collapse)
 *   THREE_ULP      forward float32: 3 ULP high on [1.5, 1.5 + 2^-10)
 *   HALF_OFF       forward bfloat16: one result (x = 1.5) one unit high
 *   F16_OFF        forward float16: one result (x = 1.5) one unit high
 *   TANH_FIVE_ULP  forward float32, tanh form: 5 ULP high on [1.5, 1.5 + 2^-10)
 *   SIGMOID_FIVE_ULP forward float32, sigmoid form: 5 ULP high on [-2.5, -2.5 + 2^-10)
 *   ROOT_OFF       backward float32, exact form: f' 2^-21 high on |x + 0.7518| < 2^-8, around the root of f'
 *                  (x = -0.751791...), inside the checker's near-root absolute window (|f'| < 2^-8): 8 of its
 *                  units of 2^-24 there, where a relative measure would count millions of ULP
 *   F64_TWO_ULP    forward float64: one result (x = 2.5, in the float64 sample only as a round value) 2 ULP high
 *   CRASH          forward float32: a crash (SIGSEGV) at x = 2.5
 *   HANG           forward float32: never returns at x = 2 */
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "gelu/gelu.h"

static uint32_t Bits(float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  return b;
}
static float Float(uint32_t b) {
  float v;
  memcpy(&v, &b, 4);
  return v;
}

static void Plant(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    (void)x;
    (void)y;
#if defined(PLANT_ONE_WRONG)
    if (Bits(x[i]) == 0x40490fdbu) y[i] = Float(Bits(y[i]) + 16);
#elif defined(PLANT_POSITIVE_ZERO)
    if (x[i] < -1 && y[i] == 0 && signbit(y[i])) y[i] = 0.0f;
#elif defined(PLANT_NAN_AT_NEG_INF)
    if (isinf(x[i]) && x[i] < 0) y[i] = NAN;
#elif defined(PLANT_FLUSHED_TAIL)
    if (x[i] < -5.5f) y[i] = -0.0f;
#elif defined(PLANT_THREE_ULP)
    if (x[i] >= 1.5f && x[i] < 1.5f + 0x1p-10f) y[i] = Float(Bits(y[i]) + 3);
#elif defined(PLANT_CRASH)
    if (x[i] == 2.5f) raise(SIGSEGV);
#elif defined(PLANT_HANG)
    while (x[i] == 2.0f) pause();
#endif
  }
}

/* The tanh and sigmoid forms' float32 forward plants: 5 ULP high on an interval of 2^-10. */
static void PlantForm(gelu_approximate form, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    (void)form;
    (void)x;
    (void)y;
#if defined(PLANT_TANH_FIVE_ULP)
    if (form == GELU_APPROXIMATE_TANH && x[i] >= 1.5f && x[i] < 1.5f + 0x1p-10f) y[i] = Float(Bits(y[i]) + 5);
#elif defined(PLANT_SIGMOID_FIVE_ULP)
    if (form == GELU_APPROXIMATE_SIGMOID && x[i] >= -2.5f && x[i] < -2.5f + 0x1p-10f) y[i] = Float(Bits(y[i]) + 5);
#endif
  }
}

/* The float32 backward's plant: dx += dy 2^-21 near the root of the exact form's f'. */
static void PlantBackward(gelu_approximate form, const float* dy, const float* x, float* dx, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    (void)form;
    (void)dy;
    (void)x;
    (void)dx;
#if defined(PLANT_ROOT_OFF)
    if (form == GELU_APPROXIMATE_NONE && fabsf(x[i] + 0.7518f) < 0x1p-8f) dx[i] += dy[i] * 0x1p-21f;
#endif
  }
}

static void PlantF64(const double* x, double* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    (void)x;
    (void)y;
#if defined(PLANT_F64_TWO_ULP)
    if (x[i] == 2.5) y[i] = nextafter(nextafter(y[i], INFINITY), INFINITY);
#endif
  }
}

#define GELU_PLANTED_FORM(form, FORM)                                                                     \
  void gelu_forward_f32_##form(const float* x, float* y, size_t n) {                                      \
    gelu_forward_f32(x, y, n, FORM);                                                                      \
    if (FORM == GELU_APPROXIMATE_NONE) Plant(x, y, n);                                                    \
    PlantForm(FORM, x, y, n);                                                                             \
  }                                                                                                       \
  void gelu_backward_f32_##form(const float* dy, const float* x, float* dx, size_t n) {                  \
    gelu_backward_f32(dy, x, dx, n, FORM);                                                                \
    PlantBackward(FORM, dy, x, dx, n);                                                                    \
  }                                                                                                       \
  void gelu_forward_bf16_##form(const uint16_t* x, uint16_t* y, size_t n) {                               \
    gelu_forward_bf16(x, y, n, FORM);                                                                     \
    for (size_t i = 0; i < n && PLANT_HALF; ++i) {                                                        \
      if (x[i] == 0x3fc0 && FORM == GELU_APPROXIMATE_NONE) y[i] += 1;                                     \
    }                                                                                                     \
  }                                                                                                       \
  void gelu_backward_bf16_##form(const uint16_t* dy, const uint16_t* x, uint16_t* dx, size_t n) {        \
    gelu_backward_bf16(dy, x, dx, n, FORM);                                                               \
  }                                                                                                       \
  void gelu_forward_f16_##form(const uint16_t* x, uint16_t* y, size_t n) {                                \
    gelu_forward_f16(x, y, n, FORM);                                                                      \
    for (size_t i = 0; i < n && PLANT_F16; ++i) {                                                         \
      if (x[i] == 0x3e00 && FORM == GELU_APPROXIMATE_NONE) y[i] += 1;                                     \
    }                                                                                                     \
  }                                                                                                       \
  void gelu_forward_f64_##form(const double* x, double* y, size_t n) {                                    \
    gelu_forward_f64(x, y, n, FORM);                                                                      \
    if (FORM == GELU_APPROXIMATE_NONE) PlantF64(x, y, n);                                                 \
  }                                                                                                       \
  void gelu_backward_f64_##form(const double* dy, const double* x, double* dx, size_t n) {               \
    gelu_backward_f64(dy, x, dx, n, FORM);                                                                \
  }                                                                                                       \
  void gelu_backward_f16_##form(const uint16_t* dy, const uint16_t* x, uint16_t* dx, size_t n) {         \
    gelu_backward_f16(dy, x, dx, n, FORM);                                                                \
  }

#if defined(PLANT_HALF_OFF)
#define PLANT_HALF 1
#else
#define PLANT_HALF 0
#endif
#if defined(PLANT_F16_OFF)
#define PLANT_F16 1
#else
#define PLANT_F16 0
#endif

GELU_PLANTED_FORM(none, GELU_APPROXIMATE_NONE)
GELU_PLANTED_FORM(tanh, GELU_APPROXIMATE_TANH)
GELU_PLANTED_FORM(sigmoid, GELU_APPROXIMATE_SIGMOID)
