// SPDX-License-Identifier: Apache-2.0
// Named GELU variants (Hugging Face transformers' ACT2FN names): lookup by name and the C entry points.
// Each name maps to its common::Formula (src/common/functions.h; docs/VARIANTS.md): six names are one
// of the three forms and reuse the form kernels (float32: the very functions gelu_forward_f32/gelu_backward_f32,
// so the bits match them); gelu_fast and gelu_10 are the two formulas that are not a form, kGeluFast and kGelu10,
// with kernels of their own (src/cpu/storage_paths-inl.h, FormulaDoublePath).
#include <cstdint>
#include <cstring>

#include "gelu/gelu.h"
#include "src/cpu/storage_kernels.h"

namespace {

struct VariantInfo {
  const char* name;
  gelu::common::Formula formula;
};

// Indexed by gelu_variant.
constexpr VariantInfo kVariants[GELU_VARIANT_COUNT] = {
    {"gelu", gelu::common::Formula::kNone},                // GELUActivation: torch.nn.functional.gelu
    {"gelu_python", gelu::common::Formula::kNone},         // x * 0.5 * (1 + erf(x / sqrt(2)))
    {"gelu_new", gelu::common::Formula::kTanh},            // NewGELUActivation
    {"gelu_pytorch_tanh", gelu::common::Formula::kTanh},   // F.gelu(approximate="tanh")
    {"gelu_accurate", gelu::common::Formula::kTanh},       // AccurateGELUActivation: sqrt(2/pi) precomputed
    {"gelu_fast", gelu::common::Formula::kGeluFast},       // FastGELUActivation: 0.7978845608
    {"quick_gelu", gelu::common::Formula::kSigmoid},       // QuickGELUActivation: x * sigmoid(1.702 x)
    {"gelu_10", gelu::common::Formula::kGelu10},           // ClippedGELUActivation(-10, 10)
};

bool Known(gelu_variant v) { return static_cast<unsigned>(v) < GELU_VARIANT_COUNT; }

template <bool kBackward>
gelu_status RunF32(gelu_variant v, const float* g, const float* x, float* y, size_t n) {
  if (!Known(v)) return GELU_UNKNOWN_VARIANT;
  const gelu::common::Formula formula = kVariants[v].formula;
  if (gelu::common::IsForm(formula)) {
    const auto a = static_cast<gelu_approximate>(gelu::common::FormOf(formula));
    return kBackward ? gelu_backward_f32(g, x, y, n, a) : gelu_forward_f32(x, y, n, a);
  }
  return gelu::cpu::RunElementwise(gelu::common::kF32, formula, kBackward, g, x, y, n);
}

gelu_status RunHalf(gelu::common::Type io, bool backward, gelu_variant v, const uint16_t* g, const uint16_t* x,
                    uint16_t* y, size_t n) {
  if (!Known(v)) return GELU_UNKNOWN_VARIANT;
  return gelu::cpu::RunElementwise(io, kVariants[v].formula, backward, g, x, y, n);
}

}  // namespace

extern "C" {

gelu_status gelu_variant_from_name(const char* name, gelu_variant* out) {
  if (out == nullptr) return GELU_INVALID_ARGUMENT;
  if (name == nullptr) return GELU_UNKNOWN_VARIANT;
  for (int i = 0; i < GELU_VARIANT_COUNT; ++i) {
    if (std::strcmp(name, kVariants[i].name) == 0) {
      *out = static_cast<gelu_variant>(i);
      return GELU_OK;
    }
  }
  return GELU_UNKNOWN_VARIANT;
}

const char* gelu_variant_name(gelu_variant variant) { return Known(variant) ? kVariants[variant].name : nullptr; }

int gelu_variant_approximate(gelu_variant variant) {
  if (!Known(variant)) return -1;
  const gelu::common::Formula formula = kVariants[variant].formula;
  return gelu::common::IsForm(formula) ? gelu::common::FormOf(formula) : -1;
}

gelu_status gelu_variant_forward_f32(gelu_variant variant, const float* x, float* y, size_t n) {
  return RunF32<false>(variant, nullptr, x, y, n);
}
gelu_status gelu_variant_backward_f32(gelu_variant variant, const float* grad_out, const float* x, float* grad_in,
                                      size_t n) {
  return RunF32<true>(variant, grad_out, x, grad_in, n);
}
gelu_status gelu_variant_forward_bf16(gelu_variant variant, const uint16_t* x, uint16_t* y, size_t n) {
  return RunHalf(gelu::common::kBf16, false, variant, nullptr, x, y, n);
}
gelu_status gelu_variant_backward_bf16(gelu_variant variant, const uint16_t* grad_out, const uint16_t* x,
                                       uint16_t* grad_in, size_t n) {
  return RunHalf(gelu::common::kBf16, true, variant, grad_out, x, grad_in, n);
}
gelu_status gelu_variant_forward_f16(gelu_variant variant, const uint16_t* x, uint16_t* y, size_t n) {
  return RunHalf(gelu::common::kF16, false, variant, nullptr, x, y, n);
}
gelu_status gelu_variant_backward_f16(gelu_variant variant, const uint16_t* grad_out, const uint16_t* x,
                                      uint16_t* grad_in, size_t n) {
  return RunHalf(gelu::common::kF16, true, variant, grad_out, x, grad_in, n);
}

}  // extern "C"
