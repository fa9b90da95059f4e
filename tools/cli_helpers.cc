// SPDX-License-Identifier: Apache-2.0
// The helpers every `gelu` subcommand shares; see cli_helpers.h.
#include "tools/cli_helpers.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <iterator>
#include <string>
#include <vector>

namespace gelu::cli {

Format ParseFormat(const std::string& s) {
  if (s == "table") return Format::table;
  if (s == "csv") return Format::csv;
  if (s == "json") return Format::json;
  throw Failure("--format must be table, csv or json, not '" + s + "'");
}

std::vector<std::string> FormatChoices() { return {"table", "csv", "json"}; }

namespace {
constexpr Approximation kForms[] = {Approximation::none, Approximation::tanh, Approximation::sigmoid};
}  // namespace

std::vector<Approximation> ParseForms(const std::string& s) {
  if (s == "all") return {std::begin(kForms), std::end(kForms)};
  for (Approximation a : kForms) {
    if (s == to_string(a)) return {a};
  }
  throw Failure("--approximate must be none, tanh, sigmoid or all, not '" + s + "'");
}

std::vector<std::string> FormChoices(bool with_all) {
  std::vector<std::string> names;
  for (Approximation a : kForms) names.push_back(to_string(a));
  if (with_all) names.push_back("all");
  return names;
}

std::string HumanCount(uint64_t n) {
  if (n >= (uint64_t{1} << 30) && n % (uint64_t{1} << 30) == 0) return fmt::format("{} Gi", n >> 30);
  if (n >= (uint64_t{1} << 20) && n % (uint64_t{1} << 20) == 0) return fmt::format("{} Mi", n >> 20);
  if (n >= (uint64_t{1} << 10) && n % (uint64_t{1} << 10) == 0) return fmt::format("{} Ki", n >> 10);
  if (n >= 10'000'000) return fmt::format("{:.3g}e9", static_cast<double>(n) * 1e-9);
  return fmt::format("{}", n);
}

std::string Duration(double s) {
  if (!(s >= 0) || std::isinf(s)) return "?";
  if (s >= 60) {
    const auto total = static_cast<long>(s + 0.5);
    return total >= 3600 ? fmt::format("{}h{:02}m{:02}s", total / 3600, total / 60 % 60, total % 60)
                         : fmt::format("{}m{:02}s", total / 60, total % 60);
  }
  if (s >= 1) return fmt::format("{:.1f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  if (s >= 1e-6) return fmt::format("{:.3g} us", s * 1e6);
  return fmt::format("{:.3g} ns", s * 1e9);
}

bool StderrIsTerminal() { return ::isatty(2) == 1; }

std::string JsonNumber(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  return fmt::format("{}", v);
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace gelu::cli
