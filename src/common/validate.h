// SPDX-License-Identifier: Apache-2.0
// The argument rules of every C entry point, written once for the CPU library (src/cpu) and the CUDA library
// (src/cuda), so that both refuse exactly the same argument sets (tests/cuda/same_refusals_test.cc calls every
// entry point of both; tests/validate_test.cc checks the edges). Plain host C++, no CUDA and no Highway.
// Internal; not installed.
//
// The rules (include/gelu/gelu.h, gelu_cuda.h), checked in this order:
//   1. an unknown `approximate` is invalid (ValidForm; variants check their enum themselves);
//   2. a size whose element count or byte count overflows size_t is invalid;
//   3. nothing to do (no element to write) is GELU_OK whatever the pointers are;
//   4. a null pointer, or a pointer not aligned to `alignment` bytes, is invalid;
//   5. an output that partly overlaps an input (exact aliasing is the in-place mode, where allowed), or two
//      outputs that overlap, are invalid.
// `element` is the size of one stored element (4 for float32, 2 for bf16/fp16, 8 for float64). `alignment` is
// what the device needs: 1 on the CPU (its loads are unaligned), the element size on CUDA (aligned device loads).
#ifndef GELU_SRC_COMMON_VALIDATE_H_
#define GELU_SRC_COMMON_VALIDATE_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "gelu/gelu.h"
#include "src/common/functions.h"  // the forms: kNumForms

namespace gelu::validate {

enum class Verdict {
  kInvalid,      // GELU_INVALID_ARGUMENT, nothing written
  kNothingToDo,  // GELU_OK, nothing written, no device call
  kRun,          // valid: compute
};

// The status an entry point returns for a verdict other than kRun.
inline gelu_status Status(Verdict v) { return v == Verdict::kInvalid ? GELU_INVALID_ARGUMENT : GELU_OK; }

inline bool ValidForm(gelu_approximate a) { return common::IsApproximateForm(static_cast<int>(a)); }

// a * b without wrapping; false on overflow.
inline bool CheckedMul(size_t a, size_t b, size_t* out) { return !__builtin_mul_overflow(a, b, out); }

// True when the byte ranges [p, p + pn) and [q, q + qn) share memory (empty ranges share nothing). Written with
// differences of addresses, never p + pn, which can wrap for a range that ends at the top of the address space.
inline bool Overlap(const void* p, size_t pn, const void* q, size_t qn) {
  if (pn == 0 || qn == 0) return false;
  const auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(q);
  return a < b ? b - a < pn : a - b < qn;
}

// True when an output [out, out + bytes) overlaps an input [in, in + bytes) without being the same array.
inline bool PartialOverlap(const void* in, const void* out, size_t bytes) {
  return in != out && Overlap(in, bytes, out, bytes);
}

// Rule 4 for each of `pointers`.
inline bool Usable(std::initializer_list<const void*> pointers, size_t alignment) {
  for (const void* p : pointers) {
    if (p == nullptr || reinterpret_cast<uintptr_t>(p) % alignment != 0) return false;
  }
  return true;
}

// y = f(x) (g == nullptr: forward) or y = g * f'(x) over n elements; y may alias x and g.
inline Verdict Elementwise(size_t element, size_t alignment, bool backward, const void* g, const void* x,
                           const void* y, size_t n) {
  size_t bytes;
  if (!CheckedMul(n, element, &bytes)) return Verdict::kInvalid;
  if (n == 0) return Verdict::kNothingToDo;
  if (!Usable({x, y}, alignment) || (backward && !Usable({g}, alignment))) return Verdict::kInvalid;
  if (PartialOverlap(x, y, bytes) || (backward && PartialOverlap(g, y, bytes))) return Verdict::kInvalid;
  return Verdict::kRun;
}

// y[r][c] = f(x[r][c] + bias[c]), rows x cols; y may alias x; bias may not overlap y.
inline Verdict BiasForward(size_t element, size_t alignment, const void* x, const void* bias, const void* y,
                           size_t rows, size_t cols) {
  size_t n, bytes;
  if (!CheckedMul(rows, cols, &n) || !CheckedMul(n, element, &bytes)) return Verdict::kInvalid;
  if (n == 0) return Verdict::kNothingToDo;
  if (!Usable({x, bias, y}, alignment)) return Verdict::kInvalid;
  if (PartialOverlap(x, y, bytes) || Overlap(bias, cols * element, y, bytes)) return Verdict::kInvalid;
  return Verdict::kRun;
}

// grad_x = g * f'(x + bias), grad_bias = column sums of grad_x. rows == 0 with cols > 0 is work: grad_bias is
// zeroed (and the row arrays may be null). grad_x may alias g or x; grad_bias overlaps nothing.
inline Verdict BiasBackward(size_t element, size_t alignment, const void* g, const void* x, const void* bias,
                            const void* gx, const void* gbias, size_t rows, size_t cols) {
  size_t n, bytes, bias_bytes;
  if (!CheckedMul(rows, cols, &n) || !CheckedMul(n, element, &bytes) || !CheckedMul(cols, element, &bias_bytes)) {
    return Verdict::kInvalid;
  }
  if (cols == 0) return Verdict::kNothingToDo;
  if (!Usable({gbias}, alignment)) return Verdict::kInvalid;
  if (rows > 0 && !Usable({g, x, bias, gx}, alignment)) return Verdict::kInvalid;
  if (PartialOverlap(g, gx, bytes) || PartialOverlap(x, gx, bytes) || Overlap(bias, bias_bytes, gx, bytes) ||
      Overlap(gbias, bias_bytes, gx, bytes) || Overlap(gbias, bias_bytes, g, bytes) ||
      Overlap(gbias, bias_bytes, x, bytes) || Overlap(gbias, bias_bytes, bias, rows > 0 ? bias_bytes : 0)) {
    return Verdict::kInvalid;
  }
  return Verdict::kRun;
}

// y = f(a) * b over n elements; y may alias a or b.
inline Verdict GegluForward(size_t element, size_t alignment, const void* a, const void* b, const void* y, size_t n) {
  size_t bytes;
  if (!CheckedMul(n, element, &bytes)) return Verdict::kInvalid;
  if (n == 0) return Verdict::kNothingToDo;
  if (!Usable({a, b, y}, alignment)) return Verdict::kInvalid;
  if (PartialOverlap(a, y, bytes) || PartialOverlap(b, y, bytes)) return Verdict::kInvalid;
  return Verdict::kRun;
}

// grad_a = g * b * f'(a), grad_b = g * f(a); each output may alias an input, the two outputs may not overlap.
inline Verdict GegluBackward(size_t element, size_t alignment, const void* g, const void* a, const void* b,
                             const void* ga, const void* gb, size_t n) {
  size_t bytes;
  if (!CheckedMul(n, element, &bytes)) return Verdict::kInvalid;
  if (n == 0) return Verdict::kNothingToDo;
  if (!Usable({g, a, b, ga, gb}, alignment)) return Verdict::kInvalid;
  for (const void* in : {g, a, b}) {
    if (PartialOverlap(in, ga, bytes) || PartialOverlap(in, gb, bytes)) return Verdict::kInvalid;
  }
  if (Overlap(ga, bytes, gb, bytes)) return Verdict::kInvalid;
  return Verdict::kRun;
}

// x is rows x (2 cols) = [a | b] per row, y is rows x cols; y may not overlap x.
inline Verdict GegluRowsForward(size_t element, size_t alignment, const void* x, const void* y, size_t rows,
                                size_t cols) {
  size_t n, bytes;
  if (!CheckedMul(rows, cols, &n) || !CheckedMul(n, 2 * element, &bytes) || cols > SIZE_MAX / 2) {
    return Verdict::kInvalid;
  }
  if (n == 0) return Verdict::kNothingToDo;
  if (!Usable({x, y}, alignment)) return Verdict::kInvalid;
  if (Overlap(x, bytes, y, bytes / 2)) return Verdict::kInvalid;
  return Verdict::kRun;
}

// g is rows x cols, x and grad_x rows x (2 cols); grad_x may alias x and may not overlap g.
inline Verdict GegluRowsBackward(size_t element, size_t alignment, const void* g, const void* x, const void* gx,
                                 size_t rows, size_t cols) {
  size_t n, bytes;
  if (!CheckedMul(rows, cols, &n) || !CheckedMul(n, 2 * element, &bytes) || cols > SIZE_MAX / 2) {
    return Verdict::kInvalid;
  }
  if (n == 0) return Verdict::kNothingToDo;
  if (!Usable({g, x, gx}, alignment)) return Verdict::kInvalid;
  if (PartialOverlap(x, gx, bytes) || Overlap(g, bytes / 2, gx, bytes)) return Verdict::kInvalid;
  return Verdict::kRun;
}

}  // namespace gelu::validate

#endif  // GELU_SRC_COMMON_VALIDATE_H_
