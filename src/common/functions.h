// SPDX-License-Identifier: Apache-2.0
// Every function of the library, listed once: its formula, direction, storage types and accuracy bounds.
// Tests (accuracy, thread counts, refused arguments), benchmarks, `gelu accuracy`, `gelu bench`, the Python
// module and the CUDA checks iterate this table; a new form is one row here plus its math. Plain constexpr C++
// (no standard library), so host code, nvcc and the kernels can all include it.
//
// The bounds are the claims of include/gelu/gelu.h and docs/ACCURACY.md:
//   float32  forward none <= 1 ULP of the exact value; forward tanh, sigmoid <= 2 ULP of their own formula;
//            every derivative <= 2 ULP, except in the near-root window (below), where |error| <= 2^-24;
//   float64  <= 2 ULP everywhere, |error| <= 2^-53 in the near-root window;
//   bf16, fp16: correctly rounded (0 ULP; compared bit for bit);
//   backward with grad_out other than 1 (float32: any finite grad_out, docs/ACCURACY.md): grad_out * f'(x) within
//   the derivative's bound (ULP of the product; in the near-root window, |error| <= |grad_out| * the absolute
//   bound, plus one subnormal ULP in float32).
#ifndef GELU_SRC_COMMON_FUNCTIONS_H_
#define GELU_SRC_COMMON_FUNCTIONS_H_

namespace gelu::common {

// The formulas the kernels evaluate: the three forms, numbered as the C API's gelu_approximate (the enum at the
// API edge), then the two named variants whose formula is none of the three (gelu.h: gelu_fast, gelu_10).
// Unscoped with an int base: it converts to the int that the per-target kernels take.
enum Form : int { kNone = 0, kTanh = 1, kSigmoid = 2, kGeluFast = 3, kGelu10 = 4 };
inline constexpr int kNumForms = 3;     // kNone, kTanh, kSigmoid: the values of gelu_approximate
inline constexpr int kNumFormulas = 5;  // the forms and the two variant formulas
inline constexpr const char* kFormNames[kNumFormulas] = {"none", "tanh", "sigmoid", "gelu_fast", "gelu_10"};
inline constexpr bool IsApproximateForm(Form f) { return f >= kNone && f < kNumForms; }

enum Direction : int { kForward = 0, kBackward = 1 };

// Storage types, as bits of Function::types.
enum Type : unsigned { kF32 = 1u, kF64 = 2u, kBf16 = 4u, kF16 = 8u };

// Where a derivative's claim is absolute instead of relative: every form's f' crosses zero near x = -0.7518,
// where relative error is meaningless. Inside lo < x < hi with |f'(x)| < max_derivative the bound is absolute;
// the far negative tail (x <= -2), where f' is also small, keeps its relative bound.
struct NearRootWindow {
  double lo, hi, max_derivative;
};
inline constexpr NearRootWindow kNearRoot = {-2.0, 0.0, 0x1p-8};
inline constexpr bool InNearRootWindow(double x, double derivative) {
  return x > kNearRoot.lo && x < kNearRoot.hi && (derivative < 0 ? -derivative : derivative) < kNearRoot.max_derivative;
}

struct Function {
  const char* name;   // "forward none", "backward gelu_fast"
  Form form;
  Direction direction;
  unsigned types;     // Type bits: the storage types the C API offers it in
  double f32_ulp;     // float32 bound, ULP (see above)
  double f32_abs;     // float32 absolute bound in the near-root window (derivatives; 0 for forward)
  double f64_ulp;     // float64 bound, ULP (0: no float64 function)
  double f64_abs;
  bool backward() const { return direction == kBackward; }
  bool Has(Type t) const { return (types & t) != 0; }
};

inline constexpr unsigned kAllTypes = kF32 | kF64 | kBf16 | kF16;
inline constexpr unsigned kVariantTypes = kF32 | kBf16 | kF16;  // gelu_variant_*: no float64

inline constexpr Function kFunctions[] = {
    {"forward none", kNone, kForward, kAllTypes, 1.0, 0.0, 2.0, 0.0},
    {"forward tanh", kTanh, kForward, kAllTypes, 2.0, 0.0, 2.0, 0.0},
    {"forward sigmoid", kSigmoid, kForward, kAllTypes, 2.0, 0.0, 2.0, 0.0},
    {"backward none", kNone, kBackward, kAllTypes, 2.0, 0x1p-24, 2.0, 0x1p-53},
    {"backward tanh", kTanh, kBackward, kAllTypes, 2.0, 0x1p-24, 2.0, 0x1p-53},
    {"backward sigmoid", kSigmoid, kBackward, kAllTypes, 2.0, 0x1p-24, 2.0, 0x1p-53},
    // gelu_fast: as the tanh form (gelu.h); gelu_10: as the exact form below the clip.
    {"forward gelu_fast", kGeluFast, kForward, kVariantTypes, 2.0, 0.0, 0.0, 0.0},
    {"forward gelu_10", kGelu10, kForward, kVariantTypes, 1.0, 0.0, 0.0, 0.0},
    {"backward gelu_fast", kGeluFast, kBackward, kVariantTypes, 2.0, 0x1p-24, 0.0, 0.0},
    {"backward gelu_10", kGelu10, kBackward, kVariantTypes, 2.0, 0x1p-24, 0.0, 0.0},
};
inline constexpr int kNumFunctions = sizeof(kFunctions) / sizeof(kFunctions[0]);

// Whether f is one of the three forms' functions (what gelu_forward_* / gelu_backward_* compute) in type t.
inline constexpr bool IsFormFunctionIn(const Function& f, Type t) { return IsApproximateForm(f.form) && f.Has(t); }

// The function of (form, direction), or nullptr.
inline constexpr const Function* FindFunction(Form form, Direction direction) {
  for (const Function& f : kFunctions) {
    if (f.form == form && f.direction == direction) return &f;
  }
  return nullptr;
}

}  // namespace gelu::common

#endif  // GELU_SRC_COMMON_FUNCTIONS_H_
