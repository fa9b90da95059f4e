// SPDX-License-Identifier: Apache-2.0
// Splits large arrays over threads. Kernels never start threads themselves; the C entry points call
// ParallelFor, which runs the kernel on contiguous, 64-element-aligned ranges. Every element is computed by the
// same per-element vector code whatever the split (tails use the same vector path), so results are
// bit-identical for any thread count.
#ifndef GELU_SRC_PARALLEL_PARALLEL_H_
#define GELU_SRC_PARALLEL_PARALLEL_H_

#include <cstddef>
#include <functional>

namespace gelu::parallel {

// Arrays shorter than this stay on the calling thread: below it, waking threads costs more than it saves
// (64 Ki float32 elements take ~30-60 us on one core; an OpenMP fork/join costs a few us).
inline constexpr size_t kMinParallelElements = size_t{1} << 16;

void SetNumThreads(int n);  // 0 (or negative): all hardware threads
int GetNumThreads();        // the number ParallelFor will use for a large array

// Calls body(begin, end) on disjoint ranges covering [0, n).
void ParallelFor(size_t n, const std::function<void(size_t, size_t)>& body);

}  // namespace gelu::parallel

#endif  // GELU_SRC_PARALLEL_PARALLEL_H_
