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
 * Max error (float32; docs/ACCURACY.md, tests/gelu_exhaustive_test.cc: every input on every vector SIMD target,
 * a sample on the one-lane SCALAR/EMU128 fallbacks):
 *   forward NONE <= 1 ULP of the true value; TANH, SIGMOID <= 2 ULP of their own formula;
 *   backward <= 2 ULP of grad_out * f'(x), except near f'(x) = 0 (-2 < x < 0 where |f'(x)| < 2^-8; the root is at
 *   x ~ -0.7518) where the absolute error is <= |grad_out| * 2^-24 + 2^-149 (every input with grad_out = 1;
 *   any finite grad_out on a sample: docs/ACCURACY.md).
 *   float64: <= 2 ULP, near the root <= |grad_out| * 2^-53 + 2^-1074, for any finite grad_out whose product stays
 *   below DBL_MAX (MPFR, a sample: random grad_out in binades 2^-1074 .. 2^1019, up to 2^1023 in the far tail).
 * Special values: NaN -> NaN; +inf -> +inf; -inf -> -0 (forward) and 0 (derivative); +-0 -> +-0;
 *   subnormal results are produced, not flushed.
 *
 * Arguments: a null pointer with n > 0, an unknown `approximate`, an n whose byte count overflows size_t, or an
 *   output that partly overlaps an input (anything but exact aliasing, which computes in place) returns
 *   GELU_INVALID_ARGUMENT and writes nothing. The CUDA functions (gelu_cuda.h) refuse the same arguments.
 *
 * Example:
 *   float x[3] = {-1.f, 0.f, 1.f}, y[3];
 *   if (gelu_forward_f32(x, y, 3, GELU_APPROXIMATE_NONE) != GELU_OK) abort();
 */
#ifndef GELU_GELU_H_
#define GELU_GELU_H_

#include <stddef.h>
#include <stdint.h> /* uint16_t: bfloat16 and binary16 storage */

/* The library's version (CMake's project(VERSION) reads it from here). */
#define GELU_VERSION_MAJOR 0
#define GELU_VERSION_MINOR 1
#define GELU_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* GELU_SHARED: defined by the build and by users of the shared library (CMake's gelu::gelu, gelu.pc). */
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

/* In C++ the enums get int as their fixed underlying type (the same 32-bit argument in the ABI), so that any int
 * a C caller passes, valid or not, is a value of the type, which the library then accepts or refuses; without it
 * an out-of-range value (e.g. -1) would be undefined behaviour on the C++ side. */
#ifdef __cplusplus
#  define GELU_ENUM_BASE : int
#else
#  define GELU_ENUM_BASE
#endif

typedef enum gelu_approximate GELU_ENUM_BASE {
  GELU_APPROXIMATE_NONE = 0,
  GELU_APPROXIMATE_TANH = 1,
  GELU_APPROXIMATE_SIGMOID = 2
} gelu_approximate;

/* The name of a form as PyTorch's `approximate=` spells it ("none", "tanh"; "sigmoid", this library's third form), a
 * static string, or NULL for a value outside the enum. */
GELU_API const char* gelu_approximate_name(gelu_approximate approximate);

typedef enum gelu_status {
  GELU_OK = 0,
  GELU_INVALID_ARGUMENT = 1,
  GELU_UNKNOWN_VARIANT = 2, /* a variant name (or gelu_variant value) not in the table; see gelu_variant_from_name */
  GELU_CUDA_ERROR = 3       /* a CUDA call failed (gelu_cuda.h); gelu_cuda_last_error_string() has CUDA's text */
} gelu_status;

GELU_API gelu_status gelu_forward_f32(const float* x, float* y, size_t n, gelu_approximate approximate);
GELU_API gelu_status gelu_backward_f32(const float* grad_out, const float* x, float* grad_in, size_t n,
                                       gelu_approximate approximate);
GELU_API gelu_status gelu_forward_f64(const double* x, double* y, size_t n, gelu_approximate approximate);
GELU_API gelu_status gelu_backward_f64(const double* grad_out, const double* x, double* grad_in, size_t n,
                                       gelu_approximate approximate);

/* The form called `name` (exact, case-sensitive: gelu_approximate_name's strings). Unknown name or NULL:
 * GELU_INVALID_ARGUMENT, *out untouched; out == NULL: GELU_INVALID_ARGUMENT. */
GELU_API gelu_status gelu_approximate_from_name(const char* name, gelu_approximate* out);

/* A static, human-readable description of `status` ("invalid argument"); never NULL. */
GELU_API const char* gelu_status_string(gelu_status status);

/* Threads used for large arrays. n = 0 (the default) uses all hardware threads; the environment variable
 * GELU_NUM_THREADS, read once at load, overrides the default. Negative n is treated as 0. Results are
 * bit-identical whatever the thread count. */
GELU_API void gelu_set_num_threads(int n);
GELU_API int gelu_get_num_threads(void);

/* The instruction set chosen at run time for this CPU, e.g. "AVX2"; a static string. */
GELU_API const char* gelu_simd_target(void);

/* ==== Half precision, fused operations, named variants ========================================================
 * Storage: bfloat16 and IEEE binary16 (fp16) arrays are uint16_t bit patterns. Every function computes in double
 * from the exact float32 value of each input and rounds once, to nearest even, to the output type.
 * Arguments, as above: a null pointer with a nonzero size, an unknown `approximate`, a size whose byte count
 * overflows, or an output that partly overlaps an input (exact aliasing is allowed where stated) returns
 * GELU_INVALID_ARGUMENT and writes nothing. */

/* GELU of bfloat16 / fp16 arrays, forward and backward (grad_in = grad_out * f'(x)).
 * Valid types: bf16, fp16.  Max error: 0 -- correctly rounded (round to nearest even) for every one of the 65,536
 *   inputs, every form, forward and f' (backward with grad_out = 1), against the form's formula evaluated exactly
 *   (tests/half/half_exhaustive_test.cc); with other grad_out, the product grad_out * f'(x) (f' in double, relative
 *   error < 2^-30) is rounded once: within 0.5 + 2^-18 ULP, not always correctly rounded (docs/ACCURACY.md). Special values as float32; fp16 subnormals are inputs and results;
 *   NaN -> quiet NaN. y may alias x, grad_in may alias grad_out or x.
 * Example:  uint16_t x[2] = {0x3f80, 0xbf80}, y[2];  (bf16 1.0, -1.0)
 *           gelu_forward_bf16(x, y, 2, GELU_APPROXIMATE_NONE);  (y = {0x3f57, 0xbe22}: 0.83984375, -0.158203125) */
GELU_API gelu_status gelu_forward_bf16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate);
GELU_API gelu_status gelu_backward_bf16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                                        gelu_approximate approximate);
GELU_API gelu_status gelu_forward_f16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate);
GELU_API gelu_status gelu_backward_f16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                                       gelu_approximate approximate);

/* The storage types, for bindings that map a framework's dtype once and call one entry point for any type (NumPy,
 * PyTorch, JAX): the elements of float32 and float64 arrays are float and double, those of bfloat16 and float16
 * arrays uint16_t bit patterns (as gelu_forward_bf16 / _f16 take them). */
typedef enum gelu_dtype GELU_ENUM_BASE {
  GELU_DTYPE_FLOAT32 = 0,
  GELU_DTYPE_FLOAT64 = 1,
  GELU_DTYPE_BFLOAT16 = 2,
  GELU_DTYPE_FLOAT16 = 3
} gelu_dtype;

/* The name of a storage type as NumPy and PyTorch spell it ("float32", "float64", "bfloat16", "float16"), a static
 * string, or NULL for a value outside the enum. */
GELU_API const char* gelu_dtype_name(gelu_dtype dtype);
/* The storage type called `name` (exact: gelu_dtype_name's strings). Unknown name or NULL: GELU_INVALID_ARGUMENT,
 * *out untouched; out == NULL: GELU_INVALID_ARGUMENT. */
GELU_API gelu_status gelu_dtype_from_name(const char* name, gelu_dtype* out);
/* Bytes per element of `dtype` (4, 8, 2, 2), or 0 for a value outside the enum. */
GELU_API size_t gelu_dtype_size(gelu_dtype dtype);

/* gelu_forward_f32 / _f64 / _bf16 / _f16 by `dtype`: x and y point to n elements of that type, with that function's
 * rules, results and accuracy. A dtype outside the enum: GELU_INVALID_ARGUMENT, y untouched. */
GELU_API gelu_status gelu_forward(gelu_dtype dtype, const void* x, void* y, size_t n, gelu_approximate approximate);
/* gelu_backward_f32 / _f64 / _bf16 / _f16 by `dtype`, as gelu_forward. */
GELU_API gelu_status gelu_backward(gelu_dtype dtype, const void* grad_out, const void* x, void* grad_in, size_t n,
                                   gelu_approximate approximate);

/* Bias + GELU over a row-major rows x cols matrix (a GEMM epilogue):
 *   y[r*cols + c] = f(h),  h = fl32(x[r*cols + c] + bias[c])  (the sum rounded to float32 once, as a float32
 *   `x + bias` does), evaluated in double and rounded once: within 0.5 + 2^-6 ULP, at least as accurate as
 *   gelu_forward_f32 applied to that sum (which runs the float core, <= 1 / 2 ULP).
 * Backward: grad_x = grad_out * f'(h), and grad_bias[c] = sum over r of grad_out[r][c] * f'(h[r][c]), the unrounded
 *   products summed in double in a fixed order -- rows in blocks of ceil(rows/64) rows, each block in row order,
 *   block sums in block order -- then rounded once: the same bits whatever the thread count.
 * Aliasing: y may alias x; grad_x may alias grad_out or x; bias and grad_bias may not overlap any output.
 * rows or cols == 0: nothing to do (grad_bias, cols entries, is set to 0 when rows == 0). */
GELU_API gelu_status gelu_bias_forward_f32(const float* x, const float* bias, float* y, size_t rows, size_t cols,
                                           gelu_approximate approximate);
GELU_API gelu_status gelu_bias_backward_f32(const float* grad_out, const float* x, const float* bias, float* grad_x,
                                            float* grad_bias, size_t rows, size_t cols, gelu_approximate approximate);
GELU_API gelu_status gelu_bias_forward_bf16(const uint16_t* x, const uint16_t* bias, uint16_t* y, size_t rows,
                                            size_t cols, gelu_approximate approximate);
GELU_API gelu_status gelu_bias_backward_bf16(const uint16_t* grad_out, const uint16_t* x, const uint16_t* bias,
                                             uint16_t* grad_x, uint16_t* grad_bias, size_t rows, size_t cols,
                                             gelu_approximate approximate);
GELU_API gelu_status gelu_bias_forward_f16(const uint16_t* x, const uint16_t* bias, uint16_t* y, size_t rows,
                                           size_t cols, gelu_approximate approximate);
GELU_API gelu_status gelu_bias_backward_f16(const uint16_t* grad_out, const uint16_t* x, const uint16_t* bias,
                                            uint16_t* grad_x, uint16_t* grad_bias, size_t rows, size_t cols,
                                            gelu_approximate approximate);

/* GEGLU (Shazeer 2020, "GLU Variants Improve Transformer"): y = f(a) * b, elementwise; the product is formed in
 * double and rounded once (so for float32 it can differ from the unfused fl32(fl32(f(a)) * b) by 1 ULP, towards the
 * exact value). Backward: grad_a = grad_out * b * f'(a), grad_b = grad_out * f(a), each rounded once.
 * gelu_geglu_*: separate arrays of n elements; y may alias a or b; grad_a and grad_b may each alias any input but
 *   not each other.
 * gelu_geglu_rows_*: the halves of each row of x (rows x 2*cols, row-major): a = x[r][0:cols] (the gated half,
 *   through f), b = x[r][cols:2*cols], as Megatron-LM and Transformer Engine order them; y is rows x cols and may
 *   not overlap x; grad_x (rows x 2*cols) holds [grad_a | grad_b] per row, may alias x, and may not overlap
 *   grad_out. (Diffusers' GEGLU applies f to the second half: swap the halves or use the separate-array form.) */
GELU_API gelu_status gelu_geglu_forward_f32(const float* a, const float* b, float* y, size_t n,
                                            gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_backward_f32(const float* grad_out, const float* a, const float* b, float* grad_a,
                                             float* grad_b, size_t n, gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_rows_forward_f32(const float* x, float* y, size_t rows, size_t cols,
                                                 gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_rows_backward_f32(const float* grad_out, const float* x, float* grad_x, size_t rows,
                                                  size_t cols, gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_forward_bf16(const uint16_t* a, const uint16_t* b, uint16_t* y, size_t n,
                                             gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_backward_bf16(const uint16_t* grad_out, const uint16_t* a, const uint16_t* b,
                                              uint16_t* grad_a, uint16_t* grad_b, size_t n,
                                              gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_rows_forward_bf16(const uint16_t* x, uint16_t* y, size_t rows, size_t cols,
                                                  gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_rows_backward_bf16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_x,
                                                   size_t rows, size_t cols, gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_forward_f16(const uint16_t* a, const uint16_t* b, uint16_t* y, size_t n,
                                            gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_backward_f16(const uint16_t* grad_out, const uint16_t* a, const uint16_t* b,
                                             uint16_t* grad_a, uint16_t* grad_b, size_t n,
                                             gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_rows_forward_f16(const uint16_t* x, uint16_t* y, size_t rows, size_t cols,
                                                 gelu_approximate approximate);
GELU_API gelu_status gelu_geglu_rows_backward_f16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_x,
                                                  size_t rows, size_t cols, gelu_approximate approximate);

/* Named variants: every GELU in Hugging Face transformers' ACT2FN table, each computing its own formula
 * (docs/VARIANTS.md has the formulas, users and differences):
 *   gelu, gelu_python                          exact GELU (GELU_APPROXIMATE_NONE)
 *   gelu_new, gelu_pytorch_tanh, gelu_accurate  tanh form (GELU_APPROXIMATE_TANH)
 *   gelu_fast                                  0.5x(1 + tanh(0.7978845608 x (1 + 0.044715 x^2))), that constant
 *   quick_gelu                                 x sigmoid(1.702 x) (GELU_APPROXIMATE_SIGMOID)
 *   gelu_10                                    exact GELU clipped to [-10, 10]; f' = 0 where clipped (x > 10)
 * Accuracy: that of the form (float32: see the top of this file; gelu_fast as the tanh form; bf16/fp16 correctly
 * rounded, tests/half/half_exhaustive_test.cc). Argument rules as the functions above; a value outside the enum
 * returns GELU_UNKNOWN_VARIANT.
 * Example:  gelu_variant v;
 *           if (gelu_variant_from_name("gelu_new", &v) != GELU_OK) abort();
 *           gelu_variant_forward_f32(v, x, y, n); */
typedef enum gelu_variant GELU_ENUM_BASE {
  GELU_VARIANT_GELU = 0,
  GELU_VARIANT_GELU_PYTHON = 1,
  GELU_VARIANT_GELU_NEW = 2,
  GELU_VARIANT_GELU_PYTORCH_TANH = 3,
  GELU_VARIANT_GELU_ACCURATE = 4,
  GELU_VARIANT_GELU_FAST = 5,
  GELU_VARIANT_QUICK_GELU = 6,
  GELU_VARIANT_GELU_10 = 7
} gelu_variant;
#define GELU_VARIANT_COUNT 8

/* The variant called `name` (exact, case-sensitive, as in ACT2FN). Unknown name or NULL: GELU_UNKNOWN_VARIANT,
 * *out untouched. out == NULL: GELU_INVALID_ARGUMENT. */
GELU_API gelu_status gelu_variant_from_name(const char* name, gelu_variant* out);
/* The ACT2FN name of `variant` (a static string), or NULL for a value outside the enum. */
GELU_API const char* gelu_variant_name(gelu_variant variant);
/* The approximate form whose formula `variant` evaluates, or -1 for gelu_fast and gelu_10 (their own kernels) and
 * for values outside the enum. */
GELU_API int gelu_variant_approximate(gelu_variant variant);

GELU_API gelu_status gelu_variant_forward_f32(gelu_variant variant, const float* x, float* y, size_t n);
GELU_API gelu_status gelu_variant_backward_f32(gelu_variant variant, const float* grad_out, const float* x,
                                               float* grad_in, size_t n);
GELU_API gelu_status gelu_variant_forward_bf16(gelu_variant variant, const uint16_t* x, uint16_t* y, size_t n);
GELU_API gelu_status gelu_variant_backward_bf16(gelu_variant variant, const uint16_t* grad_out, const uint16_t* x,
                                                uint16_t* grad_in, size_t n);
GELU_API gelu_status gelu_variant_forward_f16(gelu_variant variant, const uint16_t* x, uint16_t* y, size_t n);
GELU_API gelu_status gelu_variant_backward_f16(gelu_variant variant, const uint16_t* grad_out, const uint16_t* x,
                                               uint16_t* grad_in, size_t n);
/* ==== end of half precision, fused operations, named variants ================================================ */

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* GELU_GELU_H_ */
