// SPDX-License-Identifier: Apache-2.0
// Internal entry points of the kernels that take a storage type (float32, bf16, fp16: a common::Type) and any
// formula (the three forms and the variants gelu_fast, gelu_10): elementwise (src/cpu/elementwise_storage.cc),
// bias + GELU and GEGLU (src/cpu/gelu_fused.cc), the bf16/fp16 lookup tables, and the variants' constants. Their
// per-target loops: src/cpu/storage_types-inl.h (the storage types), src/cpu/storage_paths-inl.h (the float and
// double paths), src/cpu/storage_elementwise-inl.h and src/cpu/storage_fused-inl.h. Each kernel call is
// single-threaded and dispatched (HWY_DYNAMIC_DISPATCH); the Run* functions validate (src/common/validate.h) and
// split over threads.
// Not installed; not part of the ABI.
#ifndef GELU_SRC_CPU_STORAGE_KERNELS_H_
#define GELU_SRC_CPU_STORAGE_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "gelu/gelu.h"
#include "src/common/coefficients.h"
#include "src/common/functions.h"

namespace gelu::cpu {

// gelu_fast (Hugging Face FastGELUActivation): 0.5 x (1 + tanh(0.7978845608 x (1 + 0.044715 x^2))).
// Its constant 0.7978845608 is sqrt(2/pi) = 0.79788456080286535... cut to 10 digits (relative difference
// 3.6e-12 = 2^-38.0), so it is a different function from gelu_new; we evaluate it as written, through the
// same x * sigmoid(z) form: z = 2 * 0.7978845608 * (x + 0.044715 x^3). Both products rounded once in double
// (relative 2^-53, far below the kernels' own error), as kTanhZ1/kTanhZ3 are for the tanh form.
inline constexpr double kGeluFastZ1 = 2.0 * 0.7978845608;                   // exact doubling of the double
inline constexpr double kGeluFastZ3 = kGeluFastZ1 * common::kTanhCubic;     // one rounding
// gelu_10 (Hugging Face ClippedGELUActivation(-10, 10)): clip(GELU(x), -10, 10). GELU(x) >= -0.17, so only the
// upper bound binds, and GELU(x) > 10 exactly when x > 10: GELU(10) = 10 - 10 Phi(-10) = 10 - 7.6e-23 < 10,
// while any float above 10 exceeds it by >= 2^-20 (ulp(10) in float32) > 7.6e-23. So the clip is x > 10 -> 10,
// and its derivative (torch.clamp's backward passes the gradient where the value lies within [min, max],
// bounds included) is f'(x) for x <= 10 and 0 above.
inline constexpr double kGelu10Max = 10.0;

// Storage types: common::Type (gelu.h's gelu_dtype): float32, bfloat16 and binary16 here (the last two stored as
// uint16_t bit patterns); float64 has kernels of its own (src/cpu/gelu_f64.cc).

// ---- Kernels (one thread, dispatched). Elementwise and HalfTable take a common::Formula (src/common/functions.h):
// the three forms and the two variant formulas gelu_fast and gelu_10 (constants above); the fused kernels (bias +
// GELU, GEGLU) take a common::Form, the three forms only. Pointers are to elements of the storage type.
// y = f(x) (backward false) or y = g * f'(x); in place allowed.
void Elementwise(common::Type io, common::Formula formula, bool backward, const void* g, const void* x, void* y,
                 size_t n);
// y[r][c] = f(fl32(x[r][c] + bias[c])) over the flat index range [begin, end) of a rows x cols matrix.
void BiasForward(common::Type io, common::Form form, const void* x, const void* bias, void* y, size_t cols,
                 size_t begin, size_t end);
// grad_x[r][c] = g[r][c] f'(fl32(x[r][c] + bias[c])) for rows [r0, r1), columns [c0, c1); sums[c - c0] = the
// sum over those rows, in row order, of the unrounded products (double).
void BiasBackwardTile(common::Type io, common::Form form, const void* g, const void* x, const void* bias, void* grad_x,
                      size_t cols, size_t r0, size_t r1, size_t c0, size_t c1, double* sums);
// y[r][c] = f(a[r][c]) * b[r][c] over the flat range [begin, end) of rows x cols; ld* are row strides. Half types:
// ftab, dtab (may be null) are HalfTable(io, form, kTableForward / kTableDerivative), used instead of computing.
void GegluForward(common::Type io, common::Form form, const void* a, size_t lda, const void* b, size_t ldb, void* y,
                  size_t ldy, size_t cols, size_t begin, size_t end, const double* ftab);
// grad_a = g * b * f'(a), grad_b = g * f(a).
void GegluBackward(common::Type io, common::Form form, const void* g, size_t ldg, const void* a, size_t lda,
                   const void* b, size_t ldb, void* grad_a, size_t ldga, void* grad_b, size_t ldgb, size_t cols,
                   size_t begin, size_t end, const double* ftab, const double* dtab);

// Per-input tables of a half type (src/cpu/elementwise_storage.cc): f rounded to the type (uint16_t, 65,536 entries
// and one of slack: kRoundedTableEntries), f or f' in double before any multiplication and rounding
// (double[65536]), as the kernels compute them for the SIMD target chosen now, or f' from the double table in
// float, NaN where that is not zero or a normal float (float[65536]); built on first use. Null if memory could
// not be had (then run the kernels).
enum HalfTableKind : int { kTableRounded = 0, kTableForward = 1, kTableDerivative = 2, kTableDerivativeF32 = 3 };
inline constexpr int kNumHalfTables = 4;
// The rounded table's length: the AVX-512 lookup reads 32-bit words at byte offset 2 h, the last at 2 * 65,535.
inline constexpr size_t kRoundedTableEntries = 65536 + 1;
const void* HalfTable(common::Type io, common::Formula formula, HalfTableKind which);
// y[i] = table[x[i]] for a rounded table (kTableRounded): four scalar lookups at a time, or with `gather` AVX-512's
// gather of 16 where the target has one; the same bits either way.
void LookupForward(const uint16_t* table, const uint16_t* x, uint16_t* y, size_t n, bool gather);
// Which of LookupForward's two ways is faster on this CPU and target: timed once per target on `table` (a rounded
// table), then remembered. The gather wins on some CPUs (Intel SPR), the four lookups on others (AMD Zen 4).
bool ForwardLookupGathers(const uint16_t* table);

// ---- Validated, threaded drivers (C API semantics: GELU_INVALID_ARGUMENT writes nothing).
// Elementwise over n elements, checked by validate::Elementwise (src/common/validate.h); `form` is trusted.
gelu_status RunElementwise(common::Type io, common::Formula formula, bool backward, const void* g, const void* x,
                           void* y, size_t n);

}  // namespace gelu::cpu

#endif  // GELU_SRC_CPU_STORAGE_KERNELS_H_
