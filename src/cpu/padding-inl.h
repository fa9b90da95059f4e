// SPDX-License-Identifier: Apache-2.0
// The last partial vector of every per-target loop (float32: src/cpu/gelu-inl.h; float64: src/cpu/gelu_f64.cc;
// the storage loops: src/cpu/storage_*-inl.h, src/cpu/elementwise_storage.cc): Highway 1.0.3 has no LoadN/StoreN,
// so the rest of fewer than a vector's lanes is staged through stack copies of one vector, zeros in
// the lanes past the end, and runs the same full-vector code as every other vector. Each lane's result depends on
// its own inputs only, so the padding changes no result, and an element's bits do not depend on n or alignment.

// Toggle guard, as Highway's skeleton-inl.h: this header is re-included once per target.
#if defined(GELU_SRC_CPU_PADDING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_PADDING_INL_H_
#undef GELU_SRC_CPU_PADDING_INL_H_
#else
#define GELU_SRC_CPU_PADDING_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {

// Runs body(i, count) over [0, n): count = Lanes(d) for each whole vector, then once count = n - i < Lanes(d)
// for the rest, which `body` stages through PaddedLanes so that it runs the same full-vector code. The storage
// loops' driver; the float32 and float64 loops write theirs out (their bodies are too large to inline in a lambda,
// and the float32 loop hands all whole vectors to one call).
template <class D, class Body>
HWY_INLINE void ForEachVector(D d, size_t n, const Body& body) {
  const size_t N = hwy::HWY_NAMESPACE::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) body(i, N);
  if (i < n) body(i, n - i);
}

// One operand of a last partial vector: kMax (the target's MaxLanes) aligned elements on the stack. An input is
// staged with From, an output read back with To; an operand both read and written (a running sum) takes both.
template <class T, size_t kMax>
struct PaddedLanes {
  HWY_ALIGN T lanes[kMax];
  // src[0, count) then zeros (count <= kMax; src may be null when count is 0).
  const T* From(const T* src, size_t count) {
    for (size_t j = 0; j < count; ++j) lanes[j] = src[j];
    for (size_t j = count; j < kMax; ++j) lanes[j] = T();
    return lanes;
  }
  // The first count lanes into dst[0, count).
  void To(T* dst, size_t count) const {
    for (size_t j = 0; j < count; ++j) dst[j] = lanes[j];
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_PADDING_INL_H_ toggle
