// SPDX-License-Identifier: Apache-2.0
// `gelu eval` (numbers from the command line or stdin) and `gelu apply` (.npy in, .npy out).
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/gelu.hpp"
#include "tools/commands.h"
#include "tools/npy.h"

namespace gelu::cli {
namespace {

// Parses one token as a T: decimal or scientific ("1.5", "-2e-3", "+4"), hexadecimal float ("0x1.8p+1"),
// "inf", "-infinity", "nan" (any case). The whole token must be consumed. A number whose magnitude T cannot
// hold (1e39 in float32, or 1e-50, which would round to 0) is out of range rather than silently changed.
enum class Parsed { ok, not_number, out_of_range };
template <class T>
Parsed ParseNumber(std::string_view s, T& out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s[0] == '+' || s[0] == '-') return Parsed::not_number;
  auto format = std::chars_format::general;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    format = std::chars_format::hex;
  }
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, format);
  if (end != s.data() + s.size()) return Parsed::not_number;
  if (ec == std::errc::result_out_of_range) return Parsed::out_of_range;
  if (ec != std::errc()) return Parsed::not_number;
  if (negative) out = -out;
  return Parsed::ok;
}

struct Token {
  std::string text;
  std::string where;  // "argument 2" or "stdin line 3, token 1"
};

std::vector<Token> Tokens(const EvalOptions& o) {
  std::vector<Token> tokens;
  if (!o.values.empty()) {
    for (size_t i = 0; i < o.values.size(); ++i) tokens.push_back({o.values[i], fmt::format("argument {}", i + 1)});
    return tokens;
  }
  std::string line;
  for (size_t lineno = 1; std::getline(std::cin, line); ++lineno) {
    size_t pos = 0, k = 0;
    while (true) {
      pos = line.find_first_not_of(" \t\r\f\v", pos);
      if (pos == std::string::npos) break;
      const size_t end = std::min(line.find_first_of(" \t\r\f\v", pos), line.size());
      tokens.push_back({line.substr(pos, end - pos), fmt::format("stdin line {}, token {}", lineno, ++k)});
      pos = end;
    }
  }
  if (std::cin.bad()) throw Failure("cannot read stdin");
  return tokens;
}

template <class T>
int Eval(const EvalOptions& o) {
  const std::vector<Token> tokens = Tokens(o);
  std::vector<T> x(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Parsed p = ParseNumber(tokens[i].text, x[i]);
    if (p != Parsed::ok) {
      std::string shown = tokens[i].text.substr(0, 60);
      if (tokens[i].text.size() > 60) shown += "...";
      const char* type = sizeof(T) == 4 ? "float32" : "float64";
      throw Failure(p == Parsed::out_of_range
                        ? fmt::format("{}: '{}' is out of range for {}", tokens[i].where, shown, type)
                        : fmt::format("{}: '{}' is not a {} number", tokens[i].where, shown, type));
    }
  }
  const std::vector<Approximation> forms = ParseForms(o.approximate);
  std::vector<std::vector<T>> y(forms.size(), std::vector<T>(x.size())), dy = y;
  const std::vector<T> ones(x.size(), T(1));
  for (size_t f = 0; f < forms.size(); ++f) {
    gelu::forward(std::span<const T>(x), std::span<T>(y[f]), forms[f]);
    if (o.grad) gelu::backward(std::span<const T>(ones), std::span<const T>(x), std::span<T>(dy[f]), forms[f]);
  }
  // Shortest representation that reads back to the same value (fmt's "{}"), so nothing is lost in print.
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header = {"x", "approximate", "gelu"};
  if (o.grad) header.push_back("grad");
  for (size_t i = 0; i < x.size(); ++i) {
    for (size_t f = 0; f < forms.size(); ++f) {
      std::vector<std::string> row = {fmt::format("{}", x[i]), to_string(forms[f]), fmt::format("{}", y[f][i])};
      if (o.grad) row.push_back(fmt::format("{}", dy[f][i]));
      cells.push_back(std::move(row));
    }
  }
  std::string out;
  if (o.format == Format::csv) {
    out += fmt::format("{}\n", fmt::join(header, ","));
    for (const auto& row : cells) out += fmt::format("{}\n", fmt::join(row, ","));
  } else if (o.format == Format::json) {
    out += "[";
    size_t k = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      for (size_t f = 0; f < forms.size(); ++f, ++k) {
        out += fmt::format("{}\n  {{\"x\": {}, \"approximate\": \"{}\", \"gelu\": {}", k ? "," : "",
                           JsonNumber(x[i]), to_string(forms[f]), JsonNumber(y[f][i]));
        if (o.grad) out += fmt::format(", \"grad\": {}", JsonNumber(dy[f][i]));
        out += "}";
      }
    }
    out += k ? "\n]\n" : "]\n";
  } else {
    header[2] = "gelu(x)";
    if (o.grad) header[3] = "gelu'(x)";
    std::vector<size_t> width(header.size());
    for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const auto& row : cells) {
      for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    const auto line = [&](const std::vector<std::string>& row) {
      std::string s;
      for (size_t c = 0; c < row.size(); ++c) {
        // Numbers right-aligned, the form name left-aligned.
        s += c == 1 ? fmt::format("{:<{}}", row[c], width[c]) : fmt::format("{:>{}}", row[c], width[c]);
        s += c + 1 < row.size() ? "  " : "\n";
      }
      return s;
    };
    out += line(header);
    for (const auto& row : cells) out += line(row);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

int RunEval(const EvalOptions& o) {
  if (o.dtype == "float32") return Eval<float>(o);
  if (o.dtype == "float64") return Eval<double>(o);
  throw Failure("--dtype must be float32 or float64, not '" + o.dtype + "'");
}

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
  const std::vector<Approximation> forms = ParseForms(o.approximate);
  if (forms.size() != 1) throw Failure("--approximate must be none, tanh or sigmoid");
  if (o.threads < 0) throw Failure("--threads must be >= 0 (0: all hardware threads)");
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
    case npy::DType::f32: Compute(x.f32, grad ? &grad->f32 : nullptr, forms[0]); break;
    case npy::DType::f64: Compute(x.f64, grad ? &grad->f64 : nullptr, forms[0]); break;
    case npy::DType::f16: ComputeF16(x.f16, grad ? &grad->f16 : nullptr, forms[0]); break;
  }
  npy::Write(o.out, x);
  if (o.verbose) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "%s", fmt::format("gelu apply: wrote '{}': {} {} {}, {} elements, {} {} ({})\n", o.out,
                                           npy::to_string(x.dtype), npy::ShapeString(x.shape),
                                           x.fortran_order ? "Fortran order" : "C order", x.size(),
                                           o.backward ? "backward" : "forward", to_string(forms[0]), Duration(s))
                                   .c_str());
  }
  return 0;
}

}  // namespace gelu::cli
