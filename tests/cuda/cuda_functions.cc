// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/cuda_functions.h"

#include <cstdint>

namespace gelu::cuda_test {

std::string Function::Name() const {
  return std::string(backward ? "backward_" : "forward_") + TypeSuffix(type) + "/" + FormName(form);
}
std::string Function::TestName() const {
  std::string s = Name();
  for (char& c : s) c = c == '/' ? '_' : c;
  return s;
}

void PrintTo(const Function& f, std::ostream* os) { *os << f.Name(); }

std::vector<Function> AllFunctions() {
  std::vector<Function> all;
  for (Type t : {common::kF32, common::kBf16, common::kF16}) {
    for (const common::Function& f : common::kFunctions) {
      if (f.is_form() && f.Has(t)) all.push_back({t, f.backward(), f.form()});
    }
  }
  return all;
}

gelu_status Call(const Function& f, const void* g, const void* x, void* y, size_t n, gelu_approximate a,
                 void* stream) {
  using U = uint16_t;
  switch (f.type) {
    case common::kF32:
      return f.backward ? gelu_cuda_backward_f32(static_cast<const float*>(g), static_cast<const float*>(x),
                                                 static_cast<float*>(y), n, a, stream)
                        : gelu_cuda_forward_f32(static_cast<const float*>(x), static_cast<float*>(y), n, a, stream);
    case common::kBf16:
      return f.backward ? gelu_cuda_backward_bf16(static_cast<const U*>(g), static_cast<const U*>(x),
                                                  static_cast<U*>(y), n, a, stream)
                        : gelu_cuda_forward_bf16(static_cast<const U*>(x), static_cast<U*>(y), n, a, stream);
    default:
      return f.backward ? gelu_cuda_backward_f16(static_cast<const U*>(g), static_cast<const U*>(x),
                                                 static_cast<U*>(y), n, a, stream)
                        : gelu_cuda_forward_f16(static_cast<const U*>(x), static_cast<U*>(y), n, a, stream);
  }
}
gelu_status Call(const Function& f, const void* g, const void* x, void* y, size_t n, void* stream) {
  return Call(f, g, x, y, n, static_cast<gelu_approximate>(f.form), stream);
}

}  // namespace gelu::cuda_test
