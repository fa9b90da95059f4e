// SPDX-License-Identifier: Apache-2.0
// The host evaluation of the fused functions: the element functions of src/cuda/gelu_ops.h, and the CPU's
// grad_bias order.
#ifndef GELU_TESTS_CUDA_FUSED_HOST_REFERENCE_H_
#define GELU_TESTS_CUDA_FUSED_HOST_REFERENCE_H_

#include <cstddef>

#include "tests/cuda/cuda_functions.h"
#include "tests/cuda/fused_functions.h"

namespace gelu::cuda_test {

void HostFused(Type t, FusedOp op, common::Form form, FusedArrays* a, size_t rows, size_t cols);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_FUSED_HOST_REFERENCE_H_
