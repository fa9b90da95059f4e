// SPDX-License-Identifier: Apache-2.0
// Internal entry points of the per-target kernels. Each call is single-threaded and dispatched
// (HWY_DYNAMIC_DISPATCH) to the best target this CPU supports; src/cpu/dispatch.cc validates arguments
// and splits large arrays over threads before calling these. Not installed; not part of the ABI.
#ifndef GELU_SRC_CPU_KERNELS_H_
#define GELU_SRC_CPU_KERNELS_H_

#include <cstddef>

#include "src/common/functions.h"

namespace gelu::cpu {

// The forms, numbered as gelu_approximate / gelu::Approximation (src/common/functions.h).
using common::Form;
using common::kNone;
using common::kTanh;
using common::kSigmoid;

// The array functions (the scalar, element ones are common::ForwardF32 / BackwardF32, src/common/gelu_f32_math.h).
// y[i] = f(x[i]); x == y allowed.
void ForwardF32Array(const float* x, float* y, size_t n, Form form);
// grad_in[i] = grad_out[i] * f'(x[i]); grad_in may equal grad_out or x.
void BackwardF32Array(const float* grad_out, const float* x, float* grad_in, size_t n, Form form);
void ForwardF64Array(const double* x, double* y, size_t n, Form form);
void BackwardF64Array(const double* grad_out, const double* x, double* grad_in, size_t n, Form form);

// Name of the target HWY_DYNAMIC_DISPATCH picks now, e.g. "AVX2".
const char* ChosenTargetName();

}  // namespace gelu::cpu

#endif  // GELU_SRC_CPU_KERNELS_H_
