// SPDX-License-Identifier: Apache-2.0
// Elementwise GELU on a storage type (src/cpu/storage_kernels.h): bf16 / fp16 for every formula, float32 for the
// gelu_fast and gelu_10 variants (the three forms' float32 kernels are src/cpu/gelu_f32.cc). Compiled once per
// Highway target, chosen at run time; plus the bf16/fp16 lookup tables, the threaded driver RunElementwise and the
// C entry points gelu_{forward,backward}_{bf16,f16}.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "src/common/validate.h"
#include "src/cpu/storage_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/cpu/elementwise_storage.cc"  // this file, relative to the repo root
#include "hwy/foreach_target.h"                      // IWYU pragma: keep
#include "hwy/highway.h"
#include "src/cpu/storage_elementwise-inl.h"

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

void ElementwiseKernel(common::Type io, common::Formula formula, bool backward, const void* g, const void* x, void* y,
                       size_t n) {
  VisitIo(io, [&](auto io_tag) HWY_ATTR {
    common::VisitFormula(formula, [&](auto k) HWY_ATTR {
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
void ValueTableKernel(common::Type io, common::Formula formula, bool derivative, double* out) {
  VisitHalfIo(io, [&](auto io_tag) HWY_ATTR {
    common::VisitFormula(formula, [&](auto k) HWY_ATTR {
      using Io = decltype(io_tag);
      return derivative ? ValueTableIo<Io, decltype(k)::value, true>(out) : ValueTableIo<Io, decltype(k)::value, false>(out);
    });
  });
}

// The product g * f with g's NaN (quieted) where both are NaN. Which operand's NaN a multiply returns then is the
// instruction's choice (x86: the first source), and the compiler may swap a multiply's operands, differently in
// each place it inlines one: the lookup paths below would give a vector and its tail different NaNs.
template <class V>
HWY_INLINE V ProductWithGradNaN(V g, V f) {
  return hn::IfThenElse(hn::IsNaN(g), hn::Add(g, g), hn::Mul(g, f));
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
    Io::Store(dd, ProductWithGradNaN(LoadD<Io>(dd, gp), hn::GatherIndex(dd, table, idx)), yp);
  };
  ForEachVector(dd, n, [&](size_t i, size_t count) HWY_ATTR {
    if (count == hn::Lanes(dd)) return one(g + i, x + i, y + i);
    PaddedLanes<uint16_t, kMax> xb, gb, yb;
    one(gb.From(g + i, count), xb.From(x + i, count), yb.lanes);
    yb.To(y + i, count);
  });
}

// The same results in float lanes, on the float-core targets (whose Io::StoreF and Io::NearMidpoint exist): the
// product v = fl32(g * F) of F = ftable[x], the double table's f'(x) rounded to float, is rounded to the type
// unless it lies within kMidpointMargin float ULPs of a rounding midpoint (or is inf or NaN), where the vector is
// redone from the double table (LookupBackwardIo). Why the bits are the double path's: where F is a normal float
// (the table holds NaN elsewhere, but for zeros: cpu::DerivativeTableF32), |v - g f| <= |g f| 2^-24 + ulp(v) / 2
// <= 1.5 ULP of v (the product's own rounding, subnormal v included, and F's relative 2^-24), at most 3 ULPs
// counting across a binade edge, and the double product's error is 2^-53 relative: with a margin of 16 ULPs both
// lie on the same side of every midpoint, so rounding v rounds fl64(g F). Half the gathers of the double table per
// element (16 float lanes where it takes 8 double lanes on AVX-512), and float arithmetic; a vector is redone with
// probability about 1 % on N(0, 1) for bf16 (16 lanes, 33 float ULPs of every 2^16), 6 % for fp16 (33 of every
// 2^13), whose midpoint test is ten float operations: fp16 1.1-1.4x faster than the double table all the same
// (docs/EXPERIMENTS.md, "16-bit lookups").
template <class Io>
HWY_NOINLINE void LookupBackwardFloatIo(const float* ftable, const double* dtable, const uint16_t* g,
                                        const uint16_t* x, uint16_t* y, size_t n) {
  if constexpr (!cpu::RunsFloatCore(HWY_TARGET)) {
    (void)ftable;
    LookupBackwardIo<Io>(dtable, g, x, y, n);
  } else {
    const hn::ScalableTag<float> df;
    const hn::RebindToSigned<decltype(df)> di;
    const hn::Rebind<uint16_t, decltype(df)> d16;
    const size_t N = hn::Lanes(df);
    size_t i = 0;
    const hn::RebindToUnsigned<decltype(df)> du;
    for (; i + N <= n; i += N) {
      const auto index = hn::PromoteTo(di, hn::LoadU(d16, x + i));
      const auto g_loaded = Io::LoadF(df, g + i);
      // A subnormal bf16 grad_out (a float subnormal, 0 < |g| < 2^-126) would cost a microcode assist per lane in
      // the product on x86 (~10x the vector's cost): such lanes multiply 0 here, and the rare branch below forms
      // their product without a subnormal operand. fp16 values are normal floats.
      const auto g_mag_minus_1 =
          hn::Sub(hn::And(hn::BitCast(du, g_loaded), hn::Set(du, 0x7fffffffu)), hn::Set(du, 1));
      const auto tiny_g = std::is_same_v<Io, IoBf16>
                              ? hn::RebindMask(df, hn::Lt(g_mag_minus_1, hn::Set(du, 0x007fffffu)))
                              : hn::FirstN(df, 0);
      const auto f = hn::GatherIndex(df, ftable, index);
      auto v = hn::Mul(hn::IfThenZeroElse(tiny_g, g_loaded), f);
      auto redo = hn::Or(Io::NearMidpoint(df, v), tiny_g);
      if (HWY_UNLIKELY(!hn::AllFalse(df, redo))) {
        if (std::is_same_v<Io, IoBf16> && !hn::AllFalse(df, tiny_g)) {
          // g = m 2^-133 with m its 7 mantissa bits (sign apart), so g 2^64 = m 2^-69 exactly: a normal float made
          // from the integer m, and p = (g 2^64) F, normal. |g F| < 2^-125 (|F| < 1.2), where bf16's quantum is
          // 2^-133 from 0 up and its bits grow by one per quantum, so the result's bits are u = |g F| 2^133 =
          // |p| 2^69 rounded to an integer (ties to even), which u + 2^23 rounds to (float spacing 1 there; the
          // tail's SubnormalFromUnits). Where u lies within 2^-12 of a midpoint the vector is redone; u's error (F's
          // 2^-24 and two roundings, u < 145) stays below 2^-15. No operation has a subnormal operand or result (a
          // multiply with a subnormal result took 2.2x the vector's time on Zen 4).
          const auto m = hn::ConvertTo(df, hn::BitCast(di, hn::And(hn::ShiftRight<16>(hn::BitCast(du, g_loaded)),
                                                                   hn::Set(du, 0x7fu))));
          const auto u = hn::Mul(hn::Abs(hn::Mul(hn::Mul(m, hn::Set(df, 0x1p-69f)), f)), hn::Set(df, 0x1p69f));
          const auto shifted = hn::Add(u, hn::Set(df, 0x1p23f));
          const auto distance = hn::Abs(hn::Sub(u, hn::Sub(shifted, hn::Set(df, 0x1p23f))));  // exact, <= 1/2
          const auto near = hn::Not(hn::Lt(distance, hn::Set(df, 0.5f - 0x1p-12f)));  // NaN u too
          const auto magnitude = hn::ShiftLeft<16>(hn::Sub(hn::BitCast(du, shifted), hn::Set(du, 0x4B000000u)));
          const auto sign = hn::And(hn::Xor(hn::BitCast(du, g_loaded), hn::BitCast(du, f)), hn::Set(du, 0x80000000u));
          const auto tiny_v = hn::BitCast(df, hn::Or(magnitude, sign));
          // NaN F (NaN x, or the table's redo marker): u NaN, near; the NaN x lanes take v's NaN below.
          const auto tiny_redo = hn::And(tiny_g, near);
          v = hn::IfThenElse(hn::AndNot(hn::IsNaN(f), tiny_g), tiny_v, v);
          redo = hn::Or(hn::AndNot(tiny_g, redo), tiny_redo);
        }
        // A NaN x or grad_out (NearMidpoint counts every NaN v) needs no redo: v is then the double path's NaN,
        // g's quieted where g is NaN (set here: ProductWithGradNaN), else F's, which is x's quieted (the double
        // table's NaN, whose float has the type's payload bits only: bf16's StoreF rounding and fp16's conversion
        // keep them, as the double path's store does). The table's own NaNs (DerivativeTableF32, a finite x) are
        // redone.
        const auto nan_g = hn::IsNaN(g_loaded);
        v = hn::IfThenElse(nan_g, hn::Add(g_loaded, g_loaded), v);
        const auto nan_input = hn::Or(nan_g, hn::IsNaN(Io::LoadF(df, x + i)));
        redo = hn::AndNot(nan_input, redo);
        if (HWY_UNLIKELY(!hn::AllFalse(df, redo))) {
          LookupBackwardIo<Io>(dtable, g + i, x + i, y + i, N);  // reads the vector's inputs before it writes
          continue;
        }
      }
      Io::StoreF(df, v, y + i);
    }
    if (i < n) LookupBackwardIo<Io>(dtable, g + i, x + i, y + i, n - i);
  }
}
void LookupBackwardKernel(common::Type io, const float* ftable, const double* dtable, const uint16_t* g,
                          const uint16_t* x, uint16_t* y, size_t n) {
  VisitHalfIo(io, [&](auto io_tag) HWY_ATTR { LookupBackwardFloatIo<decltype(io_tag)>(ftable, dtable, g, x, y, n); });
}

// y[i] = table[x[i]] (LookupForwardLoop, src/cpu/storage_elementwise-inl.h).
HWY_NOINLINE void LookupForwardKernel(const uint16_t* table, const uint16_t* x, uint16_t* y, size_t n, bool gather) {
  LookupForwardLoop(table, x, y, n, gather);
}
bool LookupForwardCanGather() { return kLookupForwardCanGather; }

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <new>

#include "hwy/targets.h"
#include "src/parallel/parallel.h"

namespace gelu {
HWY_EXPORT(ElementwiseKernel);
HWY_EXPORT(ValueTableKernel);
HWY_EXPORT(LookupBackwardKernel);
HWY_EXPORT(LookupForwardKernel);
HWY_EXPORT(LookupForwardCanGather);

namespace cpu {

void Elementwise(common::Type io, common::Formula formula, bool backward, const void* g, const void* x, void* y,
                 size_t n) {
  HWY_DYNAMIC_DISPATCH(ElementwiseKernel)(io, formula, backward, g, x, y, n);
}

namespace {

// Lookup tables for the half types. A bf16/fp16 input has only 65,536 values, so f (rounded to the type, for
// gelu_forward_*), and f and f' in double (before the multiplications of the backward and GEGLU, and the final
// rounding) are computed once per type and form -- by the very kernels above, over all inputs -- and arrays then
// cost one load per element (forward) or a gather, the multiplications and the rounding, instead of ~50 double
// operations per element. The results are the kernels' bits by construction (the backward's float table too:
// LookupBackwardFloatIo). A table is built on first use (about a millisecond), 128 KiB (rounded f), 256 KiB (f'
// in float) or 512 KiB (double), and kept for the life of the process. Tables
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

std::atomic<const void*>& TableSlot(common::Type io, common::Formula formula, HalfTableKind which) {
  return g_tables[CurrentTargetIndex()][io == common::kBf16 ? 0 : 1][static_cast<int>(formula)][which];
}

// The float table of f' (kTableDerivativeF32) from the double one: F rounded to float where that is zero or a
// normal float, which LookupBackwardFloatIo's error bound needs (relative 2^-24). Below a type's zero threshold Z
// the result is a zero with the product's sign for every finite g, and a zero with F's sign gives it (0 * inf is
// NaN, which the midpoint test sends to the double table, as it does NaN g): bf16, Z = 2^-262 (every x below about
// -19.06; the double path's far derivative is -2^-1022), where |g F| < 2^128 2^-262 lies below half of bf16's
// least subnormal 2^-133; fp16, Z = 2^-42 (part of the far negative tail), where |g F| < 2^16 2^-42 = 2^-26 lies
// below half of fp16's least subnormal 2^-25, and the conversion to fp16 then takes a zero, not a float below
// fp16's range (vcvtps2ph of such floats cost the far-tail classes 2.1-2.4x their N(0, 1) on Zen 4). A NaN F
// (NaN x) keeps its payload: the float product then gives the double path's NaN (LookupBackwardFloatIo). NaN where
// |F| is in [Z, 2^-126) (bf16 only; empty for fp16), where the float product would lose the bound, so that the
// product is NaN and the vector is redone from the double table.
float DerivativeTableF32(double f, common::Type io) {
  if (std::fabs(f) < (io == common::kBf16 ? 0x1p-262 : 0x1p-42)) return std::signbit(f) ? -0.0f : 0.0f;
  if (f == 0 || std::isnan(f) || std::fabs(f) >= 0x1p-126) return static_cast<float>(f);
  return std::numeric_limits<float>::quiet_NaN();
}

// HalfTable with g_tables_mutex held.
const void* HalfTableLocked(common::Type io, common::Formula formula, HalfTableKind which) {
  std::atomic<const void*>& slot = TableSlot(io, formula, which);
  if (const void* t = slot.load(std::memory_order_relaxed)) return t;
  const void* table = nullptr;
  if (which == kTableForward || which == kTableDerivative) {
    auto* d = new (std::nothrow) double[65536];
    if (d != nullptr) HWY_DYNAMIC_DISPATCH(ValueTableKernel)(io, formula, which == kTableDerivative, d);
    table = d;
  } else if (which == kTableDerivativeF32) {
    const auto* d = static_cast<const double*>(HalfTableLocked(io, formula, kTableDerivative));
    auto* f = d != nullptr ? new (std::nothrow) float[65536] : nullptr;
    if (f != nullptr) {
      for (size_t i = 0; i < 65536; ++i) f[i] = DerivativeTableF32(d[i], io);
    }
    table = f;
  } else {
    const std::unique_ptr<uint16_t[]> inputs(new (std::nothrow) uint16_t[65536]);
    auto* f = inputs ? new (std::nothrow) uint16_t[kRoundedTableEntries]() : nullptr;
    if (f != nullptr) {
      for (uint32_t i = 0; i < 65536; ++i) inputs[i] = static_cast<uint16_t>(i);
      Elementwise(io, formula, false, nullptr, inputs.get(), f, 65536);
    }
    table = f;
  }
  slot.store(table, std::memory_order_release);  // a null table is retried on the next call
  return table;
}

}  // namespace

const void* HalfTable(common::Type io, common::Formula formula, HalfTableKind which) {
  if (const void* t = TableSlot(io, formula, which).load(std::memory_order_acquire)) return t;
  const std::lock_guard<std::mutex> lock(g_tables_mutex);
  return HalfTableLocked(io, formula, which);
}

void LookupForward(const uint16_t* table, const uint16_t* x, uint16_t* y, size_t n, bool gather) {
  HWY_DYNAMIC_DISPATCH(LookupForwardKernel)(table, x, y, n, gather);
}

bool ForwardLookupGathers(const uint16_t* table) {
  // Per target: 0 not timed yet, 1 the four lookups, 2 the gather. Threads that time it at once may choose
  // differently; either way gives the same bits.
  static std::atomic<int> choice[kMaxTargets];
  std::atomic<int>& slot = choice[CurrentTargetIndex()];
  if (const int known = slot.load(std::memory_order_relaxed)) return known == 2;
  bool gather = false;
  if (HWY_DYNAMIC_DISPATCH(LookupForwardCanGather)()) {
    // 16 Ki inputs spread over the encodings of |v| in about [2^-31, 8) of both signs in bf16 (a band that real
    // activations' lookups stay in), five runs of each way alternated, the faster best run wins: ~50 us once.
    constexpr size_t kInputs = 16384;
    const std::unique_ptr<uint16_t[]> x(new (std::nothrow) uint16_t[2 * kInputs]);
    if (x) {
      uint32_t state = 0x9e3779b9u;
      for (size_t i = 0; i < kInputs; ++i) {
        state = state * 1664525u + 1013904223u;
        x[i] = static_cast<uint16_t>(0x3000u + (state >> 8) % 0x1100u) | static_cast<uint16_t>((state >> 31) << 15);
      }
      uint16_t* y = x.get() + kInputs;
      double best[2] = {1e30, 1e30};
      for (int run = 0; run < 10; ++run) {
        const int way = run % 2;
        const auto start = std::chrono::steady_clock::now();
        LookupForward(table, x.get(), y, kInputs, way == 1);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best[way] = std::min(best[way], took.count());
      }
      gather = best[1] < best[0];
    }
  }
  slot.store(gather ? 2 : 1, std::memory_order_relaxed);
  return gather;
}

gelu_status RunElementwise(common::Type io, common::Formula formula, bool backward, const void* g, const void* x,
                           void* y, size_t n) {
  const size_t size = common::TypeSize(io);
  const auto v = validate::Elementwise(size, 1, backward, g, x, y, n);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  if (io != common::kF32) {
    const auto* gh = static_cast<const uint16_t*>(g);
    const auto* xh = static_cast<const uint16_t*>(x);
    auto* yh = static_cast<uint16_t*>(y);
    if (backward) {
      // The float table (LookupBackwardFloatIo) first: it builds the double one too.
      const auto* f = static_cast<const float*>(HalfTable(io, formula, kTableDerivativeF32));
      const auto* d = static_cast<const double*>(HalfTable(io, formula, kTableDerivative));
      if (f != nullptr && d != nullptr) {
        gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
          HWY_DYNAMIC_DISPATCH(LookupBackwardKernel)(io, f, d, gh + begin, xh + begin, yh + begin, end - begin);
        });
        return GELU_OK;
      }
    } else if (const auto* t = static_cast<const uint16_t*>(HalfTable(io, formula, kTableRounded))) {
      const bool gather = ForwardLookupGathers(t);
      gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
        LookupForward(t, xh + begin, yh + begin, end - begin, gather);
      });
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
gelu_status Half(gelu::common::Type io, bool backward, const uint16_t* g, const uint16_t* x, uint16_t* y, size_t n,
                 gelu_approximate a) {
  if (!gelu::validate::ValidForm(a)) return GELU_INVALID_ARGUMENT;
  return gelu::cpu::RunElementwise(io, gelu::common::FormulaOf(a), backward, g, x,
                                   y, n);
}
}  // namespace

extern "C" {

gelu_status gelu_forward_bf16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate) {
  return Half(gelu::common::kBf16, false, nullptr, x, y, n, approximate);
}
gelu_status gelu_backward_bf16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                               gelu_approximate approximate) {
  return Half(gelu::common::kBf16, true, grad_out, x, grad_in, n, approximate);
}
gelu_status gelu_forward_f16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate) {
  return Half(gelu::common::kF16, false, nullptr, x, y, n, approximate);
}
gelu_status gelu_backward_f16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                              gelu_approximate approximate) {
  return Half(gelu::common::kF16, true, grad_out, x, grad_in, n, approximate);
}

}  // extern "C"
#endif  // HWY_ONCE
