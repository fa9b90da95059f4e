// SPDX-License-Identifier: Apache-2.0
// Splits large arrays over threads. Kernels never start threads themselves; the C entry points call
// ParallelFor, which runs the kernel on contiguous, 64-element-aligned ranges. Every element is computed by the
// same per-element vector code whatever the split (tails use the same vector path), so results are
// bit-identical for any thread count.
#ifndef GELU_SRC_PARALLEL_PARALLEL_H_
#define GELU_SRC_PARALLEL_PARALLEL_H_

#include <algorithm>
#include <cstddef>
#include <functional>

namespace gelu::parallel {

// Arrays shorter than this stay on the calling thread: below it, waking threads costs more than it saves
// (64 Ki float32 elements take ~30-60 us on one core; an OpenMP fork/join costs a few us).
inline constexpr size_t kMinParallelElements = size_t{1} << 16;

void SetNumThreads(int n);  // 0 (or negative): all hardware threads
int GetNumThreads();        // the number ParallelFor will use for a large array

// Calls body(begin, end) on disjoint ranges covering [0, n), on GetNumThreads() threads (ParallelForThreads).
void ParallelFor(size_t n, const std::function<void(size_t, size_t)>& body);

// The split itself, for `threads` threads: arrays below kMinParallelElements on the calling thread; otherwise one
// contiguous block per thread (streaming stays sequential per core), boundaries on 64 elements so no two threads
// share a cache line of float32 output, OpenMP static schedule. Header-only so that the benchmarks' copy and naive
// loops (bench/, tools/bench.cc) split exactly as the library does; the caller must be built with OpenMP.
template <class F>
void ParallelForThreads(size_t n, int threads, const F& body) {
  if (threads <= 1 || n < kMinParallelElements) {
    body(size_t{0}, n);
    return;
  }
  constexpr size_t kAlign = 64;
  const size_t parts = std::min<size_t>(static_cast<size_t>(threads), (n + kAlign - 1) / kAlign);
  const size_t block = ((n + parts - 1) / parts + kAlign - 1) / kAlign * kAlign;
#pragma omp parallel for num_threads(static_cast<int>(parts)) schedule(static, 1)
  for (long p = 0; p < static_cast<long>(parts); ++p) {
    const size_t begin = static_cast<size_t>(p) * block;
    const size_t end = std::min(n, begin + block);
    if (begin < end) body(begin, end);
  }
}

}  // namespace gelu::parallel

#endif  // GELU_SRC_PARALLEL_PARALLEL_H_
