// SPDX-License-Identifier: Apache-2.0
// The fused functions of gelu_cuda (bias + GELU, GEGLU): their list and names, the shapes of their arrays, random
// inputs for them, and their calls (the macros that spell out the entry points of the CPU library or of
// gelu_cuda, and the gelu_cuda call on device memory).
#ifndef GELU_TESTS_CUDA_FUSED_FUNCTIONS_H_
#define GELU_TESTS_CUDA_FUSED_FUNCTIONS_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "gelu/gelu_cuda.h"
#include "tests/cuda/cuda_functions.h"

namespace gelu::cuda_test {

enum class FusedOp { kBiasForward, kBiasBackward, kGegluForward, kGegluBackward, kGegluRowsForward, kGegluRowsBackward };
const char* FusedName(FusedOp op);

// One fused problem's arrays, as raw bytes of `type` elements. Shapes: bias ops rows x cols with bias[cols];
// geglu ops n = rows * cols elements per array; geglu rows ops x is rows x 2*cols. Inputs: g, x (or a), b
// (or bias); outputs: y (forward, or grad_x / grad_a) and y2 (grad_bias / grad_b).
struct FusedArrays {
  std::vector<char> g, x, b, y, y2;
};

size_t FusedInputElements(FusedOp op, size_t rows, size_t cols, int which /* 0 g, 1 x, 2 b */);
size_t FusedOutputElements(FusedOp op, size_t rows, size_t cols, int which /* 0 y, 1 y2 */);

// ---- The fused entry points of one library, typed: PREFIX gelu_ (the CPU library, gelu.h) or gelu_cuda_
// (gelu_cuda.h); the trailing arguments (approximate, then the stream for CUDA) are __VA_ARGS__. Expands to the
// body of a function template on T (float or uint16_t) with parameters t, op, gv, xv, bv, yv, y2v, rows, cols:
// the CPU reference test (gelu_cuda_reference_test.cc) and the GPU checks call the same list of functions.
#define GELU_FUSED_SWITCH(PREFIX, SUFFIX, ...)                                                                  \
  switch (op) {                                                                                                 \
    case FusedOp::kBiasForward: return PREFIX##bias_forward_##SUFFIX(x, b, y, rows, cols, __VA_ARGS__);         \
    case FusedOp::kBiasBackward: return PREFIX##bias_backward_##SUFFIX(g, x, b, y, y2, rows, cols, __VA_ARGS__); \
    case FusedOp::kGegluForward: return PREFIX##geglu_forward_##SUFFIX(x, b, y, n, __VA_ARGS__);                \
    case FusedOp::kGegluBackward: return PREFIX##geglu_backward_##SUFFIX(g, x, b, y, y2, n, __VA_ARGS__);       \
    case FusedOp::kGegluRowsForward: return PREFIX##geglu_rows_forward_##SUFFIX(x, y, rows, cols, __VA_ARGS__); \
    default: return PREFIX##geglu_rows_backward_##SUFFIX(g, x, y, rows, cols, __VA_ARGS__);                     \
  }
#define GELU_FUSED_TYPED_CALL(PREFIX, ...)            \
  const T* g = static_cast<const T*>(gv);             \
  const T* x = static_cast<const T*>(xv);             \
  const T* b = static_cast<const T*>(bv);             \
  T* y = static_cast<T*>(yv);                         \
  T* y2 = static_cast<T*>(y2v);                       \
  const size_t n = rows * cols;                       \
  if constexpr (std::is_same_v<T, float>) {           \
    GELU_FUSED_SWITCH(PREFIX, f32, __VA_ARGS__)       \
  } else if (t == common::kBf16) {                      \
    GELU_FUSED_SWITCH(PREFIX, bf16, __VA_ARGS__)      \
  } else {                                            \
    GELU_FUSED_SWITCH(PREFIX, f16, __VA_ARGS__)       \
  }

// ---- The gelu_cuda call (pointers to device memory).
gelu_status CudaFused(Type t, FusedOp op, gelu_approximate a, const void* g, const void* x, const void* b,
                      void* y, void* y2, size_t rows, size_t cols, void* stream);

std::vector<FusedOp> AllFusedOps();

// Random inputs for a fused problem (the outputs sized and zeroed).
void FusedInputs(Type t, FusedOp op, size_t rows, size_t cols, uint64_t seed, FusedArrays* a);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_FUSED_FUNCTIONS_H_
