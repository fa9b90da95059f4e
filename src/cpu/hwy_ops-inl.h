// SPDX-License-Identifier: Apache-2.0
// The Highway operations policy, per target: HwyOps<D> performs, on a vector of D, the operations the shared math
// (src/common/gelu_f32_core.inc, gelu_in_double.inc, polynomial.inc) is written against, the same IEEE operations
// in the same order as the scalar policies (common::ScalarOps, ScalarDoubleOps), so targets with native FMA return
// the scalar path's bits. Here too are the per-target choices of how an operation is done (never what it
// computes): the table lookups (a 32-entry permute on AVX-512; on AVX2 and NEON column-major copies of the tables,
// built at compile time, read a lane at a time and transposed: ColumnMajorTable, ColumnsOf8, ColumnsOf4; on SVE a
// gather per row: RowsGathered), IEEE float demotion (DemoteToF32), and
// AVX-512's one-instruction classifications. Included by src/cpu/gelu-inl.h (the loops), once per target.

// Toggle guard, as Highway's skeleton-inl.h: this header is re-included once per target.
#if defined(GELU_SRC_CPU_HWY_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_HWY_OPS_INL_H_
#undef GELU_SRC_CPU_HWY_OPS_INL_H_
#else
#define GELU_SRC_CPU_HWY_OPS_INL_H_
#endif

#include <bit>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "src/common/coefficients.h"
#include "src/common/gelu_f32_math.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rounds double lanes to float32 with IEEE semantics (overflow -> inf). Highway's SCALAR target clamps
// infinities and out-of-range values to +-FLT_MAX in DemoteTo (to keep UBSan quiet on integer demotions), which
// would turn GELU(+inf) into FLT_MAX; the plain conversion does what the hardware does on every other target.
template <class DF, class VD>
HWY_INLINE hn::Vec<DF> DemoteToF32(DF df, VD v) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(df, static_cast<float>(hn::GetLane(v)));
#else
  return hn::DemoteTo(df, v);
#endif
}

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_NEON || HWY_TARGET == HWY_SVE2_128
// AVX2, NEON and SVE2_128: the first kNumRows rows of a table (common::TableRowsOf), the rows a lookup reads, stored
// column-major in groups of 4 rows: block[g][j] holds rows 4g..4g+3 of column j (zeros past the last row), 16 bytes,
// so that one 128-bit load reads 4 coefficients of one lane. Made at compile time from the same table: the values
// are the table's. (The derivative core tables' rows 8 and 9, which CoreF32 applies as constants, are not copied.)
// kCoreAndRingRowsKind (CoreOrRingF32): 64 columns, the core table's 32 then the sigmoid ring's, whose rows past
// its degree (a6) are 0.
template <int kKind, common::Form kForm, bool kDerivative>
struct TableSource {
  static constexpr const auto& kRows = common::TableRowsOf<kKind, kForm, kDerivative>();
  static constexpr int kNumRows = static_cast<int>(sizeof(kRows) / sizeof(kRows[0]));
  static constexpr int kColumns = common::kCoreColumns;
  static constexpr float At(int r, int j) { return kRows[r][j]; }
};
template <common::Form kForm, bool kDerivative>
struct TableSource<common::kCoreAndRingRowsKind, kForm, kDerivative> {
  using Core = TableSource<common::kCoreRowsKind, kForm, kDerivative>;
  using Ring = TableSource<common::kRingRowsKind, kForm, kDerivative>;
  static constexpr int kNumRows = Core::kNumRows;
  static constexpr int kColumns = 2 * common::kCoreColumns;
  static constexpr bool NonzeroLo() {
    for (int j = 0; j < common::kCoreColumns; ++j) {
      if (Ring::At(1, j) == 0.0f) return false;
    }
    return true;
  }
  // HwyOps::MulAddWhere's AVX2 form (c + a * 0 = c) needs lo != 0 in the ring's columns too (CoreRootInterval
  // asserts it for the core's).
  static_assert(NonzeroLo(), "the ring's lo is nonzero in every column");
  static constexpr float At(int r, int j) {
    return j < common::kCoreColumns ? Core::At(r, j) : r < Ring::kNumRows ? Ring::At(r, j - common::kCoreColumns) : 0.0f;
  }
};
template <int kKind, common::Form kForm, bool kDerivative, int kNumRows>
struct ColumnMajorTable {
  using Source = TableSource<kKind, kForm, kDerivative>;
  static_assert(kNumRows <= Source::kNumRows, "rows the table has");
  static constexpr int kGroups = (kNumRows + 3) / 4;
  struct alignas(64) Blocks {
    float block[kGroups][Source::kColumns][4];
  };
  static constexpr Blocks Make() {
    Blocks b{};
    for (int r = 0; r < kNumRows; ++r) {
      for (int j = 0; j < Source::kColumns; ++j) b.block[r / 4][j][r % 4] = Source::At(r, j);
    }
    return b;
  }
  static constexpr Blocks kBlocks = Make();
};
#endif

#if HWY_TARGET == HWY_NEON
// out[k] = row k of each lane's column, k < N, for NEON's 4 lanes: per group of 4 rows, one 128-bit load per lane
// (the 4 coefficients of its column, ColumnMajorTable) and a 4x4 transpose (TRN1/TRN2 of float pairs, then of
// 64-bit pairs): 4 loads and 8 shuffles per 4 rows. A row at a time through TBL/TBX needs the row's 32 entries in 8
// registers: 64 registers for the core's 8 rows, more than NEON's 32, so GCC reloads them on every vector
// (docs/BENCHMARKS.md, "Arm").
template <int kKind, common::Form kForm, bool kDerivative, int N>
HWY_INLINE void ColumnsOf4(hn::Vec<hn::Full128<int32_t>> column, hn::Vec<hn::Full128<float>> (&out)[N]) {
  using Table = ColumnMajorTable<kKind, kForm, kDerivative, N>;
  const uint32x4_t columns = vreinterpretq_u32_s32(column.raw);
  const uint32_t c[4] = {vgetq_lane_u32(columns, 0), vgetq_lane_u32(columns, 1), vgetq_lane_u32(columns, 2),
                         vgetq_lane_u32(columns, 3)};
  for (int g = 0; g * 4 < N; ++g) {
    const auto& block = Table::kBlocks.block[g];
    const float32x4_t t0 = vld1q_f32(block[c[0]]), t1 = vld1q_f32(block[c[1]]);
    const float32x4_t t2 = vld1q_f32(block[c[2]]), t3 = vld1q_f32(block[c[3]]);
    // even01 = t0[0] t1[0] t0[2] t1[2], odd01 = t0[1] t1[1] t0[3] t1[3], likewise for lanes 2 and 3.
    const float64x2_t even01 = vreinterpretq_f64_f32(vtrn1q_f32(t0, t1));
    const float64x2_t odd01 = vreinterpretq_f64_f32(vtrn2q_f32(t0, t1));
    const float64x2_t even23 = vreinterpretq_f64_f32(vtrn1q_f32(t2, t3));
    const float64x2_t odd23 = vreinterpretq_f64_f32(vtrn2q_f32(t2, t3));
    out[4 * g] = hn::Vec<hn::Full128<float>>{vreinterpretq_f32_f64(vzip1q_f64(even01, even23))};
    if (4 * g + 1 < N) out[4 * g + 1] = hn::Vec<hn::Full128<float>>{vreinterpretq_f32_f64(vzip1q_f64(odd01, odd23))};
    if (4 * g + 2 < N) out[4 * g + 2] = hn::Vec<hn::Full128<float>>{vreinterpretq_f32_f64(vzip2q_f64(even01, even23))};
    if (4 * g + 3 < N) out[4 * g + 3] = hn::Vec<hn::Full128<float>>{vreinterpretq_f32_f64(vzip2q_f64(odd01, odd23))};
  }
}
#endif

#if HWY_TARGET == HWY_AVX2

// out[k] = row k of each lane's column, k < N, for 8 lanes: per group of 4 rows, the 4 coefficients of lanes i
// and i + 4 in the two halves of one register (two vbroadcastf128 loads and a vblendps), then a 4x4 transpose
// within the halves (unpack, shuffle): 8 loads, 4 blends and 8 shuffles per 4 rows, for 8 lanes. The blend, not a
// vinsertf128 of the second entry: it runs on any vector ALU pipe, the insert on the shuffle pipes the transpose
// keeps busy. A 32-entry lookup a row at a time (gathers, or permutes and blends) costs more than this transposed
// read; the measurements are in docs/EXPERIMENTS.md ("AVX2").
template <int kKind, common::Form kForm, bool kDerivative, int N>
HWY_INLINE void ColumnsOf8(hn::Vec<hn::Full256<int32_t>> column, hn::Vec<hn::Full256<float>> (&out)[N]) {
  using Table = ColumnMajorTable<kKind, kForm, kDerivative, N>;
  // Byte offsets of the columns' 16-byte entries, unsigned (no sign extension), moved to general registers two
  // lanes at a time (vmovq, vpextrq) and split there by shifts, which run on the integer pipes, instead of eight
  // vmovd/vpextrd (what GCC 12 makes of a store and eight scalar loads): the offsets are on the lookup chain's
  // critical path, and the vector pipes are the loop's bottleneck (docs/EXPERIMENTS.md, "AVX2").
  const __m256i bytes = _mm256_slli_epi32(column.raw, 4);
  const __m128i low = _mm256_castsi256_si128(bytes), high = _mm256_extracti128_si256(bytes, 1);
  const uint64_t pair[4] = {
      static_cast<uint64_t>(_mm_cvtsi128_si64(low)), static_cast<uint64_t>(_mm_extract_epi64(low, 1)),
      static_cast<uint64_t>(_mm_cvtsi128_si64(high)), static_cast<uint64_t>(_mm_extract_epi64(high, 1))};
  uint32_t offset[8];
  for (int i = 0; i < 8; ++i) offset[i] = static_cast<uint32_t>(pair[i / 2] >> (32 * (i % 2)));
  for (int g = 0; g * 4 < N; ++g) {
    const char* block = reinterpret_cast<const char*>(Table::kBlocks.block[g]);
    const auto entry = [block](uint32_t at) {
      return _mm256_broadcast_ps(reinterpret_cast<const __m128*>(block + at));
    };
    __m256 t[4];
    for (int i = 0; i < 4; ++i) {
      t[i] = _mm256_blend_ps(entry(offset[i]), entry(offset[i + 4]), 0xF0);
    }
    const __m256 a = _mm256_unpacklo_ps(t[0], t[1]);  // lanes 0 1 0 1: rows 0 0 1 1 (and 4 5 4 5 above)
    const __m256 c = _mm256_unpacklo_ps(t[2], t[3]);  // lanes 2 3 2 3
    out[4 * g] = hn::Vec<hn::Full256<float>>{_mm256_shuffle_ps(a, c, _MM_SHUFFLE(1, 0, 1, 0))};
    if (4 * g + 1 < N) out[4 * g + 1] = hn::Vec<hn::Full256<float>>{_mm256_shuffle_ps(a, c, _MM_SHUFFLE(3, 2, 3, 2))};
    if (4 * g + 2 < N) {
      const __m256 b = _mm256_unpackhi_ps(t[0], t[1]);  // rows 2 2 3 3
      const __m256 e = _mm256_unpackhi_ps(t[2], t[3]);
      out[4 * g + 2] = hn::Vec<hn::Full256<float>>{_mm256_shuffle_ps(b, e, _MM_SHUFFLE(1, 0, 1, 0))};
      if (4 * g + 3 < N) out[4 * g + 3] = hn::Vec<hn::Full256<float>>{_mm256_shuffle_ps(b, e, _MM_SHUFFLE(3, 2, 3, 2))};
    }
  }
}
#endif

// The operations policy of src/common/gelu_f32_core-inl.h (D a float vector) and src/common/gelu_in_double-inl.h
// (D a double vector) for Highway: the same IEEE operations as common::ScalarOps and common::ScalarDoubleOps, lane
// by lane.
template <class D>
struct HwyOps {
  using T = hn::TFromD<D>;
  using V = hn::Vec<D>;
  using DI = hn::RebindToSigned<D>;
  D d;
  HWY_INLINE V Set(T c) const { return hn::Set(d, c); }
  static HWY_INLINE V Add(V a, V b) { return hn::Add(a, b); }
  static HWY_INLINE V Sub(V a, V b) { return hn::Sub(a, b); }
  static HWY_INLINE V Mul(V a, V b) { return hn::Mul(a, b); }
  static HWY_INLINE V Div(V a, V b) { return hn::Div(a, b); }
  static HWY_INLINE V MulAdd(V a, V b, V c) { return hn::MulAdd(a, b, c); }
  static HWY_INLINE V MulSub(V a, V b, V c) { return hn::MulSub(a, b, c); }
  static HWY_INLINE V Neg(V a) { return hn::Neg(a); }
  static HWY_INLINE auto Ge(V a, V b) { return hn::Ge(a, b); }
  static HWY_INLINE auto Eq(V a, V b) { return hn::Eq(a, b); }
  static HWY_INLINE auto Lt(V a, V b) { return hn::Lt(a, b); }
  template <class M>
  static HWY_INLINE M And(M a, M b) { return hn::And(a, b); }
  static constexpr bool kOneLane = false;  // DoublePath blends (common::ScalarDoubleOps branches)
  template <class M>
  HWY_INLINE bool AllTrue(M m) const { return hn::AllTrue(d, m); }
  template <class M>
  HWY_INLINE bool AllFalse(M m) const { return hn::AllFalse(d, m); }
  template <class M>
  static HWY_INLINE V IfThenElse(M m, V a, V b) { return hn::IfThenElse(m, a, b); }
  template <class M>
  static HWY_INLINE V IfThenZeroElse(M m, V a) { return hn::IfThenZeroElse(m, a); }
  // a - b where m, a elsewhere; fma(a, b, c) where m, c elsewhere (common::ScalarLaneOps). AVX-512: one masked
  // subtract or fma (GCC folds the blend into the operation). AVX2: a blend there is vblendvps, 2-3 uops on recent
  // Intel cores (measurably slower backwards on a Xeon forced to AVX2), so b is zeroed by an AND instead: a - (+0) is a
  // exactly, and c + a * (+0) is c for finite a and c != 0, the only use (CoreF32's root interval, where
  // CoreRootInterval asserts lo != 0 and d is finite on the core lanes whose results are kept).
  template <class M>
  static HWY_INLINE V SubWhere(M m, V a, V b) {
#if HWY_TARGET == HWY_AVX2
    return hn::Sub(a, hn::IfThenElseZero(m, b));
#else
    return hn::IfThenElse(m, hn::Sub(a, b), a);
#endif
  }
  template <class M>
  static HWY_INLINE V MulAddWhere(M m, V a, V b, V c) {
#if HWY_TARGET == HWY_AVX2
    return hn::MulAdd(a, hn::IfThenElseZero(m, b), c);
#else
    return hn::IfThenElse(m, hn::MulAdd(a, b, c), c);
#endif
  }
  // fma(x, head, x * tail) where m, head + tail elsewhere (common::ScalarLaneOps): u = x or 1 blended, then
  // fma(u, head, u * tail) (fma(1, head, 1 * tail) = head + tail exactly). On AVX-512 three masked operations
  // instead (x * tail where m, head + that where not m, fma where m: the add off the FMA pipes) were slower: the
  // blend is not what bounds the loop (docs/EXPERIMENTS.md).
  template <class M>
  static HWY_INLINE V TimesWhere(M m, V x, V head, V tail) {
    const V u = hn::IfThenElse(m, x, hn::Set(D(), T(1)));
    return hn::MulAdd(u, head, hn::Mul(u, tail));
  }
  // r with the sign bit of a * b, or of -a, ORed into its own (common::ScalarOps). AVX-512: two operations (a
  // vpternlogd and a vorps), or one vpternlogd; AVX2: three bitwise operations, or two.
  HWY_INLINE V OrSignOfProduct(V r, V a, V b) const { return hn::Or(r, hn::And(hn::Xor(a, b), hn::SignBit(d))); }
  HWY_INLINE V OrSignOfNegated(V r, V a) const { return hn::Or(r, hn::AndNot(a, hn::SignBit(d))); }
  // 2^k for kd = kRoundShifter + k (common::ExpNegBounded, double lanes): the low bits of kd into the exponent.
  HWY_INLINE V Pow2FromShifter(V kd) const {
    const hn::RebindToUnsigned<D> du;
    return hn::BitCast(d, hn::ShiftLeft<52>(hn::BitCast(du, kd)));
  }
  static HWY_INLINE V Abs(V a) { return hn::Abs(a); }
  static HWY_INLINE V Min(V a, V b) { return hn::Min(a, b); }
  static HWY_INLINE auto Le(V a, V b) { return hn::Le(a, b); }
  static HWY_INLINE auto Gt(V a, V b) { return hn::Gt(a, b); }
  template <class M>
  static HWY_INLINE M Or(M a, M b) { return hn::Or(a, b); }
  template <class M>
  static HWY_INLINE M AndNot(M a, M b) { return hn::AndNot(a, b); }
  // Float lanes only: the core's and the tail's table columns, lookups and powers of two.
  HWY_INLINE hn::Vec<DI> Column(V shifted) const {
    const DI di;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // vpermt2ps (Lookup) reads only the low 5 bits of each index: the mask would be one more operation per call.
    if constexpr (hn::MaxLanes(D()) == 16) return hn::BitCast(di, shifted);
#endif
    return hn::And(hn::BitCast(di, shifted), hn::Set(di, common::kCoreColumns - 1));
  }
#if HWY_TARGET == HWY_SVE2_128
  // SVE2_128 (vectors of exactly 4 floats: Neoverse N2, V2): NEON's lookup (ColumnsOf4), a row at a time where the
  // math uses it (RowsAt, src/common/gelu_f32_core.inc; the vectors are sizeless and cannot be held in an array):
  // the 4 lanes' 128-bit entries of the row's group (the column indices through a store and scalar loads), then
  // TRN1/TRN2 of floats and of 64-bit pairs. The rows of one group repeat the same loads and shuffles, which the
  // compiler computes once. Chosen over a gather per row on llvm-mca's models, which disagree: faster on V2, slower
  // on N2 (docs/BENCHMARKS.md, "Arm"; the figures in docs/EXPERIMENTS.md).
  static constexpr bool kRowsWhereUsed = true;
  template <int kKind, common::Form kForm, bool kDerivative, int N>
  struct RowsTransposed {
    const hn::Vec<DI>* column;  // a named value of the caller's, alive while this is used (RowsAt)
    template <class I>
    HWY_INLINE V operator()(I) const {
      constexpr int k = I::value;
      using Table = ColumnMajorTable<kKind, kForm, kDerivative, N>;
      const auto& block = Table::kBlocks.block[k / 4];
      const svbool_t all = svptrue_b32();
      int32_t c[4];
      svst1_s32(all, c, *column);
      const svfloat32_t t0 = svld1_f32(all, block[c[0]]), t1 = svld1_f32(all, block[c[1]]);
      const svfloat32_t t2 = svld1_f32(all, block[c[2]]), t3 = svld1_f32(all, block[c[3]]);
      // rows 4g, 4g + 2: the even floats of each entry; 4g + 1, 4g + 3: the odd ones.
      const svfloat64_t p01 = svreinterpret_f64_f32(k % 2 == 0 ? svtrn1_f32(t0, t1) : svtrn2_f32(t0, t1));
      const svfloat64_t p23 = svreinterpret_f64_f32(k % 2 == 0 ? svtrn1_f32(t2, t3) : svtrn2_f32(t2, t3));
      return svreinterpret_f32_f64(k % 4 < 2 ? svtrn1_f64(p01, p23) : svtrn2_f64(p01, p23));
    }
  };
  template <int kKind, common::Form kForm, bool kDerivative, int N>
  HWY_INLINE RowsTransposed<kKind, kForm, kDerivative, N> RowsWhereUsed(const hn::Vec<DI>& column) const {
    return {&column};
  }
#elif HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256
  // SVE at any vector length: each row is read where the math uses it (RowsAt, src/common/gelu_f32_core.inc): the
  // vectors are sizeless and cannot be held in an array. A row is one gather of each lane's entry (LD1W with 32-bit
  // indices); a TBL over the row's 32 entries would take 32 / lanes registers and as many lookups below 1024 bits.
  static constexpr bool kRowsWhereUsed = true;
  template <int kKind, common::Form kForm, bool kDerivative>
  struct RowsGathered {
    D d;
    const hn::Vec<DI>* column;  // a named value of the caller's, alive while this is used (RowsAt)
    template <class I>
    HWY_INLINE V operator()(I) const {
      return hn::GatherIndex(d, common::TableRowsOf<kKind, kForm, kDerivative>()[I::value], *column);
    }
  };
  template <int kKind, common::Form kForm, bool kDerivative, int N>
  HWY_INLINE RowsGathered<kKind, kForm, kDerivative> RowsWhereUsed(const hn::Vec<DI>& column) const {
    return {d, &column};
  }
#else
  static constexpr bool kRowsWhereUsed = false;  // RowsAt loads the rows at once, through Rows
#endif
  // out[k] = the table's row k at each lane's column, k < N (common::ScalarOps::Rows). AVX-512: per row, the 32
  // entries are two registers and one vpermt2ps picks from both (Highway 1.0.3 has no two-table lookup). AVX2 and
  // NEON: the rows of each lane's column are read from a column-major copy of the table and transposed (ColumnsOf8,
  // ColumnsOf4); a row at a time would be, on AVX2, a gather or four permutes and three blends, on NEON a TBL and
  // a TBX over four registers each, its table reloaded per vector. Only the float-core targets
  // (float_core_targets.h) instantiate it. (VOut is V: a parameter, so that the array type is formed only where
  // Rows is instantiated; SVE's sizeless vectors cannot be array elements.)
  template <int kKind, common::Form kForm, bool kDerivative, int N, class VOut>
  HWY_INLINE void Rows(hn::Vec<DI> column, VOut (&out)[N]) const {
    static_assert(cpu::RunsFloatCore(HWY_TARGET) && hn::MaxLanes(D()) * sizeof(float) == HWY_MAX_BYTES,
                  "the float core's full float vectors");
#if HWY_TARGET == HWY_AVX2
    ColumnsOf8<kKind, kForm, kDerivative, N>(column, out);
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    const auto& rows = common::TableRowsOf<kKind, kForm, kDerivative>();
    for (int k = 0; k < N; ++k) {
      out[k] = V{_mm512_permutex2var_ps(hn::Load(d, rows[k]).raw, column.raw, hn::Load(d, rows[k] + 16).raw)};
    }
#elif HWY_TARGET == HWY_NEON
    ColumnsOf4<kKind, kForm, kDerivative, N>(column, out);  // column is in [0, 32) (Column, TailColumn)
#else
    (void)column, (void)out;
#endif
  }
  // x - c, c = x rounded to a multiple of 1/4 ties to even, for shifted = x + kCoreShifter = kCoreShifter + c
  // (common::ScalarOps::QuarterOffset). AVX-512: vreduceps with M = 2 computes x - RN(4x)/4 exactly from x alone,
  // one operation instead of two, on the core's critical path (docs/EXPERIMENTS.md). Same bits as the
  // subtraction on all 2^32 inputs (compared): where x = c the zero d may differ in sign, and a zero d reaches
  // the result only as d * a1 and q * d^2 added to a nonzero lo or hi (the one zero lo, in the forward c = 0
  // column, meets x = c only at x = +-0, where both give d = x).
  HWY_INLINE V QuarterOffset(V x, V shifted) const {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (hn::MaxLanes(D()) == 16) {
      (void)shifted;
      return V{_mm512_reduce_ps(x.raw, (2 << 4) | _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
    }
#endif
    return hn::Sub(x, hn::Sub(shifted, hn::Set(d, common::kCoreShifter)));
  }
  // See common::ScalarOps::AwayFromTiny and HalfOfTiny (the lanes a block with tiny inputs runs: GeluF32Run).
  HWY_INLINE V AwayFromTiny(V x) const {
    const V floor = hn::Set(d, common::kCoreTinyBelow);
    return hn::IfThenElse(hn::Lt(hn::Abs(x), floor), hn::CopySignToAbs(floor, x), x);
  }
  HWY_INLINE V HalfOfTiny(V x) const {
    const hn::RebindToSigned<D> di;
    const auto sign = hn::Set(di, static_cast<int32_t>(0x80000000u));
    const auto bits = hn::BitCast(di, x);
    const auto a = hn::AndNot(sign, bits);
    const auto half = hn::ShiftRight<1>(a);
    const auto below = hn::Add(half, hn::And(hn::And(a, half), hn::Set(di, 1)));
    const auto above = hn::Sub(a, hn::Set(di, 0x00800000));
    const auto magnitude = hn::IfThenElse(hn::Lt(a, hn::Set(di, 0x01000000)), below, above);
    return hn::BitCast(d, hn::Or(magnitude, hn::And(bits, sign)));
  }
  // The column of kCoreAndRingRowsKind (CoreOrRingF32): the ring's columns follow the core's 32.
  // (AVX2 only: its Column is j mod 32.)
  template <class M>
  HWY_INLINE hn::Vec<DI> RingColumn(hn::Vec<DI> column, M ring) const {
    static_assert(HWY_TARGET == HWY_AVX2 && sizeof(M) > 0, "the kernel with a lookup of both tables");
    const DI di;
    return hn::Or(column, hn::IfThenElseZero(hn::RebindMask(di, ring), hn::Set(di, common::kCoreColumns)));
  }
  // See common::ScalarOps::TailColumn, SubnormalFromUnits and Pow2OfShifted.
  HWY_INLINE hn::Vec<DI> TailColumn(V t) const {
    const DI di;
    return hn::Max(hn::Sub(hn::ShiftRight<20>(hn::BitCast(di, t)), hn::Set(di, common::kTailFirstColumnBits)),
                   hn::Zero(di));
  }
  HWY_INLINE V SubnormalFromUnits(V units) const {
    const hn::RebindToUnsigned<D> du;
    const auto shifted = hn::BitCast(du, hn::Add(units, hn::Set(d, 0x1p23f)));
    return hn::BitCast(d, hn::Sub(shifted, hn::Set(du, 0x4B000000u)));
  }
  HWY_INLINE V Pow2OfShifted(V kd) const {
    const DI di;
    const auto m = hn::ShiftRight<5>(hn::Sub(hn::BitCast(di, kd), hn::Set(di, 0x4B400000)));
    return hn::BitCast(d, hn::ShiftLeft<23>(hn::Sub(hn::Set(di, 191), m)));
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_HWY_OPS_INL_H_
