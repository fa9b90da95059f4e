// SPDX-License-Identifier: Apache-2.0
// Elementwise bf16 / fp16 GELU (and the float32 kernels of the gelu_fast and gelu_10 variants): compiled once per
// Highway target, chosen at run time, plus the C entry points gelu_{forward,backward}_{bf16,f16}.
#include <cstddef>
#include <cstdint>

#include "src/cpu/half_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/cpu/gelu_half.cc"  // this file, relative to the repo root
#include "hwy/foreach_target.h"                      // IWYU pragma: keep
#include "hwy/highway.h"
#include "src/cpu/gelu_half-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {

template <class Io, int kKind>
void ElementwiseKind(bool backward, const void* g, const void* x, void* y, size_t n) {
  using T = typename Io::T;
  if (backward) {
    ElementwiseLoop<Io, kKind, true>(static_cast<const T*>(g), static_cast<const T*>(x), static_cast<T*>(y), n);
  } else {
    ElementwiseLoop<Io, kKind, false>(nullptr, static_cast<const T*>(x), static_cast<T*>(y), n);
  }
}

template <class Io>
void ElementwiseIo(int kind, bool backward, const void* g, const void* x, void* y, size_t n) {
  switch (kind) {
    case cpu::kKindNone: return ElementwiseKind<Io, cpu::kKindNone>(backward, g, x, y, n);
    case cpu::kKindTanh: return ElementwiseKind<Io, cpu::kKindTanh>(backward, g, x, y, n);
    case cpu::kKindSigmoid: return ElementwiseKind<Io, cpu::kKindSigmoid>(backward, g, x, y, n);
    case cpu::kKindGeluFast: return ElementwiseKind<Io, cpu::kKindGeluFast>(backward, g, x, y, n);
    default: return ElementwiseKind<Io, cpu::kKindGelu10>(backward, g, x, y, n);
  }
}

void ElementwiseKernel(int io, int kind, bool backward, const void* g, const void* x, void* y, size_t n) {
  switch (io) {
    case cpu::kIoF32: return ElementwiseIo<IoF32>(kind, backward, g, x, y, n);
    case cpu::kIoBf16: return ElementwiseIo<IoBf16>(kind, backward, g, x, y, n);
    default: return ElementwiseIo<IoF16>(kind, backward, g, x, y, n);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "src/parallel/parallel.h"

namespace gelu {
HWY_EXPORT(ElementwiseKernel);

namespace cpu {

void Elementwise(Io io, int kind, bool backward, const void* g, const void* x, void* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(ElementwiseKernel)(io, kind, backward, g, x, y, n);
}

gelu_status RunElementwise(Io io, int kind, bool backward, const void* g, const void* x, void* y, size_t n) {
  if (n == 0) return GELU_OK;
  const size_t size = ElementSize(io);
  size_t bytes;
  if (!CheckedMul(n, size, &bytes)) return GELU_INVALID_ARGUMENT;
  if (x == nullptr || y == nullptr || (backward && g == nullptr)) return GELU_INVALID_ARGUMENT;
  if (PartialOverlap(x, y, bytes) || (backward && PartialOverlap(g, y, bytes))) return GELU_INVALID_ARGUMENT;
  const auto* gb = static_cast<const unsigned char*>(g);
  const auto* xb = static_cast<const unsigned char*>(x);
  auto* yb = static_cast<unsigned char*>(y);
  gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
    Elementwise(io, kind, backward, backward ? gb + begin * size : nullptr, xb + begin * size, yb + begin * size,
                end - begin);
  });
  return GELU_OK;
}

}  // namespace cpu
}  // namespace gelu

namespace {
gelu_status Half(gelu::cpu::Io io, bool backward, const uint16_t* g, const uint16_t* x, uint16_t* y, size_t n,
                 gelu_approximate a) {
  if (!gelu::cpu::ValidApproximate(a)) return GELU_INVALID_ARGUMENT;
  return gelu::cpu::RunElementwise(io, static_cast<int>(a), backward, g, x, y, n);
}
}  // namespace

extern "C" {

gelu_status gelu_forward_bf16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate) {
  return Half(gelu::cpu::kIoBf16, false, nullptr, x, y, n, approximate);
}
gelu_status gelu_backward_bf16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                               gelu_approximate approximate) {
  return Half(gelu::cpu::kIoBf16, true, grad_out, x, grad_in, n, approximate);
}
gelu_status gelu_forward_f16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate) {
  return Half(gelu::cpu::kIoF16, false, nullptr, x, y, n, approximate);
}
gelu_status gelu_backward_f16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                              gelu_approximate approximate) {
  return Half(gelu::cpu::kIoF16, true, grad_out, x, grad_in, n, approximate);
}

}  // extern "C"
#endif  // HWY_ONCE
