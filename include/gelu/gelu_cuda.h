/* SPDX-License-Identifier: Apache-2.0 */
/* gelu_cuda: the GELU functions of gelu.h on NVIDIA GPUs, for arrays in device memory (target gelu::gelu_cuda).
 *
 * Same forms, same numerics, same argument rules as gelu.h, one extra `stream` argument (a cudaStream_t passed
 * as void*, so that this header needs no CUDA header; NULL is the default stream). The per-element arithmetic is
 * the host's (src/common/gelu_scalar.h, compiled __host__ __device__ with --fmad=false), so every function
 * returns the same bits as the CPU scalar path for every input, NaN payloads aside (a NaN input gives a NaN).
 *
 * Max error (float32): as gelu.h says (forward NONE <= 1 ULP; TANH, SIGMOID <= 2 ULP of their own formula;
 *   backward <= 2 ULP, absolute 2^-24 near f'(x) = 0), because the bits equal the host's, which the exhaustive
 *   CPU tests check; tests/cuda/ checks the equality over all 2^32 inputs on a GPU.
 *
 * Calls are asynchronous on `stream`, like a kernel launch: a return of GELU_OK means the work was queued;
 * synchronize the stream before reading the output on the host.
 *
 * Return values:
 *   GELU_OK                 queued (n == 0: nothing to do, no CUDA call is made, pointers may be NULL).
 *   GELU_INVALID_ARGUMENT   what the CPU functions (gelu.h) refuse: a NULL pointer with n > 0, an unknown
 *                           `approximate`, an n whose byte count overflows, an output that partly overlaps an
 *                           input (exact aliasing, y == x, computes in place); and, on the GPU only, a pointer not
 *                           aligned to its element type (4 bytes for float, 2 for the 16-bit types). Nothing is
 *                           queued or written.
 *   GELU_CUDA_ERROR         a CUDA call failed (no device, launch failure, an error left by earlier asynchronous
 *                           work); gelu_cuda_last_error_string() gives CUDA's text. The functions never abort.
 *
 * Example:
 *   float *x, *y;  cudaMalloc(&x, n * sizeof(float));  cudaMalloc(&y, n * sizeof(float));  ... fill x ...
 *   if (gelu_cuda_forward_f32(x, y, n, GELU_APPROXIMATE_NONE, stream) != GELU_OK)
 *     fprintf(stderr, "gelu: %s\n", gelu_cuda_last_error_string());
 */
#ifndef GELU_GELU_CUDA_H_
#define GELU_GELU_CUDA_H_

#include <stddef.h>
#include <stdint.h>

#include "gelu/gelu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* float32: y[i] = f(x[i]); grad_in[i] = grad_out[i] * f'(x[i]). */
GELU_API gelu_status gelu_cuda_forward_f32(const float* x, float* y, size_t n, gelu_approximate approximate,
                                           void* stream);
GELU_API gelu_status gelu_cuda_backward_f32(const float* grad_out, const float* x, float* grad_in, size_t n,
                                            gelu_approximate approximate, void* stream);

/* bfloat16 and IEEE binary16, stored as uint16_t bit patterns (the layout of __nv_bfloat16, __half,
 * torch.bfloat16, torch.float16). Each input is widened exactly, f or grad_out * f' is evaluated in double
 * as for float32, and the result is rounded once to the 16-bit type (round to nearest even).
 * The first call with n >= 65536 on a device builds lookup tables there (a small kernel, waited for: make one
 * such call before capturing a CUDA graph). cudaDeviceReset() discards them without the library knowing: after
 * a reset, set GELU_CUDA_HALF_TABLES=0 in the environment before the first call, or restart the process. */
GELU_API gelu_status gelu_cuda_forward_bf16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate,
                                            void* stream);
GELU_API gelu_status gelu_cuda_backward_bf16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in,
                                             size_t n, gelu_approximate approximate, void* stream);
GELU_API gelu_status gelu_cuda_forward_f16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate,
                                           void* stream);
GELU_API gelu_status gelu_cuda_backward_f16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in,
                                            size_t n, gelu_approximate approximate, void* stream);

/* Fused bias + GELU and GEGLU: the functions of gelu.h (gelu_bias_*, gelu_geglu_*, gelu_geglu_rows_*) for device
 * arrays, with the same formulas, argument rules and bits (grad_bias summed in the CPU's order: rows in blocks of
 * ceil(rows/64), each block in row order, block sums in block order, in double, rounded once):
 *   bias:  y[r][c] = f(fl32(x[r][c] + bias[c])) over a row-major rows x cols matrix; backward grad_x = grad_out *
 *          f'(h), grad_bias[c] = sum over r of the unrounded products (set to 0 when rows == 0).
 *   geglu: y = f(a) * b (product in double, rounded once); backward grad_a = grad_out * b * f'(a),
 *          grad_b = grad_out * f(a). The _rows forms take a = x[r][0:cols], b = x[r][cols:2*cols] of a rows x 2*cols
 *          x (grad_x likewise).
 * Bias backward allocates row-blocks x cols doubles of stream-ordered scratch (cudaMallocAsync) per call. */
#define GELU_CUDA_DECLARE_FUSED(suffix, T)                                                                        \
  GELU_API gelu_status gelu_cuda_bias_forward_##suffix(const T* x, const T* bias, T* y, size_t rows, size_t cols, \
                                                       gelu_approximate approximate, void* stream);               \
  GELU_API gelu_status gelu_cuda_bias_backward_##suffix(const T* grad_out, const T* x, const T* bias, T* grad_x,  \
                                                        T* grad_bias, size_t rows, size_t cols,                   \
                                                        gelu_approximate approximate, void* stream);              \
  GELU_API gelu_status gelu_cuda_geglu_forward_##suffix(const T* a, const T* b, T* y, size_t n,                   \
                                                        gelu_approximate approximate, void* stream);              \
  GELU_API gelu_status gelu_cuda_geglu_backward_##suffix(const T* grad_out, const T* a, const T* b, T* grad_a,    \
                                                         T* grad_b, size_t n, gelu_approximate approximate,       \
                                                         void* stream);                                           \
  GELU_API gelu_status gelu_cuda_geglu_rows_forward_##suffix(const T* x, T* y, size_t rows, size_t cols,          \
                                                             gelu_approximate approximate, void* stream);         \
  GELU_API gelu_status gelu_cuda_geglu_rows_backward_##suffix(const T* grad_out, const T* x, T* grad_x,           \
                                                              size_t rows, size_t cols,                           \
                                                              gelu_approximate approximate, void* stream);
GELU_CUDA_DECLARE_FUSED(f32, float)
GELU_CUDA_DECLARE_FUSED(bf16, uint16_t)
GELU_CUDA_DECLARE_FUSED(f16, uint16_t)
#undef GELU_CUDA_DECLARE_FUSED

/* CUDA's text for the last GELU_CUDA_ERROR returned on the calling host thread, prefixed with the CUDA call
 * that failed, e.g. "cudaGetDevice: no CUDA-capable device is detected"; "" if none has been returned on this
 * thread. Successful calls leave it as it is; the pointer stays valid for the thread's lifetime. */
GELU_API const char* gelu_cuda_last_error_string(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* GELU_GELU_CUDA_H_ */
