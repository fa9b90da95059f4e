// SPDX-License-Identifier: Apache-2.0
// The functions of gelu_cuda that the checks run (src/common/functions.h: the three forms, forward and backward, in
// each storage type the GPU offers), named for reports and GoogleTest, and the C API call of each
// (include/gelu/gelu_cuda.h).
#ifndef GELU_TESTS_CUDA_CUDA_FUNCTIONS_H_
#define GELU_TESTS_CUDA_CUDA_FUNCTIONS_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "gelu/gelu_cuda.h"
#include "src/common/functions.h"

namespace gelu::cuda_test {

// The storage types the GPU offers: float32, bfloat16, float16 (common::Type, gelu.h's gelu_dtype; no float64).
using common::Type;
using common::TypeSize;
using common::TypeSuffix;  // the C API's suffix of a type's entry points ("f32", "bf16", "f16")
inline const char* FormName(common::Form form) { return common::kFormNames[form]; }

struct Function {
  Type type;
  bool backward;
  common::Form form;
  std::string Name() const;
  // Name() as a GoogleTest parameter name, which may not contain '/'.
  std::string TestName() const;
};

// The name generator of INSTANTIATE_TEST_SUITE_P over Functions (a testing::TestParamInfo<Function>).
struct FunctionTestName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return info.param.TestName();
  }
};

// GoogleTest prints parameters with this (found by argument-dependent lookup).
void PrintTo(const Function& f, std::ostream* os);

// The CUDA entry points of the table's functions (src/common/functions.h): the three forms, forward and backward,
// in each storage type the GPU offers.
std::vector<Function> AllFunctions();

// The C API call for f. g is ignored by forward functions.
gelu_status Call(const Function& f, const void* g, const void* x, void* y, size_t n, gelu_approximate a,
                 void* stream);
gelu_status Call(const Function& f, const void* g, const void* x, void* y, size_t n, void* stream);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_CUDA_FUNCTIONS_H_
