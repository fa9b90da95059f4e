// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/check_report.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <vector>

#include "tests/cuda/element_bits.h"
#include "tests/cuda/host_reference.h"

namespace gelu::cuda_test {

std::string Report::Summary() const {
  char buf[160];
  if (skipped) return "SKIPPED (" + skip_reason + ")";
  std::snprintf(buf, sizeof buf, "%s: %llu compared, %llu mismatches", ok() ? "PASS" : "FAIL",
                static_cast<unsigned long long>(checked), static_cast<unsigned long long>(mismatches));
  std::string s = buf;
  if (!cuda_error.empty()) s += "; CUDA error: " + cuda_error;
  if (!failures.empty()) s += "\n" + failures;
  return s;
}

void Compare(const Function& f, const void* g, const void* x, const void* got, const void* want, size_t n,
             uint64_t index_base, Report* r, const char* want_name) {
  std::atomic<uint64_t> bad{0};
  std::vector<std::string> lines;
  std::mutex lines_mutex;
  ParallelFor(n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint32_t a = Element(f.type, got, i), b = Element(f.type, want, i);
      if (SameResult(f.type, a, b)) continue;
      if (bad.fetch_add(1) < 8) {
        std::string line = f.Name() + " i=" + std::to_string(index_base + i) + " x=" + Hex(Element(f.type, x, i), f.type);
        if (g != nullptr) line += " g=" + Hex(Element(f.type, g, i), f.type);
        line += " device=" + Hex(a, f.type) + " " + want_name + "=" + Hex(b, f.type);
        std::lock_guard<std::mutex> lock(lines_mutex);
        lines.push_back(line);
      }
    }
  });
  r->checked += n;
  const uint64_t total = bad.load();
  for (const auto& line : lines) r->Fail(line);
  r->mismatches += total - std::min<uint64_t>(total, lines.size());
}

bool Failed(cudaError_t err, const char* what, Report* r) {
  if (err == cudaSuccess) return false;
  if (r->cuda_error.empty()) r->cuda_error = std::string(what) + ": " + cudaGetErrorString(err);
  return true;
}
bool CallOk(gelu_status s, const std::string& what, Report* r) {
  if (s == GELU_OK) return true;
  if (r->cuda_error.empty()) {
    r->cuda_error = what + " returned " + std::to_string(s) + ": " + gelu_cuda_last_error_string();
  }
  return false;
}

}  // namespace gelu::cuda_test
