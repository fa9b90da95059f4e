// SPDX-License-Identifier: Apache-2.0
// Per-target vector GELU (Highway). Included once per target by src/cpu/gelu_f32.cc via foreach_target.h, and
// by tests. The math is not written here: the float core and tail (src/common/gelu_f32_core.inc) and the double
// path (src/common/gelu_in_double.inc) are the sources the scalar path and CUDA compile too, instantiated here
// with a Highway operations policy (HwyOps), so their derivation, error bounds and special values hold here and on
// targets with native FMA the bits are identical to the scalar path (tests/gelu_f32_test.cc checks it on sampled
// inputs, and tests/gelu_exhaustive_test.cc checks every target against the reference over all 2^32 inputs). This
// file holds the loops: which lanes take which path, compaction, padding; the policy is src/cpu/hwy_ops-inl.h.

// Toggle guard, as Highway's skeleton-inl.h: this header is re-included once per target.
#if defined(GELU_SRC_CPU_GELU_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_GELU_INL_H_
#undef GELU_SRC_CPU_GELU_INL_H_
#else
#define GELU_SRC_CPU_GELU_INL_H_
#endif

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "src/common/coefficients.h"
#include "src/common/gelu_f32_math.h"
#include "src/cpu/float_core_targets.h"
#include "src/cpu/hwy_ops-inl.h"  // HwyOps, DemoteToF32
#include "src/cpu/padding-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The polynomial evaluators, then InCore, CoreF32, TailF32 for this target (the source the scalar path and CUDA
// share).
#include "src/common/polynomial.inc"
#include "src/common/gelu_f32_core.inc"
// The double path (ExactForm, SigmoidForm, DoublePathGeneral, DoublePath, ...) for this target: the source of
// common::DoublePathScalar.
#include "src/common/gelu_in_double.inc"

// The lanes of one vector that TailF32 leaves invalid (rare: backward lanes past kTailTMax whose result may not
// round to 0, a tiny grad_out, an overflowing product; NaN and the zeros below -kTailZeroFrom never reach the tail,
// GeluF32Block selects TailZeroOrNaN for them): the proven double path, y = f(x) or g * f'(x) in double rounded
// once, as common::ForwardF32ViaDoublePath / BackwardF32ViaDoublePath.
template <common::Form kForm, bool kBackward, class DF, class V = hn::Vec<DF>>
HWY_NOINLINE V FallbackLanesF32(DF df, V x, V g) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> dh;  // half of a float vector, promoted to a double vector
  constexpr size_t kLanes = hn::MaxLanes(df);
  HWY_ALIGN float xs[kLanes], gs[kLanes], ys[kLanes];
  hn::Store(x, df, xs);
  hn::Store(g, df, gs);
  for (size_t k = 0; k < hn::Lanes(df); k += hn::Lanes(dd)) {
    auto v = DoublePathGeneral<kForm, kBackward>(HwyOps<decltype(dd)>{dd}, hn::PromoteTo(dd, hn::Load(dh, xs + k)));
    if constexpr (kBackward) v = hn::Mul(hn::PromoteTo(dd, hn::Load(dh, gs + k)), v);
    hn::Store(DemoteToF32(dh, v), dh, ys + k);
  }
  return hn::Load(df, ys);
}

// One vector of compacted tail lanes (never NaN or x <= -kTailZeroFrom: GeluF32Block selects those,
// TailZeroOrNaN): TailF32, and where it is invalid the double path.
template <common::Form kForm, bool kBackward, class DF, class V = hn::Vec<DF>>
HWY_INLINE V TailWithFallback(const HwyOps<DF>& o, V xv, V gv, hn::Mask<DF> tail) {
  hn::Mask<DF> valid;
  V value = gelu::HWY_NAMESPACE::TailF32<kForm, kBackward>(o, xv, gv, valid);
  const auto redo = hn::AndNot(valid, tail);
  if (HWY_UNLIKELY(!hn::AllFalse(o.d, redo))) {
    value = hn::IfThenElse(redo, FallbackLanesF32<kForm, kBackward>(o.d, xv, gv), value);
  }
  return value;
}

// The core range [kCoreMin, kCoreEnd) as a window of the bits of x + kCoreShifter (which CoreF32 computes too, so
// the add is shared): OutsideCore, the complement of InCore (NaN included), is then two integer operations instead
// of two compares and a mask AND, off the FMA and permute pipes that bound the loop (docs/EXPERIMENTS.md).
// x + 0x1.8p21 rounds x to a multiple of 1/4, ties to even, so while |x| < 2^20 its bits are bits(0x1.8p21) +
// round(4x), and the core is exactly round(4x) in [-16, 15]
// (x = -4.125 rounds to -16, x = 3.875 to 16). Every other input (|x| >= 2^20, +-inf, NaN) gives a sum of another
// sign, in another binade, or with round(4x) >= 2^22: bits far from that window of 32. Same lanes as InCore: the
// kernels' bits did not change (all 2^32 inputs compared), and the exhaustive suite covers every input.
// CoreWindowOffset is a lane's place in that window, round(4x) - 4 (kCoreMin + 1/8), in [0, kCoreColumns) exactly
// for the core's lanes (unsigned: the lanes below the window wrap around past it).
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> CoreWindowOffset(DF df, hn::Vec<DF> x) {
  const hn::RebindToUnsigned<DF> du;
  // The window, from the core's constants: it starts at 4 times the first interval's centre kCoreMin + 1/8 and
  // spans the kCoreColumns intervals. Premises: the shifter's float spacing is 1/4 (it lies in [2^21, 2^22)) and
  // the core range is kCoreColumns intervals of width 1/4.
  static_assert(common::kCoreShifter >= 0x1p21f && common::kCoreShifter < 0x1p22f &&
                (common::kCoreEnd - common::kCoreMin) * 4 == common::kCoreColumns,
                "OutsideCore assumes the 1/4 grid of x + kCoreShifter over kCoreColumns intervals");
  constexpr int32_t kFirstCentreTimes4 = static_cast<int32_t>(4 * common::kCoreMin + 0.5f);
  constexpr uint32_t kWindowStart =
      std::bit_cast<uint32_t>(common::kCoreShifter) + static_cast<uint32_t>(kFirstCentreTimes4);
  const auto bits = hn::BitCast(du, hn::Add(x, hn::Set(df, common::kCoreShifter)));
  return hn::Sub(bits, hn::Set(du, kWindowStart));
}
// The lanes outside the core: past the window's last interval.
template <class DF>
HWY_INLINE hn::Mask<DF> OutsideCore(DF df, hn::Vec<DF> x) {
  const hn::RebindToUnsigned<DF> du;
  return hn::RebindMask(
      df, hn::Gt(CoreWindowOffset(df, x), hn::Set(du, static_cast<uint32_t>(common::kCoreColumns - 1))));
}
// Whether any lane of x is outside the core (!AllFalse(OutsideCore)). AVX2: one vptest of the window offset
// against ~(kCoreColumns - 1) instead of the unsigned compare (three operations, GCC 12) and a vmovmskps, the
// mask computed only in the branch that needs it: fewer operations for the vectors with every lane in the core
// (most of N(0,1)'s), a little more for tail-heavy data, where nearly every vector takes the branch
// (docs/EXPERIMENTS.md).
template <class DF>
HWY_INLINE bool AnyOutsideCore(DF df, hn::Vec<DF> x) {
#if HWY_TARGET == HWY_AVX2
  static_assert((common::kCoreColumns & (common::kCoreColumns - 1)) == 0, "a power-of-two window");
  return !_mm256_testz_si256(CoreWindowOffset(df, x).raw, _mm256_set1_epi32(~(common::kCoreColumns - 1)));
#else
  return !hn::AllFalse(df, OutsideCore(df, x));
#endif
}

// Prefetches the cache line kPrefetchAhead floats past p, for reading (x, grad_out) or for writing (y: no
// read-for-ownership stall at the store). Beyond L2 the hardware prefetcher alone leaves the AVX-512 loop
// waiting: its compute and the memory traffic do not overlap. 512 floats (32 lines) ahead covers the memory
// latency at the loop's rate; nearer gains less, farther no more; in cache it is neutral (docs/EXPERIMENTS.md,
// "Prefetch"). The address is formed as an integer because it may lie past the end of the array, where a
// prefetch does not fault but pointer arithmetic is undefined. AVX-512 only: the AVX2 loop runs far below the
// memory's rate, so the prefetches only add operations there.
constexpr bool kPrefetch = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;
constexpr uintptr_t kPrefetchAhead = 512;
constexpr size_t kFloatsPerLine = 64 / sizeof(float);  // one prefetch per line and stream
HWY_INLINE void PrefetchAhead(const float* p, bool for_write) {
  const auto ahead = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(p) + kPrefetchAhead * sizeof(float));
  if (for_write) {
    __builtin_prefetch(ahead, 1);
  } else {
    hwy::Prefetch(ahead);
  }
}

#if HWY_TARGET == HWY_AVX2
// AVX2's compaction and expansion by vpermps, their lane indices one byte each in one word per 8-bit mask, made at
// compile time. compact[m]: lane k takes the k-th lane selected by m; expand[m]: lane i (selected) takes the
// number of selected lanes below i. One vpmovzxbd widens a word to the 8 indices (one operation, where 4-bit
// indices need a broadcast, a shift and an AND). (Highway 1.0.3's Compress uses the same method, but its table is
// a local constexpr array that GCC 12 copies to the stack, 1 KiB, on every call; docs/EXPERIMENTS.md.)
struct LaneIndexTables {
  uint64_t compact[256];
  uint64_t expand[256];
};
constexpr LaneIndexTables MakeLaneIndexTables() {
  LaneIndexTables t{};
  for (uint64_t m = 0; m < 256; ++m) {
    uint64_t count = 0;
    for (uint64_t i = 0; i < 8; ++i) {
      if ((m >> i) & 1) {
        t.compact[m] |= i << (8 * count);
        t.expand[m] |= count << (8 * i);
        ++count;
      }
    }
  }
  return t;
}
inline constexpr LaneIndexTables kLaneIndices = MakeLaneIndexTables();
// The 8 lane indices packed in a word (lane i in byte i), for vpermps.
HWY_INLINE __m256i UnpackLaneIndices(uint64_t packed) {
  return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(packed)));
}
#endif

// The lanes of a mask as bits (lane i in bit i), and the compaction of the lanes of v that a mask (and its bits)
// selects to the front of dst (writing a whole vector; the buffers have a vector of slack). AVX-512: the mask
// register and vcompressps; AVX2: movmskps and a vpermps (kLaneIndices); NEON and SVE: Highway's mask bits and
// Compress (SVE: COMPACT). These and ExpandLanes serve the float-core targets only (float_core_targets.h): other
// targets never instantiate them (the static_asserts' sizeof(DF) defers the check to instantiation).
// LaneBits holds a vector's: up to 64 float lanes (SVE and SVE2 at 2048 bits), 16 at most elsewhere.
using LaneBits = std::conditional_t<(HWY_MAX_BYTES / sizeof(float) > 32), uint64_t, uint32_t>;
template <class DF>
HWY_INLINE LaneBits MaskBits(DF df, hn::Mask<DF> m) {
  static_assert(cpu::RunsFloatCore(HWY_TARGET) && sizeof(DF) > 0, "the float-core loop's targets");
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  (void)df;
  return m.raw;
#elif HWY_ARCH_ARM_A64
  uint8_t bytes[8] = {};  // StoreMaskBits writes ceil(lanes / 8) bytes, lane i in bit i (little-endian)
  hn::StoreMaskBits(df, m, bytes);
  LaneBits bits = 0;
  for (size_t i = 0; i < sizeof(LaneBits); ++i) bits |= static_cast<LaneBits>(bytes[i]) << (8 * i);
  return bits;
#else
  return static_cast<uint32_t>(_mm256_movemask_ps(hn::VecFromMask(df, m).raw));
#endif
}
template <class DF>
HWY_INLINE void CompactLanes(hn::Vec<DF> v, hn::Mask<DF> m, LaneBits bits, float* dst) {
  static_assert(cpu::RunsFloatCore(HWY_TARGET) && sizeof(DF) > 0, "the float-core loop's targets");
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  (void)bits;
  _mm512_storeu_ps(dst, _mm512_maskz_compress_ps(m.raw, v.raw));
#elif HWY_TARGET == HWY_AVX2
  (void)m;
  _mm256_storeu_ps(dst, _mm256_permutevar8x32_ps(v.raw, UnpackLaneIndices(kLaneIndices.compact[bits])));
#elif HWY_ARCH_ARM_A64
  (void)bits;
  hn::StoreU(hn::Compress(v, m), DF(), dst);
#else
  (void)v, (void)m, (void)bits, (void)dst;
#endif
}
// The inverse: the first popcount(bits) values of src into the lanes of dst that bits selects, the other lanes of
// dst kept (src has a vector of slack). AVX-512: vexpandps (Highway 1.0.3 has Compress but no Expand). AVX2: a
// vpermps (kLaneIndices) and a blend, rather than a store per lane looped over the bits (a trip count that varies
// from vector to vector).
template <class DF>
HWY_INLINE void ExpandLanes(DF, LaneBits bits, const float* src, float* dst) {
  static_assert(cpu::RunsFloatCore(HWY_TARGET) && sizeof(DF) > 0, "the float-core loop's targets");
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  const auto lanes = static_cast<__mmask16>(bits);
  _mm512_storeu_ps(dst, _mm512_mask_expand_ps(_mm512_loadu_ps(dst), lanes, _mm512_loadu_ps(src)));
#elif HWY_TARGET == HWY_AVX2
  const __m256i index = UnpackLaneIndices(kLaneIndices.expand[bits]);
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i selected =
      _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), lane_bit), lane_bit);
  const __m256 expanded = _mm256_permutevar8x32_ps(_mm256_loadu_ps(src), index);
  _mm256_storeu_ps(dst, _mm256_blendv_ps(_mm256_loadu_ps(dst), expanded, _mm256_castsi256_ps(selected)));
#elif HWY_ARCH_ARM_A64
  // A store per selected lane (Highway 1.0.3 has no Expand): NEON's 4 lanes; SVE's tail lanes are few on N(0,1).
  for (LaneBits b = bits; b != 0; b &= b - 1) dst[__builtin_ctzll(b)] = *src++;
#else
  (void)bits, (void)src, (void)dst;
#endif
}

// The tail lanes of one block of at most kTailBlock elements, gathered by GeluF32Run into tail_x (tail_g) by
// CompactLanes, `tails` of them. Runs them a vector at a time and puts each result in place (ExpandLanes) over
// the core results already stored in yb. Out of line, so that the loop of GeluF32Run keeps its registers for the
// core's tables.
// 1024 rather than 256: faster on tail-heavy data, N(0,1) unchanged (docs/EXPERIMENTS.md). Likely cause: the
// tail loop's 64-byte loads each overlap several of the unaligned compress stores,
// which the store buffer cannot forward; with a longer block those stores have left it when the loads come.
constexpr size_t kTailBlock = 1024;
// The tail buffers' length: a block and a vector of slack (CompactLanes and the padding write whole vectors).
constexpr size_t kTailBuffer = kTailBlock + HWY_MAX_BYTES / sizeof(float);
template <common::Form kForm, bool kBackward>
HWY_NOINLINE void GeluF32BlockTails(float* tail_x, float* tail_g, size_t tails, const LaneBits* tail_masks,
                                    size_t block, float* yb) {
  const hn::ScalableTag<float> df;
  const HwyOps<decltype(df)> o{df};
  const size_t N = hn::Lanes(df);
  HWY_ALIGN float tail_y[kTailBuffer];
  for (size_t k = tails; k % N != 0; ++k) {
    tail_x[k] = common::kCoreEnd;  // padding lanes: a valid input of the tail, results unused
    if constexpr (kBackward) tail_g[k] = 1.0f;
  }
  const auto every_lane = hn::FirstN(df, N);  // compacted vectors hold tail lanes only (padding included)
  for (size_t k = 0; k < tails; k += N) {
    const auto xv = hn::Load(df, tail_x + k);
    const auto gv = kBackward ? hn::Load(df, tail_g + k) : hn::Set(df, 1.0f);
    hn::Store(TailWithFallback<kForm, kBackward>(o, xv, gv, every_lane), df, tail_y + k);
  }
  size_t used = 0;
  for (size_t i = 0; i < block; i += N) {
    const LaneBits m = tail_masks[i / N];
    if (m == 0) continue;
    ExpandLanes(df, m, tail_y + used, yb + i);
    used += static_cast<size_t>(__builtin_popcountll(m));
  }
}

// The least |x| of vectors of x, to tell whether any may be tiny (IsTiny: |x| < 2^-40, zeros and subnormals
// included): a vector that LesserMagnitude folds each vector of x into, from NoMagnitude(), and MayBeTiny tests.
// AVX-512: the magnitudes as floats, one vrangeps a vector (the lesser magnitude; a quiet NaN operand gives the
// other, a signalling one a NaN, which MayBeTiny counts as tiny: a block the tiny path serves as well, only
// slower). Elsewhere the bits of |x| in integer lanes (a NaN's exceed every number's, so a NaN never hides a tiny
// lane, as a float minimum would on Arm). Free functions on a vector, not a struct: SVE's vectors cannot be
// members.
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
using MagnitudeVec = hn::Vec<hn::ScalableTag<float>>;
HWY_INLINE MagnitudeVec NoMagnitude() { return hn::Set(hn::ScalableTag<float>(), HUGE_VALF); }
HWY_INLINE MagnitudeVec LesserMagnitude(MagnitudeVec least, const float* p) {
  constexpr int kLesserMagnitude = 0x0a;  // vrangeps: the lesser magnitude, sign cleared
  return MagnitudeVec{_mm512_range_ps(_mm512_loadu_ps(p), least.raw, kLesserMagnitude)};
}
HWY_INLINE bool MayBeTiny(MagnitudeVec least) {
  const hn::ScalableTag<float> df;
  return !hn::AllTrue(df, hn::Ge(least, hn::Set(df, common::kCoreTinyBelow)));
}
#else
using MagnitudeVec = hn::Vec<hn::RebindToSigned<hn::ScalableTag<float>>>;
HWY_INLINE MagnitudeVec NoMagnitude() { return hn::Set(hn::RebindToSigned<hn::ScalableTag<float>>(), 0x7fffffff); }
HWY_INLINE MagnitudeVec LesserMagnitude(MagnitudeVec least, const float* p) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  return hn::Min(least, hn::And(hn::BitCast(di, hn::LoadU(df, p)), hn::Set(di, 0x7fffffff)));
}
HWY_INLINE bool MayBeTiny(MagnitudeVec least) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  return !hn::AllFalse(di, hn::Lt(least, hn::BitCast(di, hn::Set(df, common::kCoreTinyBelow))));
}
#endif
// Whether any of the `count` elements of x (a multiple of the vector length) may be tiny.
HWY_INLINE bool AnyTiny(const float* x, size_t count) {
  MagnitudeVec least = NoMagnitude();
  for (size_t i = 0; i < count; i += hn::Lanes(hn::ScalableTag<float>())) least = LesserMagnitude(least, x + i);
  return MayBeTiny(least);
}

// Whether any of the `count` elements of x (a multiple of the vector length) is tiny and not zero: exact. Zeros
// need no tiny path: the core at x = +-0 has d = 0 and every product a zero, no subnormal operand, and gives the
// tiny path's bits (+-0 forward, grad_out / 2 rounded to nearest even backward; src/common/gelu_f32_math.h), so a
// block of normal data with zeros among it (padding, masked or ReLU-like activations) keeps the core's plain path.
// Integer lanes: the bits of |x| less 1, unsigned, so that a zero wraps past every other pattern.
// The scans that count zeros as tiny (LesserMagnitude, AnyTiny: one operation a vector) come first; a block they
// flag is scanned again by this at the start of its run, before its tiny path is chosen. Out of line, and called
// there: inline, or called where the scan's result is formed, the same instructions of the block loop came out
// allocated and scheduled otherwise and the exact and tanh backwards ran 0.91-0.95x on N(0, 1) (Zen 4, AVX3;
// docs/EXPERIMENTS.md).
inline HWY_NOINLINE bool AnyNonzeroTiny(const float* x, size_t count) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const auto magnitude_bits = hn::Set(du, 0x7fffffffu);
  const auto one = hn::Set(du, 1u);
  auto least = hn::Set(du, ~0u);
  for (size_t i = 0; i < count; i += hn::Lanes(df)) {
    least = hn::Min(least, hn::Sub(hn::And(hn::BitCast(du, hn::LoadU(df, x + i)), magnitude_bits), one));
  }
  return !hn::AllFalse(du, hn::Gt(hn::Set(du, std::bit_cast<uint32_t>(common::kCoreTinyBelow) - 1u), least));
}

// The head and tail of the core's derivative at x = v in every lane, as CoreF32 forms them (IntervalsF32): a tiny
// lane's backward is SignedTimesHeadTail(grad_out, head, tail) at v = AwayFromTiny(x) = +-kCoreTinyBelow.
template <common::Form kForm, class DF>
HWY_INLINE void CoreDerivativeAt(const HwyOps<DF>& o, float v, hn::Vec<DF>& head, hn::Vec<DF>& tail) {
  const auto x = hn::Set(o.d, v);
  const auto shifted = hn::Add(x, hn::Set(o.d, common::kCoreShifter));
  gelu::HWY_NAMESPACE::IntervalsF32<kForm, true, common::kCoreRowsKind>(o, x, shifted, o.Column(shifted), head,
                                                                       tail);
}

// One block of GeluF32Run: every vector with a lane in the core runs the core in place (OutsideCore finds its lanes
// outside the core: rare on N(0,1)). Of those, identity lanes take x or grad_out at once, NaN and the zeros below
// -kTailZeroFrom TailZeroOrNaN's result, and the other tail lanes are compacted into tail_x (tail_g), their masks
// into tail_masks, their count into tails. The core lanes are not compacted: a vcompressps or vexpandps costs about
// half the core's own evaluation per vector, so the core is cheaper in place (docs/EXPERIMENTS.md).
// kTiny: the block holds a tiny x other than zero (MayBeTiny or AnyTiny, then AnyNonzeroTiny); the core then
// evaluates AwayFromTiny(x), and the forward selects HalfOfTiny(x) for them (src/common/gelu_f32_math.h,
// kCoreTinyBelow, says why); without such lanes AwayFromTiny(x) = x but for zeros, whose bits the core gives as they
// are, so the other blocks skip it.
// kScanNext: the next block is as long as this one, and `next` (its x) is scanned on the way (LesserMagnitude), so
// that the read for the tiny test runs among the core's operations, on the ports the permutes leave free, instead
// of in a loop of its own, which cost N(0, 1) more (docs/EXPERIMENTS.md, "Tiny inputs").
// kSkipCore: the block tests first whether a vector needs the core, and runs it only for those that do. A vector
// of NaN, infinities, tails or identity lanes alone (masked or poisoned buffers, tail-band data) then costs its
// selections only; in a kTiny block, a vector of tiny lanes only (tiny activations, subnormal x) takes
// HalfOfTiny(x), or in the backward the core's derivative at +-kCoreTinyBelow (CoreDerivativeAt, formed once a
// block). Without the variant such vectors run the core first: the tests before the core cost every vector that
// needs it (N(0, 1) 0.85x with the first test in every block, Zen 4, AVX3: GCC then keeps fewer constants in
// registers and starts the core later; docs/EXPERIMENTS.md), so GeluF32Run takes this variant only after a block of
// many such vectors, which every block counts (`no_core`: in the branch of vectors with lanes outside the core,
// and where the tiny lanes are selected). The bits are the same either way: each lane's result comes from its own
// input.
// Returns the next block's least magnitude (NoMagnitude() without kScanNext).
template <common::Form kForm, bool kBackward, bool kTiny, bool kScanNext, bool kSkipCore>
HWY_INLINE MagnitudeVec GeluF32Block(const float* g, const float* x, float* y, size_t block, float* tail_x,
                                     float* tail_g, LaneBits* tail_masks, size_t& tails, size_t& no_core,
                                     const float* next) {
  const hn::ScalableTag<float> df;
  const HwyOps<decltype(df)> o{df};
  const size_t N = hn::Lanes(df);
  MagnitudeVec next_least = NoMagnitude();
  tails = 0;
  no_core = 0;
  // The backward of a vector of tiny lanes only: the core's derivative at +-kCoreTinyBelow, formed once a block.
  hn::Vec<decltype(df)> tiny_head_up, tiny_tail_up, tiny_head_down, tiny_tail_down;
  if constexpr (kTiny && kBackward && kSkipCore) {
    CoreDerivativeAt<kForm>(o, common::kCoreTinyBelow, tiny_head_up, tiny_tail_up);
    CoreDerivativeAt<kForm>(o, -common::kCoreTinyBelow, tiny_head_down, tiny_tail_down);
  }
  for (size_t i = 0; i < block; i += N) {
    if constexpr (kScanNext) next_least = LesserMagnitude(next_least, next + i);
    if (kPrefetch && i % kFloatsPerLine == 0) {
      PrefetchAhead(x + i, false);
      if constexpr (kBackward) PrefetchAhead(g + i, false);
      PrefetchAhead(y + i, true);
    }
    const auto xv = hn::LoadU(df, x + i);
    const auto gv = kBackward ? hn::LoadU(df, g + i) : hn::Set(df, 1.0f);
    if constexpr (kTiny) {
      // A vector of tiny lanes only (tiny activations, subnormal x): the forward is HalfOfTiny(x) in every lane, the
      // backward the core's at AwayFromTiny(x), +-kCoreTinyBelow by x's sign bit (-0 included), from the heads and
      // tails formed above; the core itself not needed. Tested in the kSkipCore variant only (the test costs the
      // mixed vectors of zeros among normal data 0.83-0.91x on AVX3); the other tiny blocks count such vectors.
      if (kSkipCore && hn::AllTrue(df, IsTiny(o, xv))) {
        ++no_core;
        tail_masks[i / N] = 0;
        if constexpr (kBackward) {
          const hn::RebindToSigned<decltype(df)> di;
          const auto down = hn::RebindMask(df, hn::Lt(hn::BitCast(di, xv), hn::Zero(di)));
          hn::StoreU(gelu::HWY_NAMESPACE::SignedTimesHeadTail(o, gv, hn::IfThenElse(down, tiny_head_down, tiny_head_up),
                                                              hn::IfThenElse(down, tiny_tail_down, tiny_tail_up)),
                     df, y + i);
        } else {
          hn::StoreU(o.HalfOfTiny(xv), df, y + i);
        }
        continue;
      }
    }
    const auto core_x = kTiny ? o.AwayFromTiny(xv) : xv;
    // The sigmoid's ring lanes (60% of U[-10, 10]'s) run in place, cheaper than compacting them. On AVX2 the
    // lookup reads each lane's own column at no extra cost, so one evaluation serves the core and ring lanes of
    // a vector (CoreOrRingF32), and the core alone those without lanes outside it. On AVX-512 the ring is a
    // second evaluation (RingF32) of the vectors with ring lanes: a lookup in both tables at once (two
    // vpermt2ps and a blend per row) doubles the lookups that bound the loop, for every vector
    // (docs/EXPERIMENTS.md).
    // (The core first where it serves every vector: with OutsideCore first GCC schedules the core's first
    // vpermt2ps last.)
    constexpr bool kCoreOrRing = common::F32Form<kForm>::kHasRing && HWY_TARGET == HWY_AVX2;
    LaneBits tail_bits = 0;
    // The lanes outside the core (`outside`) of v: identity, ring, NaN and far-tail lanes selected, the other
    // tail lanes compacted (tail_bits, tails). `any_core`: whether v holds core lanes (the AVX2 ring's evaluation
    // serves both).
    auto outside_lanes = [&](hn::Vec<decltype(df)> v, hn::Mask<decltype(df)> outside, bool any_core) HWY_ATTR {
      // Identity lanes (x >= kTailIdentityFrom > kCoreEnd): the result is x or grad_out.
      const auto identity = gelu::HWY_NAMESPACE::TailIdentity<kForm, kBackward>(o, xv);
      auto tail = hn::AndNot(identity, outside);
      if constexpr (common::F32Form<kForm>::kHasRing) {
        const auto ring = hn::And(tail, gelu::HWY_NAMESPACE::InRing(o, xv));
        if constexpr (kCoreOrRing) {
          if (any_core || !hn::AllFalse(df, ring)) {
            v = gelu::HWY_NAMESPACE::CoreOrRingF32<kForm, kBackward>(o, core_x, gv, ring);
          }
        } else if (!hn::AllFalse(df, ring)) {  // none in vectors of NaN, infinities, far tails only
          v = hn::IfThenElse(ring, gelu::HWY_NAMESPACE::RingF32<kForm, kBackward>(o, xv, gv), v);
        }
        tail = hn::AndNot(ring, tail);
      }
      (void)any_core;
      v = hn::IfThenElse(identity, kBackward ? gv : xv, v);
      tail_bits = MaskBits(df, tail);
      if (tail_bits != 0) {
        // NaN and x <= -kTailZeroFrom (-inf included; AboveTailZero false, no ring or identity lane among them):
        // TailZeroOrNaN's x + x, -0 or grad_out * +-0 by selection, not compacted for the tail. Tested only in
        // vectors with tail lanes, so that those of identity lanes alone (x >= 16, +inf) pay nothing for it.
        const auto above_zero = gelu::HWY_NAMESPACE::AboveTailZero<kForm, kBackward>(o, xv);
        if (HWY_UNLIKELY(!hn::AllTrue(df, above_zero))) {
          v = hn::IfThenElse(above_zero, v, gelu::HWY_NAMESPACE::TailZeroOrNaN<kBackward>(o, xv, gv));
          tail = hn::And(tail, above_zero);
          tail_bits = MaskBits(df, tail);
        }
      }
      if (tail_bits != 0) {
        CompactLanes<decltype(df)>(xv, tail, tail_bits, tail_x + tails);
        if constexpr (kBackward) CompactLanes<decltype(df)>(gv, tail, tail_bits, tail_g + tails);
        tails += static_cast<size_t>(__builtin_popcountll(tail_bits));
      }
      return v;
    };
    // (core_x, not xv: the same lanes are outside, since AwayFromTiny moves only tiny lanes and within the
    // interval centred at 0, and keeps NaN; the add is then the core's own.)
    hn::Vec<decltype(df)> v;
    if (kSkipCore && hn::AllTrue(df, OutsideCore(df, core_x))) {
      ++no_core;  // every lane selected or compacted: v's lanes are all replaced
      v = outside_lanes(hn::Zero(df), OutsideCore(df, core_x), false);
    } else {
      if constexpr (!kCoreOrRing) v = gelu::HWY_NAMESPACE::CoreF32<kForm, kBackward>(o, core_x, gv);
      const bool any_outside = AnyOutsideCore(df, core_x);
      if (kCoreOrRing && !any_outside) v = gelu::HWY_NAMESPACE::CoreF32<kForm, kBackward>(o, core_x, gv);
      if (HWY_UNLIKELY(any_outside)) {
        const auto outside = OutsideCore(df, core_x);
        if (!kSkipCore) no_core += hn::AllTrue(df, outside);
        v = outside_lanes(v, outside, true);
      }
    }
    if constexpr (kTiny) {
      const auto tiny = IsTiny(o, xv);
      if (!kSkipCore) no_core += hn::AllTrue(df, tiny);
      if constexpr (!kBackward) v = hn::IfThenElse(tiny, o.HalfOfTiny(xv), v);
    }
    tail_masks[i / N] = tail_bits;
    // Stored after x (and grad_out) of this vector were read: in-place calls are allowed.
    hn::StoreU(v, df, y + i);
  }
  return next_least;
}

// y[i] = f(x[i]) (kBackward false) or grad_in[i] = g[i] * f'(x[i]) over `count` float32 elements, a multiple of
// the vector length, in blocks of kTailBlock (GeluF32Block). The lanes in the core range run the float core
// (common::CoreF32), the others the float tail (common::TailF32), and the double path where the tail leaves them
// invalid. The tail lanes of a block run, compacted, at its end (GeluF32BlockTails), so that tail-heavy data
// (U[-10, 10]: ~40% tail lanes) runs the tail on tail lanes only. A lane's bits depend on its own input only,
// never on its neighbours, on n or on alignment.
template <common::Form kForm, bool kBackward>
HWY_INLINE void GeluF32Run(const float* g, const float* x, float* y, size_t count) {
  HWY_ALIGN float tail_x[kTailBuffer], tail_g[kBackward ? kTailBuffer : 1];
  LaneBits tail_masks[kTailBlock / 4];  // one per vector of the narrowest float-core targets (4 lanes)
  bool tiny = AnyTiny(x, HWY_MIN(kTailBlock, count));
  // Whether the next block skips the core where a vector does not need it (GeluF32Block's kSkipCore: no lane in the
  // core, or tiny lanes only): after a block where at least half the vectors were such (with a quarter, -|x| in
  // [4, 6), 36% such vectors, ran 0.83-0.91x the core-first loop; Zen 4, AVX3), and for the first block when its
  // first vector does not need the core.
  const hn::ScalableTag<float> df;
  bool skip_core = false;
  if (count > 0) {
    const auto first = hn::LoadU(df, x);
    skip_core = hn::AllTrue(df, OutsideCore(df, first)) || hn::AllTrue(df, IsTiny(HwyOps<decltype(df)>{df}, first));
  }
  for (size_t start = 0; start < count; start += kTailBlock) {
    const size_t block = HWY_MIN(kTailBlock, count - start);
    const size_t next = start + block;
    if (HWY_UNLIKELY(tiny)) tiny = AnyNonzeroTiny(x + start, block);  // zeros alone need no tiny path
    const float* gb = kBackward ? g + start : nullptr;
    const float* xb = x + start;
    float* yb = y + start;
    size_t tails, no_core;
    // Each block reads its x before it writes its y, and the scan reads the next block's: in place too.
    auto run = [&](auto tiny_block, auto scan_next, const float* xn) HWY_ATTR {
      constexpr bool kTinyBlock = decltype(tiny_block)::value, kScan = decltype(scan_next)::value;
      return HWY_UNLIKELY(skip_core)
                 ? GeluF32Block<kForm, kBackward, kTinyBlock, kScan, true>(gb, xb, yb, block, tail_x, tail_g,
                                                                           tail_masks, tails, no_core, xn)
                 : GeluF32Block<kForm, kBackward, kTinyBlock, kScan, false>(gb, xb, yb, block, tail_x, tail_g,
                                                                            tail_masks, tails, no_core, xn);
    };
    using Yes = std::true_type;
    using No = std::false_type;
    if (count - next >= block) {  // the next block is as long as this one: scanned on the way
      const float* xn = x + next;
      const MagnitudeVec next_least = HWY_UNLIKELY(tiny) ? run(Yes{}, Yes{}, xn) : run(No{}, Yes{}, xn);
      tiny = MayBeTiny(next_least);
    } else {
      if (HWY_UNLIKELY(tiny)) {
        run(Yes{}, No{}, nullptr);
      } else {
        run(No{}, No{}, nullptr);
      }
      if (next < count) tiny = AnyTiny(x + next, count - next);
    }
    skip_core = no_core * 2 >= block / hn::Lanes(df);
    if (tails > 0) GeluF32BlockTails<kForm, kBackward>(tail_x, tail_g, tails, tail_masks, block, yb);
  }
}

// Runs run(g, x, y, count) over [0, n): once on the whole vectors of `lanes` elements (count a multiple of lanes),
// then on the last partial vector through a zero-padded stack copy of `lanes` (<= kMaxLanes) elements (PaddedLanes,
// src/cpu/padding-inl.h), so every element sees the same vector code whatever n and alignment are. One call on
// the whole vectors, not ForEachVector's one per vector: GeluF32Run compacts the tail lanes of whole blocks.
template <size_t kMaxLanes, bool kBackward, class Run>
HWY_INLINE void WholeRunsThenPadded(const float* g, const float* x, float* y, size_t n, size_t lanes,
                                    const Run& run) {
  const size_t whole = n - n % lanes;
  if (whole > 0) run(kBackward ? g : nullptr, x, y, whole);
  if (whole < n) {
    PaddedLanes<float, kMaxLanes> xb, gb, yb;
    const size_t rest = n - whole;
    // grad_out zeros for the forward too (the run ignores them).
    const float* gp = gb.From(kBackward ? g + whole : nullptr, kBackward ? rest : 0);
    run(gp, xb.From(x + whole, rest), yb.lanes, lanes);
    yb.To(y + whole, rest);
  }
}

// The targets without the float core (src/cpu/float_core_targets.h says which and why): every lane through the
// double path, y = f(x) or g * f'(x) in double, rounded once (common::ForwardF32ViaDoublePath,
// BackwardF32ViaDoublePath).
template <common::Form kForm, bool kBackward>
HWY_INLINE void GeluF32DoubleLaneLoop(const float* g, const float* x, float* y, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const size_t N = hn::Lanes(dd);
  // MaxLanes(dd), not MaxLanes(df): Highway 1.0.3 gives 16 for this df on SVE, where 2048-bit vectors hold 32 (its
  // Lanes); the padded buffer was then too short (a stack overwrite under qemu at 2048 bits). Same count of lanes.
  WholeRunsThenPadded<hn::MaxLanes(dd), kBackward>(
      g, x, y, n, N, [&](const float* gp, const float* xp, float* yp, size_t count) HWY_ATTR {
        for (size_t i = 0; i < count; i += N) {
          auto v = DoublePath<kForm, kBackward>(HwyOps<decltype(dd)>{dd}, hn::PromoteTo(dd, hn::LoadU(df, xp + i)));
          if constexpr (kBackward) v = hn::Mul(hn::PromoteTo(dd, hn::LoadU(df, gp + i)), v);
          hn::StoreU(DemoteToF32(df, v), df, yp + i);
        }
      });
}

// The float32 loop: whole vectors, then the last partial vector padded. No HWY_RESTRICT: in-place calls are allowed
// (each vector is read before it is written).
template <common::Form kForm, bool kBackward>
HWY_INLINE void GeluF32Loop(const float* g, const float* x, float* y, size_t n) {
  if constexpr (!cpu::RunsFloatCore(HWY_TARGET)) {
    GeluF32DoubleLaneLoop<kForm, kBackward>(g, x, y, n);
  } else {
    const hn::ScalableTag<float> df;
    WholeRunsThenPadded<hn::MaxLanes(df), kBackward>(
        g, x, y, n, hn::Lanes(df),
        [](const float* gp, const float* xp, float* yp, size_t count) HWY_ATTR {
          GeluF32Run<kForm, kBackward>(gp, xp, yp, count);
        });
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_GELU_INL_H_ toggle
