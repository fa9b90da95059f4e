// SPDX-License-Identifier: Apache-2.0
// `gelu eval`: f(x) (and f'(x)) for numbers from the command line or stdin.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/gelu.hpp"
#include "src/common/functions.h"
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
  errno = 0;
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
  // getline stops at the end of the input and on a read error alike (stdin a directory: EISDIR), and std::cin
  // (synchronised with stdio) shows the error only as stdin's error flag: without this check it would pass for an
  // empty input.
  if (std::cin.bad() || std::ferror(stdin)) {
    throw Failure(errno != 0 ? fmt::format("cannot read stdin: {}", std::strerror(errno)) : "cannot read stdin");
  }
  return tokens;
}

template <class T>
int Eval(const EvalOptions& o) {
  const std::vector<Token> tokens = Tokens(o);
  std::vector<T> x(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Parsed p = ParseNumber(tokens[i].text, x[i]);
    if (p != Parsed::ok) {
      const char* type = sizeof(T) == 4 ? "float32" : "float64";
      throw Failure(p == Parsed::out_of_range
                        ? fmt::format("{}: {} is out of range for {}", tokens[i].where, npy::Quote(tokens[i].text), type)
                        : fmt::format("{}: {} is not a {} number", tokens[i].where, npy::Quote(tokens[i].text), type));
    }
  }
  const std::vector<Approximation> forms = ParseForms(o.approximate, /*with_all=*/true);
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
      std::vector<std::string> row = {fmt::format("{}", x[i]), FormName(forms[f]), fmt::format("{}", y[f][i])};
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
                           JsonNumber(x[i]), FormName(forms[f]), JsonNumber(y[f][i]));
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

// `--list-forms`: the function table's forms, each with its gelu_approximate value, name and formula
// (src/common/functions.h), for scripts and users that need the list without spelling it.
int ListForms(Format format) {
  std::string out;
  const std::vector<Approximation> forms = AllForms();
  const auto formula = [](Approximation a) { return common::kFormFormulas[static_cast<int>(a)]; };
  if (format == Format::json) {
    out += "[";
    for (size_t i = 0; i < forms.size(); ++i) {
      out += fmt::format("{}\n  {{\"value\": {}, \"name\": {}, \"formula\": {}}}", i ? "," : "",
                         static_cast<int>(forms[i]), JsonString(FormName(forms[i])), JsonString(formula(forms[i])));
    }
    out += forms.empty() ? "]\n" : "\n]\n";
  } else if (format == Format::csv) {
    out += "value,name,formula\n";
    for (Approximation a : forms) out += fmt::format("{},{},{}\n", static_cast<int>(a), FormName(a), formula(a));
  } else {
    size_t width = std::string_view("name").size();
    for (Approximation a : forms) width = std::max(width, std::string_view(FormName(a)).size());
    out += fmt::format("value  {:<{}}  formula\n", "name", width);
    for (Approximation a : forms) out += fmt::format("{:>5}  {:<{}}  {}\n", static_cast<int>(a), FormName(a), width, formula(a));
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

int RunEval(const EvalOptions& o) {
  if (o.list_forms) return ListForms(o.format);
  if (o.dtype == "float32") return Eval<float>(o);
  if (o.dtype == "float64") return Eval<double>(o);
  throw Failure("--dtype must be float32 or float64, not '" + o.dtype + "'");
}

namespace {

constexpr char kNegativeTag = '\x01';  // see TagNegativeNumbersAfterEval

bool LooksNegativeNumber(const char* s) {
  if (s[0] != '-' || s[1] == '\0' || s[1] == '-') return false;
  char* end = nullptr;
  std::strtod(s, &end);
  if (*end == '\0') return true;
  const std::string t(s + 1);  // -inf, -nan, -infinity
  return t == "inf" || t == "nan" || t == "infinity" || t == "INF" || t == "NAN" || t == "Inf" || t == "NaN";
}

}  // namespace

void TagNegativeNumbersAfterEval(std::vector<std::string>& args) {
  bool in_eval = false, after_dashes = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (!in_eval) {
      in_eval = args[i] == "eval";
      continue;
    }
    if (args[i] == "--") after_dashes = true;
    if (!after_dashes && LooksNegativeNumber(args[i].c_str())) args[i].insert(0, 1, kNegativeTag);
  }
}

Command AddEvalCommand(CLI::App& app) {
  auto o = std::make_shared<EvalOptions>();
  auto format = std::make_shared<std::string>("table");
  auto* sub = app.add_subcommand("eval", "Print f(x) (and f'(x) with --grad) for numbers given as arguments, or read "
                                         "whitespace-separated from stdin when none are given");
  auto* form = AddFormOption(*sub, &o->approximate, "Form: {} (none: the exact GELU)", /*with_all=*/true);
  sub->add_flag("--grad,-g", o->grad, "Also print the derivative f'(x)");
  sub->add_option("--dtype", o->dtype, "Compute in float32 or float64")
      ->check(CLI::IsMember({"float32", "float64"}))
      ->capture_default_str();
  sub->add_option("--format", *format, "Output: table, csv or json")
      ->check(CLI::IsMember(FormatChoices()))
      ->capture_default_str();
  auto* numbers =
      sub->add_option("X", o->values, "Numbers: decimal, 1e-3, 0x1.8p+1, inf, nan (negative ones need no `--`)");
  sub->add_flag("--list-forms", o->list_forms,
                "Print the forms (gelu_approximate's value, name and formula) instead of evaluating; with --format")
      ->excludes(numbers)
      ->excludes(form)
      ->excludes("--grad");
  return {sub, [o, format] {
            for (std::string& v : o->values) {
              if (!v.empty() && v[0] == kNegativeTag) v.erase(0, 1);
            }
            o->format = ParseFormat(*format);
            return RunEval(*o);
          }};
}

}  // namespace gelu::cli
