/* SPDX-License-Identifier: Apache-2.0 */
/* gelu: the GELU activation and its derivative, accurate over all inputs, SIMD with run-time dispatch.
 *
 * The C ABI is stable: plain pointers, sizes, enums and status codes; no Highway, CUDA or vector types.
 *
 * Forms (PyTorch's `approximate` names, plus ours):
 *   GELU_APPROXIMATE_NONE     f(x) = x * Phi(x) = (x/2) * erfc(-x/sqrt(2))       (exact GELU)
 *   GELU_APPROXIMATE_TANH     f(x) = (x/2) * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
 *   GELU_APPROXIMATE_SIGMOID  f(x) = x * sigmoid(1.702 x)
 * Backward: grad_in[i] = grad_out[i] * f'(x[i]).
 *
 * Max error (float32, every input, every SIMD target; docs/ACCURACY.md, tests/gelu_exhaustive_test.cc):
 *   forward NONE <= 1 ULP of the true value; TANH, SIGMOID <= 2 ULP of their own formula;
 *   backward (grad_out = 1) <= 2 ULP, except near f'(x) = 0 (x ~ -0.7518) where the absolute error is <= 2^-24.
 * Special values: NaN -> NaN; +inf -> +inf; -inf -> -0 (forward) and 0 (derivative); +-0 -> +-0;
 *   subnormal results are produced, not flushed.
 *
 * Arguments: a null pointer with n > 0, an unknown `approximate`, or an output that partly overlaps an input
 *   (anything but exact aliasing, which computes in place) returns GELU_INVALID_ARGUMENT and writes nothing.
 *
 * Example:
 *   float x[3] = {-1.f, 0.f, 1.f}, y[3];
 *   if (gelu_forward_f32(x, y, 3, GELU_APPROXIMATE_NONE) != GELU_OK) abort();
 */
#ifndef GELU_GELU_H_
#define GELU_GELU_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(GELU_SHARED)
#  ifdef GELU_BUILDING
#    define GELU_API __declspec(dllexport)
#  else
#    define GELU_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define GELU_API __attribute__((visibility("default")))
#else
#  define GELU_API
#endif

typedef enum gelu_approximate {
  GELU_APPROXIMATE_NONE = 0,
  GELU_APPROXIMATE_TANH = 1,
  GELU_APPROXIMATE_SIGMOID = 2
} gelu_approximate;

typedef enum gelu_status {
  GELU_OK = 0,
  GELU_INVALID_ARGUMENT = 1
} gelu_status;

GELU_API gelu_status gelu_forward_f32(const float* x, float* y, size_t n, gelu_approximate approximate);
GELU_API gelu_status gelu_backward_f32(const float* grad_out, const float* x, float* grad_in, size_t n,
                                       gelu_approximate approximate);
GELU_API gelu_status gelu_forward_f64(const double* x, double* y, size_t n, gelu_approximate approximate);
GELU_API gelu_status gelu_backward_f64(const double* grad_out, const double* x, double* grad_in, size_t n,
                                       gelu_approximate approximate);

/* A static, human-readable description of `status` ("invalid argument"); never NULL. */
GELU_API const char* gelu_status_string(gelu_status status);

/* Threads used for large arrays. n = 0 (the default) uses all hardware threads; the environment variable
 * GELU_NUM_THREADS, read once at load, overrides the default. Negative n is treated as 0. Results are
 * bit-identical whatever the thread count. */
GELU_API void gelu_set_num_threads(int n);
GELU_API int gelu_get_num_threads(void);

/* The instruction set chosen at run time for this CPU, e.g. "AVX2"; a static string. */
GELU_API const char* gelu_simd_target(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* GELU_GELU_H_ */
