// SPDX-License-Identifier: Apache-2.0
// `gelu apply`: GELU (or its backward) of a .npy file, written atomically to another (or the same) .npy file.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gelu/gelu.hpp"
#include "tools/commands.h"
#include "tools/npy.h"

namespace gelu::cli {
namespace {

template <class T>
void Compute(std::vector<T>& x, const std::vector<T>* grad, Approximation form) {
  if (grad == nullptr) {
    gelu::forward(std::span<const T>(x), std::span<T>(x), form);  // in place
  } else {
    gelu::backward(std::span<const T>(*grad), std::span<const T>(x), std::span<T>(x), form);  // grad_in aliases x
  }
}

// float16 through the C API, which takes the bit patterns as uint16_t (npy::Array stores them so, and the .npy
// reader does not depend on the library's headers).
void ComputeF16(std::vector<uint16_t>& x, const std::vector<uint16_t>* grad, Approximation form) {
  const auto a = static_cast<gelu_approximate>(form);
  const gelu_status s = grad == nullptr ? gelu_forward_f16(x.data(), x.data(), x.size(), a)
                                        : gelu_backward_f16(grad->data(), x.data(), x.data(), x.size(), a);
  if (s != GELU_OK) throw Failure(std::string("gelu_") + (grad ? "backward" : "forward") + "_f16: " + gelu_status_string(s));
}

}  // namespace

int RunApply(const ApplyOptions& o) {
  const Approximation form = ParseForms(o.approximate, /*with_all=*/false).front();
  CheckThreadCount(o.threads);
  gelu::set_num_threads(o.threads);
  const auto t0 = std::chrono::steady_clock::now();
  npy::Array x = npy::Read(o.in);
  std::optional<npy::Array> grad;
  if (o.backward) {
    grad = npy::Read(*o.backward);
    if (grad->dtype != x.dtype) {
      throw Failure(fmt::format("GRAD '{}' is {} but IN '{}' is {}; they must have the same dtype",
                                *o.backward, npy::to_string(grad->dtype), o.in, npy::to_string(x.dtype)));
    }
    if (grad->shape != x.shape) {
      throw Failure(fmt::format("GRAD '{}' has shape {} but IN '{}' has shape {}", *o.backward,
                                npy::ShapeString(grad->shape), o.in, npy::ShapeString(x.shape)));
    }
    // Both orders hold the same elements in different sequences; pairing them needs a transpose, which a
    // pure elementwise tool should not guess at. Order only matters when two or more dimensions exceed 1.
    size_t big_dims = 0;
    for (uint64_t d : x.shape) big_dims += d > 1;
    if (grad->fortran_order != x.fortran_order && big_dims > 1) {
      throw Failure(fmt::format("GRAD '{}' is in {} order but IN '{}' is in {} order; save both the same way "
                                "(e.g. numpy.ascontiguousarray)",
                                *o.backward, grad->fortran_order ? "Fortran" : "C", o.in,
                                x.fortran_order ? "Fortran" : "C"));
    }
  }
  switch (x.dtype) {
    case npy::DType::f32: Compute(x.f32, grad ? &grad->f32 : nullptr, form); break;
    case npy::DType::f64: Compute(x.f64, grad ? &grad->f64 : nullptr, form); break;
    case npy::DType::f16: ComputeF16(x.f16, grad ? &grad->f16 : nullptr, form); break;
  }
  npy::Write(o.out, x);
  if (o.verbose) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "%s", fmt::format("gelu apply: wrote '{}': {} {} {}, {} elements, {} {} ({})\n", o.out,
                                           npy::to_string(x.dtype), npy::ShapeString(x.shape),
                                           x.fortran_order ? "Fortran order" : "C order", x.size(),
                                           o.backward ? "backward" : "forward", FormName(form), Duration(s))
                                   .c_str());
  }
  return 0;
}

Command AddApplyCommand(CLI::App& app) {
  auto o = std::make_shared<ApplyOptions>();
  auto backward = std::make_shared<std::string>();
  auto* sub = app.add_subcommand(
      "apply", "Apply GELU (or its backward) to a NumPy .npy file (float16, float32 or float64, any shape), writing a .npy "
               "of the same shape, dtype and order. OUT is written to a temporary file and renamed into place, so "
               "OUT may be IN and a failure leaves OUT untouched");
  sub->add_option("IN", o->in, "Input .npy (x)")->required();
  sub->add_option("OUT", o->out, "Output .npy: f(x), or GRAD * f'(x) with --backward")->required();
  AddFormOption(*sub, &o->approximate, "Form: {} (none: the exact GELU)", /*with_all=*/false);
  auto* backward_opt = sub->add_option("--backward", *backward,
                                       "GRAD .npy (grad_out, same shape and dtype as IN): write GRAD * f'(IN)");
  sub->add_option("--threads,-t", o->threads, "Threads (0: all hardware threads)")->capture_default_str();
  sub->add_flag("--verbose,-v", o->verbose, "Print what was written to stderr");
  return {sub, [o, backward, backward_opt] {
            if (*backward_opt) o->backward = *backward;
            return RunApply(*o);
          }};
}

}  // namespace gelu::cli
