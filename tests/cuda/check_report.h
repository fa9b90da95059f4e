// SPDX-License-Identifier: Apache-2.0
// What a check found (Report), and what fills it: the comparison of device results with the expected ones, a failed
// CUDA call, a library call that did not return GELU_OK.
#ifndef GELU_TESTS_CUDA_CHECK_REPORT_H_
#define GELU_TESTS_CUDA_CHECK_REPORT_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gelu/gelu_cuda.h"
#include "tests/cuda/cuda_functions.h"

namespace gelu::cuda_test {

struct Report {
  bool skipped = false;
  std::string skip_reason;
  uint64_t checked = 0;      // elements compared
  uint64_t mismatches = 0;   // results that differ from the host's, plus guard elements that changed
  std::string failures;      // the first few, one per line
  std::string cuda_error;    // a failed CUDA call, if any (then the check stopped)
  bool ok() const { return skipped || (mismatches == 0 && cuda_error.empty()); }
  void Fail(const std::string& line) {
    ++mismatches;
    if (mismatches <= 8) failures += line + "\n";
  }
  std::string Summary() const;
};

// Compares n results; g may be null (forward). Thread-safe accumulation into r.
// want_name names the expected results in the failure lines.
void Compare(const Function& f, const void* g, const void* x, const void* got, const void* want, size_t n,
             uint64_t index_base, Report* r, const char* want_name = "host");

// Records a failed CUDA call in r; true if it failed.
bool Failed(cudaError_t err, const char* what, Report* r);
// The library call's status in r; true if it returned GELU_OK.
bool CallOk(gelu_status s, const std::string& what, Report* r);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_CHECK_REPORT_H_
