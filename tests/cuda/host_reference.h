// SPDX-License-Identifier: Apache-2.0
// The host side of the checks: threads, and the host evaluation of the per-element source that the device must
// match (src/cuda/gelu_ops.h over src/common/gelu_scalar.h).
#ifndef GELU_TESTS_CUDA_HOST_REFERENCE_H_
#define GELU_TESTS_CUDA_HOST_REFERENCE_H_

#include <cstddef>
#include <functional>

#include "tests/cuda/cuda_functions.h"

namespace gelu::cuda_test {

unsigned HostThreads();

// fn(begin, end) over [0, n), split as the library splits its arrays (src/parallel/parallel.h; OpenMP), on every
// host thread.
void ParallelFor(size_t n, const std::function<void(size_t, size_t)>& fn);

// y[i] = the host evaluation of f at (g[i], x[i]) for i in [begin, end), single-threaded.
void HostEval(const Function& f, const void* g, const void* x, void* y, size_t begin, size_t end);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_HOST_REFERENCE_H_
