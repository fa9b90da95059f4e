// SPDX-License-Identifier: Apache-2.0
// Elementwise GELU on a storage type (src/cpu/storage_kernels.h): bf16 / fp16 for every formula, float32 for the
// gelu_fast and gelu_10 variants (the three forms' float32 kernels are src/cpu/gelu_f32.cc). Compiled once per
// Highway target, chosen at run time; plus the bf16/fp16 lookup tables, the threaded driver RunElementwise and the
// C entry points gelu_{forward,backward}_{bf16,f16}.
#include <cstddef>
#include <cstdint>

#include "src/common/validate.h"
#include "src/cpu/storage_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/cpu/elementwise_storage.cc"  // this file, relative to the repo root
#include "hwy/foreach_target.h"                      // IWYU pragma: keep
#include "hwy/highway.h"
#include "src/cpu/storage_loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {

template <class Io, common::Formula kFormula>
void ElementwiseFormula(bool backward, const void* g, const void* x, void* y, size_t n) {
  using T = typename Io::T;
  if (backward) {
    ElementwiseLoop<Io, kFormula, true>(static_cast<const T*>(g), static_cast<const T*>(x), static_cast<T*>(y), n);
  } else {
    ElementwiseLoop<Io, kFormula, false>(nullptr, static_cast<const T*>(x), static_cast<T*>(y), n);
  }
}

void ElementwiseKernel(int io, int formula, bool backward, const void* g, const void* x, void* y, size_t n) {
  VisitIo(io, [&](auto io_tag) HWY_ATTR {
    common::VisitFormula(static_cast<common::Formula>(formula), [&](auto k) HWY_ATTR {
      ElementwiseFormula<decltype(io_tag), decltype(k)::value>(backward, g, x, y, n);
    });
  });
}

// ---- Lookup tables (see cpu::HalfTable below): the kernels above, evaluated once for all 65,536 inputs.

// out[h] = f(h) or f'(h) in double for every encoding h of a half type, exactly as the loops compute them before
// any multiplication and the final rounding (FormForOutput, with the half-precision corrections).
template <class Io, common::Formula kFormula, bool kDerivative>
void ValueTableIo(double* out) {
  const hn::ScalableTag<double> dd;
  const size_t N = hn::Lanes(dd);
  HWY_ALIGN uint16_t bits[hn::MaxLanes(dd)];
  for (uint32_t i = 0; i < 65536; i += static_cast<uint32_t>(N)) {  // N divides 65,536
    for (size_t j = 0; j < N; ++j) bits[j] = static_cast<uint16_t>(i + j);
    hn::StoreU(FormForOutput<kFormula, kDerivative, true>(dd, LoadD<Io>(dd, bits)), dd, out + i);
  }
}
void ValueTableKernel(int io, int formula, bool derivative, double* out) {
  VisitHalfIo(io, [&](auto io_tag) HWY_ATTR {
    common::VisitFormula(static_cast<common::Formula>(formula), [&](auto k) HWY_ATTR {
      using Io = decltype(io_tag);
      return derivative ? ValueTableIo<Io, decltype(k)::value, true>(out) : ValueTableIo<Io, decltype(k)::value, false>(out);
    });
  });
}

// y = g * table[x], the product in double rounded once: the same operations as ElementwiseLoop's backward, with
// f'(x) gathered instead of computed.
template <class Io>
HWY_NOINLINE void LookupBackwardIo(const double* table, const uint16_t* g, const uint16_t* x, uint16_t* y, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<int64_t, decltype(dd)> di64;
  const hn::Rebind<uint16_t, decltype(dd)> d16;
  constexpr size_t kMax = hn::MaxLanes(dd);
  auto one = [&](const uint16_t* gp, const uint16_t* xp, uint16_t* yp) HWY_ATTR {
    const auto idx = hn::PromoteTo(di64, hn::PromoteTo(hn::Rebind<int32_t, decltype(dd)>(), hn::LoadU(d16, xp)));
    Io::Store(dd, hn::Mul(LoadD<Io>(dd, gp), hn::GatherIndex(dd, table, idx)), yp);
  };
  ForEachVector(dd, n, [&](size_t i, size_t count) HWY_ATTR {
    if (count == hn::Lanes(dd)) return one(g + i, x + i, y + i);
    PaddedLanes<uint16_t, kMax> xb, gb, yb;
    one(gb.From(g + i, count), xb.From(x + i, count), yb.lanes);
    yb.To(y + i, count);
  });
}
void LookupBackwardKernel(int io, const double* table, const uint16_t* g, const uint16_t* x, uint16_t* y, size_t n) {
  VisitHalfIo(io, [&](auto io_tag) HWY_ATTR { LookupBackwardIo<decltype(io_tag)>(table, g, x, y, n); });
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <atomic>
#include <memory>
#include <mutex>
#include <new>

#include "hwy/targets.h"
#include "src/parallel/parallel.h"

namespace gelu {
HWY_EXPORT(ElementwiseKernel);
HWY_EXPORT(ValueTableKernel);
HWY_EXPORT(LookupBackwardKernel);

namespace cpu {

void Elementwise(Io io, common::Formula formula, bool backward, const void* g, const void* x, void* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(ElementwiseKernel)(io, static_cast<int>(formula), backward, g, x, y, n);
}

namespace {

// Lookup tables for the half types. A bf16/fp16 input has only 65,536 values, so f (rounded to the type, for
// gelu_forward_*), and f and f' in double (before the multiplications of the backward and GEGLU, and the final
// rounding) are computed once per type and form -- by the very kernels above, over all inputs -- and arrays then
// cost one load per element (forward) or a gather, the multiplications and the rounding, instead of ~50 double
// operations per element. The results are the kernels' bits by construction. A table is built on first use
// (about a millisecond), 128 KiB (rounded f) or 512 KiB (double), and kept for the life of the process. Tables
// are kept per SIMD target, so that tests which switch targets (hwy::SetSupportedTargetsForTest) check each
// target's kernels over every input. If memory for a table cannot be had, the kernels run directly.
constexpr int kMaxTargets = 64;  // Highway targets are bits of an int64_t
std::atomic<const void*> g_tables[kMaxTargets][2][common::kNumFormulas][kNumHalfTables];
std::mutex g_tables_mutex;

// The index of the target HWY_DYNAMIC_DISPATCH calls now. Not hwy::SupportedTargets() per call: Highway 1.0.3
// re-runs CPUID detection there every time, which costs tens of microseconds in a VM (CPUID traps).
int CurrentTargetIndex() {
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());  // what the first dispatch would do
  return static_cast<int>(chosen.GetIndex());
}

}  // namespace

const void* HalfTable(Io io, common::Formula formula, HalfTableKind which) {
  std::atomic<const void*>& slot =
      g_tables[CurrentTargetIndex()][io == kIoBf16 ? 0 : 1][static_cast<int>(formula)][which];
  if (const void* t = slot.load(std::memory_order_acquire)) return t;
  const std::lock_guard<std::mutex> lock(g_tables_mutex);
  if (const void* t = slot.load(std::memory_order_relaxed)) return t;
  const void* table = nullptr;
  if (which != kTableRounded) {
    auto* d = new (std::nothrow) double[65536];
    if (d != nullptr) HWY_DYNAMIC_DISPATCH(ValueTableKernel)(io, static_cast<int>(formula), which == kTableDerivative, d);
    table = d;
  } else {
    const std::unique_ptr<uint16_t[]> inputs(new (std::nothrow) uint16_t[65536]);
    auto* f = inputs ? new (std::nothrow) uint16_t[65536] : nullptr;
    if (f != nullptr) {
      for (uint32_t i = 0; i < 65536; ++i) inputs[i] = static_cast<uint16_t>(i);
      Elementwise(io, formula, false, nullptr, inputs.get(), f, 65536);
    }
    table = f;
  }
  slot.store(table, std::memory_order_release);  // a null table is retried on the next call
  return table;
}

namespace {

void LookupForward(const uint16_t* table, const uint16_t* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

}  // namespace

gelu_status RunElementwise(Io io, common::Formula formula, bool backward, const void* g, const void* x, void* y,
                           size_t n) {
  const size_t size = ElementSize(io);
  const auto v = validate::Elementwise(size, 1, backward, g, x, y, n);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  if (io != kIoF32) {
    const auto* gh = static_cast<const uint16_t*>(g);
    const auto* xh = static_cast<const uint16_t*>(x);
    auto* yh = static_cast<uint16_t*>(y);
    if (const void* table = HalfTable(io, formula, backward ? kTableDerivative : kTableRounded)) {
      if (backward) {
        const auto* t = static_cast<const double*>(table);
        gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
          HWY_DYNAMIC_DISPATCH(LookupBackwardKernel)(io, t, gh + begin, xh + begin, yh + begin, end - begin);
        });
      } else {
        const auto* t = static_cast<const uint16_t*>(table);
        gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
          LookupForward(t, xh + begin, yh + begin, end - begin);
        });
      }
      return GELU_OK;
    }
  }
  const auto* gb = static_cast<const unsigned char*>(g);
  const auto* xb = static_cast<const unsigned char*>(x);
  auto* yb = static_cast<unsigned char*>(y);
  gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
    Elementwise(io, formula, backward, backward ? gb + begin * size : nullptr, xb + begin * size, yb + begin * size,
                end - begin);
  });
  return GELU_OK;
}

}  // namespace cpu
}  // namespace gelu

namespace {
gelu_status Half(gelu::cpu::Io io, bool backward, const uint16_t* g, const uint16_t* x, uint16_t* y, size_t n,
                 gelu_approximate a) {
  if (!gelu::validate::ValidForm(a)) return GELU_INVALID_ARGUMENT;
  return gelu::cpu::RunElementwise(io, gelu::common::FormulaOf(static_cast<gelu::common::Form>(a)), backward, g, x,
                                   y, n);
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
