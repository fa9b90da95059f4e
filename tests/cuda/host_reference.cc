// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/host_reference.h"

#include <algorithm>
#include <thread>

#include "src/cuda/gelu_ops.h"
#include "src/parallel/parallel.h"

namespace gelu::cuda_test {

unsigned HostThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

void ParallelFor(size_t n, const std::function<void(size_t, size_t)>& fn) {
  gelu::parallel::ParallelForThreads(n, static_cast<int>(HostThreads()), fn);
}

template <class Op>
void HostEvalOpLoop(const void* g, const void* x, void* y, size_t begin, size_t end) {
  using T = typename Op::T;
  const T* xs = static_cast<const T*>(x);
  const T* gs = static_cast<const T*>(g);
  T* ys = static_cast<T*>(y);
  for (size_t i = begin; i < end; ++i) {
    if constexpr (Op::kInputs == 1) {
      const T in[1] = {xs[i]};
      ys[i] = Op::Apply(in);
    } else {
      const T in[2] = {gs[i], xs[i]};
      ys[i] = Op::Apply(in);
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define GELU_HOST_EVAL_FMA_CLONE 1
// The element functions write every fused multiply-add as std::fma (gelu_scalar.h). Compiled for baseline x86-64
// (no FMA instruction), each is a call into libm's fma, most of the 2^32-input host sweeps' time
// (docs/EXPERIMENTS.md, "Test time"). This clone, taken on CPUs with FMA, inlines the whole
// evaluation (flatten) into code that may use vfmadd, which rounds once as libm's fma does: the same bits.
// -ffp-contract=off still holds in it, so no other a * b + c is fused.
template <class Op>
__attribute__((target("fma"), flatten)) void HostEvalOpFma(const void* g, const void* x, void* y, size_t begin,
                                                           size_t end) {
  HostEvalOpLoop<Op>(g, x, y, begin, end);
}
#endif

template <class Op>
void HostEvalOp(const void* g, const void* x, void* y, size_t begin, size_t end) {
#ifdef GELU_HOST_EVAL_FMA_CLONE
  static const bool kHasFma = __builtin_cpu_supports("fma");
  if (kHasFma) return HostEvalOpFma<Op>(g, x, y, begin, end);
#endif
  HostEvalOpLoop<Op>(g, x, y, begin, end);
}

template <template <common::Form> class Op>
void HostEvalForm(common::Form form, const void* g, const void* x, void* y, size_t begin, size_t end) {
  common::VisitForm(static_cast<common::Form>(form),
                    [&](auto k) { HostEvalOp<Op<decltype(k)::value>>(g, x, y, begin, end); });
}

void HostEval(const Function& f, const void* g, const void* x, void* y, size_t begin, size_t end) {
  using namespace gelu::cuda;  // NOLINT: the Op templates
  switch (f.type) {
    case common::kF32:
      return f.backward ? HostEvalForm<BackwardF32Op>(f.form, g, x, y, begin, end)
                        : HostEvalForm<ForwardF32Op>(f.form, g, x, y, begin, end);
    case common::kBf16:
      return f.backward ? HostEvalForm<BackwardBf16Op>(f.form, g, x, y, begin, end)
                        : HostEvalForm<ForwardBf16Op>(f.form, g, x, y, begin, end);
    default:
      return f.backward ? HostEvalForm<BackwardF16Op>(f.form, g, x, y, begin, end)
                        : HostEvalForm<ForwardF16Op>(f.form, g, x, y, begin, end);
  }
}

}  // namespace gelu::cuda_test
