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

#include "gelu/gelu.h"  // gelu_approximate (a C header: no standard library either)

namespace gelu::common {

// The three forms of GELU: gelu.h's gelu_approximate, the one enum from the C entry points through the kernels, the
// tools and the bindings (Form is its C++ spelling here, kNone.. its values; include/gelu/gelu.hpp's scoped
// Approximation is the public C++ API's spelling of the same values). Unscoped with an int base: it converts to int
// and indexes per-form arrays (kFormNames, references).
using Form = gelu_approximate;
inline constexpr Form kNone = GELU_APPROXIMATE_NONE, kTanh = GELU_APPROXIMATE_TANH, kSigmoid = GELU_APPROXIMATE_SIGMOID;
inline constexpr int kNumForms = 3;  // kNone, kTanh, kSigmoid: the values of gelu_approximate
inline constexpr Form kForms[kNumForms] = {kNone, kTanh, kSigmoid};

// The formulas the storage kernels evaluate: each form (same number), then the two named variants whose formula is
// none of the three (gelu.h: gelu_fast, gelu_10). Scoped, so that a variant formula never passes for a form.
enum class Formula : int { kNone = 0, kTanh = 1, kSigmoid = 2, kGeluFast = 3, kGelu10 = 4 };
inline constexpr int kNumFormulas = 5;  // the forms and the two variant formulas
inline constexpr const char* kFormNames[kNumFormulas] = {"none", "tanh", "sigmoid", "gelu_fast", "gelu_10"};
// Each form's formula in plain ASCII (`gelu eval --list-forms`; no commas, so that a CSV cell needs no quoting); the
// variants' formulas are gelu.h's gelu_variant contract.
inline constexpr const char* kFormFormulas[kNumForms] = {
    "x*Phi(x) = 0.5*x*erfc(-x/sqrt(2))", "0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3)))", "x*sigmoid(1.702*x)"};
inline constexpr Formula FormulaOf(Form f) { return static_cast<Formula>(f); }
inline constexpr bool IsForm(Formula f) { return static_cast<int>(f) >= 0 && static_cast<int>(f) < kNumForms; }
// The form whose formula f is; f must be a form (IsForm).
inline constexpr Form FormOf(Formula f) { return static_cast<Form>(f); }
inline constexpr bool IsApproximateForm(int form) { return form >= 0 && form < kNumForms; }

// ---- The one mapping from a runtime form or formula to compile-time code. Every entry point, CPU and CUDA, turns
// its validated gelu_approximate (or variant formula) into a template argument here and nowhere else:
//   VisitForm(form, [&](auto k) { return Kernel<decltype(k)::value>(...); });
// k is FormConstant<form> (or FormulaConstant<formula>); decltype(k)::value is the constant. The switches have one
// case per enumerator and no default, and -Wswitch is an error for them (the pragma below, and CMake's
// -Werror=switch for every target), so a form added to the enum without a case here does not compile. The value
// must be valid (the entry points validate it first, src/common/validate.h).
template <Form kValue>
struct FormConstant {
  static constexpr Form value = kValue;
};
template <Formula kValue>
struct FormulaConstant {
  static constexpr Formula value = kValue;
};

// Host and device (nvcc): the scalar math of src/common dispatches a runtime form in device code too. The exec
// check is off because a host-only caller passes a host lambda (as Thrust does for its host/device templates).
#if defined(__CUDACC__)
#define GELU_VISIT_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#define GELU_VISIT_HD __host__ __device__
#else
#define GELU_VISIT_EXEC_CHECK_DISABLE
#define GELU_VISIT_HD
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
#endif
GELU_VISIT_EXEC_CHECK_DISABLE
template <class F>
GELU_VISIT_HD constexpr decltype(auto) VisitForm(Form form, F&& f) {
  switch (form) {
    case kNone: return f(FormConstant<kNone>{});
    case kTanh: return f(FormConstant<kTanh>{});
    case kSigmoid: return f(FormConstant<kSigmoid>{});
  }
  __builtin_unreachable();  // validated by the caller
}
GELU_VISIT_EXEC_CHECK_DISABLE
template <class F>
GELU_VISIT_HD constexpr decltype(auto) VisitFormula(Formula formula, F&& f) {
  switch (formula) {
    case Formula::kNone: return f(FormulaConstant<Formula::kNone>{});
    case Formula::kTanh: return f(FormulaConstant<Formula::kTanh>{});
    case Formula::kSigmoid: return f(FormulaConstant<Formula::kSigmoid>{});
    case Formula::kGeluFast: return f(FormulaConstant<Formula::kGeluFast>{});
    case Formula::kGelu10: return f(FormulaConstant<Formula::kGelu10>{});
  }
  __builtin_unreachable();  // validated by the caller
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

enum Direction : int { kForward = 0, kBackward = 1 };

// The storage types: gelu.h's gelu_dtype, the one enum from the C entry points through the storage loops, the
// tools and the bindings (Type is its C++ spelling here, kF32.. its values), with their names and element sizes in
// its order (gelu_dtype_name, gelu_dtype_size), and as bits of a set (Function::types).
using Type = gelu_dtype;
inline constexpr Type kF32 = GELU_DTYPE_FLOAT32, kF64 = GELU_DTYPE_FLOAT64, kBf16 = GELU_DTYPE_BFLOAT16,
                      kF16 = GELU_DTYPE_FLOAT16;
inline constexpr int kNumTypes = 4;
inline constexpr Type kTypes[kNumTypes] = {kF32, kF64, kBf16, kF16};
inline constexpr const char* kTypeNames[kNumTypes] = {"float32", "float64", "bfloat16", "float16"};
inline constexpr size_t kTypeSizes[kNumTypes] = {4, 8, 2, 2};
// The suffix of a type's C entry points (gelu_forward_f32, gelu_backward_bf16, gelu_variant_forward_f16, ...).
inline constexpr const char* kTypeSuffixes[kNumTypes] = {"f32", "f64", "bf16", "f16"};
inline constexpr bool IsType(int t) { return t >= 0 && t < kNumTypes; }
inline constexpr unsigned TypeBit(Type t) { return 1u << static_cast<int>(t); }
inline constexpr size_t TypeSize(Type t) { return kTypeSizes[static_cast<int>(t)]; }  // t in the enum
inline constexpr const char* TypeSuffix(Type t) { return kTypeSuffixes[static_cast<int>(t)]; }

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
  Formula formula;
  Direction direction;
  unsigned types;     // TypeBit of each storage type the C API offers it in
  double f32_ulp;     // float32 bound, ULP (see above)
  double f32_abs;     // float32 absolute bound in the near-root window (derivatives; 0 for forward)
  double f64_ulp;     // float64 bound, ULP (0: no float64 function)
  double f64_abs;
  constexpr bool backward() const { return direction == kBackward; }
  constexpr bool is_form() const { return IsForm(formula); }
  constexpr Form form() const { return FormOf(formula); }  // for a row of the three forms (is_form())
  constexpr bool Has(Type t) const { return (types & TypeBit(t)) != 0; }
};

inline constexpr unsigned kAllTypes = TypeBit(kF32) | TypeBit(kF64) | TypeBit(kBf16) | TypeBit(kF16);
inline constexpr unsigned kVariantTypes = TypeBit(kF32) | TypeBit(kBf16) | TypeBit(kF16);  // gelu_variant_*: no float64

inline constexpr Function kFunctions[] = {
    {"forward none", Formula::kNone, kForward, kAllTypes, 1.0, 0.0, 2.0, 0.0},
    {"forward tanh", Formula::kTanh, kForward, kAllTypes, 2.0, 0.0, 2.0, 0.0},
    {"forward sigmoid", Formula::kSigmoid, kForward, kAllTypes, 2.0, 0.0, 2.0, 0.0},
    {"backward none", Formula::kNone, kBackward, kAllTypes, 2.0, 0x1p-24, 2.0, 0x1p-53},
    {"backward tanh", Formula::kTanh, kBackward, kAllTypes, 2.0, 0x1p-24, 2.0, 0x1p-53},
    {"backward sigmoid", Formula::kSigmoid, kBackward, kAllTypes, 2.0, 0x1p-24, 2.0, 0x1p-53},
    // gelu_fast: as the tanh form (gelu.h); gelu_10: as the exact form below the clip.
    {"forward gelu_fast", Formula::kGeluFast, kForward, kVariantTypes, 2.0, 0.0, 0.0, 0.0},
    {"forward gelu_10", Formula::kGelu10, kForward, kVariantTypes, 1.0, 0.0, 0.0, 0.0},
    {"backward gelu_fast", Formula::kGeluFast, kBackward, kVariantTypes, 2.0, 0x1p-24, 0.0, 0.0},
    {"backward gelu_10", Formula::kGelu10, kBackward, kVariantTypes, 2.0, 0x1p-24, 0.0, 0.0},
};
inline constexpr int kNumFunctions = sizeof(kFunctions) / sizeof(kFunctions[0]);

// Whether f is one of the three forms' functions (what gelu_forward_* / gelu_backward_* compute) in type t.
inline constexpr bool IsFormFunctionIn(const Function& f, Type t) { return f.is_form() && f.Has(t); }

// The function of (form, direction), or nullptr.
inline constexpr const Function* FindFunction(Formula formula, Direction direction) {
  for (const Function& f : kFunctions) {
    if (f.formula == formula && f.direction == direction) return &f;
  }
  return nullptr;
}

}  // namespace gelu::common

#endif  // GELU_SRC_COMMON_FUNCTIONS_H_
