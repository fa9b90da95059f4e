// SPDX-License-Identifier: Apache-2.0
// The helpers every `gelu` subcommand shares; see cli_helpers.h.
#include "tools/cli_helpers.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "src/common/functions.h"

namespace gelu::cli {

Format ParseFormat(const std::string& s) {
  if (s == "table") return Format::table;
  if (s == "csv") return Format::csv;
  if (s == "json") return Format::json;
  throw Failure("--format must be table, csv or json, not '" + s + "'");
}

std::vector<std::string> FormatChoices() { return {"table", "csv", "json"}; }

std::vector<Approximation> AllForms() {
  std::vector<Approximation> forms;
  for (int f = 0; f < common::kNumForms; ++f) forms.push_back(static_cast<Approximation>(f));
  return forms;
}

const char* FormName(Approximation a) { return common::kFormNames[static_cast<int>(a)]; }

std::vector<Approximation> ParseForms(const std::string& s, bool with_all) {
  if (with_all && s == "all") return AllForms();
  for (Approximation a : AllForms()) {
    if (s == FormName(a)) return {a};
  }
  throw Failure("--approximate must be " + FormList(with_all) + ", not '" + s + "'");
}

std::vector<std::string> FormChoices(bool with_all) {
  std::vector<std::string> names;
  for (Approximation a : AllForms()) names.push_back(FormName(a));
  if (with_all) names.push_back("all");
  return names;
}

std::string FormList(bool with_all) {
  const std::vector<std::string> names = FormChoices(with_all);
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return list;
}

CLI::Option* AddFormOption(CLI::App& sub, std::string* value, const std::string& help, bool with_all) {
  return sub.add_option("--approximate,-a", *value, fmt::format(fmt::runtime(help), FormList(with_all)))
      ->check(CLI::IsMember(FormChoices(with_all)))
      ->capture_default_str();
}

void CheckThreadCount(int threads) {
  if (threads < 0) throw Failure("--threads must be >= 0 (0: all hardware threads)");
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
