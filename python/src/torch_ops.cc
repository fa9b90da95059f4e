// SPDX-License-Identifier: Apache-2.0
// gelu.torch's operators in C++ on PyTorch's stable ABI: gelu::gelu(Tensor x, str approximate) -> Tensor and
// gelu::gelu_backward(Tensor grad, Tensor x, str approximate) -> Tensor, their schemas and CPU kernels. Built
// against the stable headers only (torch/csrc/stable, torch/headeronly) with TORCH_TARGET_VERSION set to the
// oldest torch it serves (CMake: GELU_TORCH_TARGET_VERSION), so one binary loads into every torch from that version
// on. python/gelu/torch.py loads it, then registers in Python what the stable ABI does not reach: the fake (meta)
// kernels, autograd (double backward included) and the CUDA kernels (through the gelu_cuda binding). An older torch
// or GELU_TORCH_OPS=python takes the torch.library.custom_op path of the same module instead: both define the same
// operators, with the same errors, and run the same tests.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>

#include "gelu/gelu.h"

namespace {

using torch::headeronly::ScalarType;
using torch::stable::Tensor;

// The form named by `approximate` (gelu_approximate_from_name), or the error gelu.torch's Python path raises.
gelu_approximate ParseApproximate(const std::string& approximate) {
  gelu_approximate form;
  if (gelu_approximate_from_name(approximate.c_str(), &form) == GELU_OK) return form;
  std::string valid;
  for (int f = 0; gelu_approximate_name(static_cast<gelu_approximate>(f)) != nullptr; ++f) {
    valid += std::string(f ? ", '" : "'") + gelu_approximate_name(static_cast<gelu_approximate>(f)) + "'";
  }
  throw std::invalid_argument("unknown approximate '" + approximate + "'; valid values are " + valid);
}

const char* DtypeName(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return "torch.float32";
    case ScalarType::Double: return "torch.float64";
    case ScalarType::Half: return "torch.float16";
    case ScalarType::BFloat16: return "torch.bfloat16";
    case ScalarType::Long: return "torch.int64";
    case ScalarType::Int: return "torch.int32";
    default: return "this dtype";
  }
}

// "(torch.float32, (4, 5), cpu)", as gelu.torch's Python kernels describe a tensor (dtype, shape tuple, device).
std::string Describe(const Tensor& t) {
  std::string shape = "(";
  for (int64_t d = 0; d < t.dim(); ++d) shape += (d ? ", " : "") + std::to_string(t.size(d));
  shape += t.dim() == 1 ? ",)" : ")";
  const std::string device = t.is_cpu() ? "cpu" : "cuda:" + std::to_string(t.get_device_index());
  return std::string("(") + DtypeName(t.scalar_type()) + ", " + shape + ", " + device + ")";
}

// One kernel call of the library on elements [begin, end) of contiguous arrays.
struct Call {
  gelu_dtype dtype;
  gelu_approximate approximate;
  const void* grad;  // null: forward
  const void* x;
  void* y;
  gelu_status operator()(int64_t begin, int64_t end) const {
    const size_t bytes = gelu_dtype_size(dtype);
    auto at = [&](const void* p) { return static_cast<const char*>(p) + begin * bytes; };
    const auto n = static_cast<size_t>(end - begin);
    void* out = static_cast<char*>(y) + begin * bytes;
    return grad == nullptr ? gelu_forward(dtype, at(x), out, n, approximate)
                           : gelu_backward(dtype, at(grad), at(x), out, n, approximate);
  }
};

// The CPU kernels take strided tensors of the library's four dtypes (on other devices the Python registrations run).
gelu_dtype Route(const char* op, const Tensor& x) {
  gelu_dtype dtype;
  switch (x.scalar_type()) {
    case ScalarType::Float: dtype = GELU_DTYPE_FLOAT32; break;
    case ScalarType::Double: dtype = GELU_DTYPE_FLOAT64; break;
    case ScalarType::Half: dtype = GELU_DTYPE_FLOAT16; break;
    case ScalarType::BFloat16: dtype = GELU_DTYPE_BFLOAT16; break;
    default:
      throw std::domain_error(std::string(op) + ": the gelu library does not handle dtype " +
                              DtypeName(x.scalar_type()) + "; gelu.torch.gelu falls back to torch.nn.functional.gelu "
                              "for such tensors, the operator does not");
  }
  if (x.layout() != torch::headeronly::Layout::Strided) {
    throw std::domain_error(std::string(op) + ": the gelu library does not handle this layout; gelu.torch.gelu "
                            "falls back to torch.nn.functional.gelu for such tensors, the operator does not");
  }
  return dtype;
}

// Elements per library call: below the library's own threading threshold (src/parallel/parallel.h,
// kMinParallelElements = 64 Ki), so the library never starts threads of its own inside an operator: torch's
// intra-op pool (torch.set_num_threads) splits the array, and each part runs on its thread. Whole multiples of 64
// elements per part, as the library splits (no two threads share a cache line of output); the bits do not depend
// on the split.
constexpr int64_t kPart = (int64_t{1} << 16) - 64;

void Run(const Call& call, int64_t n) {
  auto body = [&call](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; b += kPart) {
      const gelu_status s = call(b, b + kPart < end ? b + kPart : end);
      if (s != GELU_OK) throw std::runtime_error(std::string("gelu library: ") + gelu_status_string(s));
    }
  };
  if (n <= kPart) {
    body(0, n);  // one part: no parallel region (its cost is most of a small call)
  } else {
    torch::stable::parallel_for(0, (n + 63) / 64, kPart / 64, [&body, n](int64_t begin, int64_t end) {
      body(begin * 64, end * 64 < n ? end * 64 : n);
    });
  }
}

Tensor Forward(Tensor x, std::string approximate) {
  const gelu_approximate form = ParseApproximate(approximate);
  const auto dtype = Route("gelu::gelu", x);
  x = torch::stable::contiguous(x);
  Tensor y = torch::stable::empty_like(x);
  Run(Call{dtype, form, nullptr, x.const_data_ptr(), y.mutable_data_ptr()}, x.numel());
  return y;
}

Tensor Backward(Tensor grad, Tensor x, std::string approximate) {
  const gelu_approximate form = ParseApproximate(approximate);
  const auto dtype = Route("gelu::gelu_backward", x);
  bool same_shape = grad.dim() == x.dim();
  for (int64_t d = 0; same_shape && d < x.dim(); ++d) same_shape = grad.size(d) == x.size(d);
  if (!same_shape || grad.scalar_type() != x.scalar_type() || !grad.is_cpu() || !x.is_cpu()) {
    throw std::invalid_argument("gelu::gelu_backward: grad and x must have the same dtype, shape and device; got grad " +
                                Describe(grad) + " and x " + Describe(x));
  }
  x = torch::stable::contiguous(x);
  grad = torch::stable::contiguous(grad);
  Tensor grad_in = torch::stable::empty_like(x);
  Run(Call{dtype, form, grad.const_data_ptr(), x.const_data_ptr(), grad_in.mutable_data_ptr()}, x.numel());
  return grad_in;
}

}  // namespace

STABLE_TORCH_LIBRARY(gelu, m) {
  m.def("gelu(Tensor x, str approximate) -> Tensor");
  m.def("gelu_backward(Tensor grad, Tensor x, str approximate) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(gelu, CPU, m) {
  m.impl("gelu", TORCH_BOX(&Forward));
  m.impl("gelu_backward", TORCH_BOX(&Backward));
}
