// SPDX-License-Identifier: Apache-2.0
// The `gelu` command: argument parsing (CLI11) for eval, apply, bench, accuracy, plot and report. The work is
// in the other files of tools/; this one only converts arguments and reports errors: one line on stderr,
// "gelu <command>: <what went wrong>", and exit status 1 (CLI11's codes, 105-109, for bad usage). Docs: docs/CLI.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gelu/gelu.hpp"
#include "tools/commands.h"
#include "tools/npy.h"

namespace gelu::cli {

Format ParseFormat(const std::string& s) {
  if (s == "table") return Format::table;
  if (s == "csv") return Format::csv;
  if (s == "json") return Format::json;
  throw Failure("--format must be table, csv or json, not '" + s + "'");
}

std::vector<Approximation> ParseForms(const std::string& s) {
  if (s == "none") return {Approximation::none};
  if (s == "tanh") return {Approximation::tanh};
  if (s == "sigmoid") return {Approximation::sigmoid};
  if (s == "all") return {Approximation::none, Approximation::tanh, Approximation::sigmoid};
  throw Failure("--approximate must be none, tanh, sigmoid or all, not '" + s + "'");
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

namespace {

// CLI11 reads "-1.5" as the short option "-1"; eval's numbers may be negative, so arguments after `eval` that
// parse as negative numbers are tagged here and untagged in main before use.
constexpr char kNegativeTag = '\x01';

bool LooksNegativeNumber(const char* s) {
  if (s[0] != '-' || s[1] == '\0' || s[1] == '-') return false;
  char* end = nullptr;
  std::strtod(s, &end);
  if (*end == '\0') return true;
  const std::string t(s + 1);  // -inf, -nan, -infinity
  return t == "inf" || t == "nan" || t == "infinity" || t == "INF" || t == "NAN" || t == "Inf" || t == "NaN";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gelu::cli;
  CLI::App app{"gelu: the GELU activation, exact (x*Phi(x)) and its tanh and sigmoid approximations, with their\n"
               "derivatives; accurate in float32 and float64 over every input. `gelu <command> --help` for more.",
               "gelu"};
  app.set_version_flag("--version", std::string(GELU_VERSION));
  app.require_subcommand(1);
  app.footer("Examples:\n  gelu eval -a all --grad -- -1 0 1\n  gelu apply x.npy y.npy --approximate tanh\n"
             "  gelu report -o out\nDocumentation: docs/CLI.md");
  const std::vector<std::string> forms_all = {"none", "tanh", "sigmoid", "all"};
  const std::vector<std::string> forms_one = {"none", "tanh", "sigmoid"};
  const std::vector<std::string> formats = {"table", "csv", "json"};
  std::string format = "table";

  EvalOptions eo;
  auto* eval = app.add_subcommand("eval", "Print f(x) (and f'(x) with --grad) for numbers given as arguments, or read "
                                          "whitespace-separated from stdin when none are given");
  eval->add_option("--approximate,-a", eo.approximate, "Form: none (exact), tanh, sigmoid or all")
      ->check(CLI::IsMember(forms_all))
      ->capture_default_str();
  eval->add_flag("--grad,-g", eo.grad, "Also print the derivative f'(x)");
  eval->add_option("--dtype", eo.dtype, "Compute in float32 or float64")
      ->check(CLI::IsMember({"float32", "float64"}))
      ->capture_default_str();
  eval->add_option("--format", format, "Output: table, csv or json")->check(CLI::IsMember(formats))->capture_default_str();
  eval->add_option("X", eo.values, "Numbers: decimal, 1e-3, 0x1.8p+1, inf, nan (negative ones need no `--`)");

  ApplyOptions ao;
  auto* apply = app.add_subcommand(
      "apply", "Apply GELU (or its backward) to a NumPy .npy file (float16, float32 or float64, any shape), writing a .npy "
               "of the same shape, dtype and order. OUT is written to a temporary file and renamed into place, so "
               "OUT may be IN and a failure leaves OUT untouched");
  apply->add_option("IN", ao.in, "Input .npy (x)")->required();
  apply->add_option("OUT", ao.out, "Output .npy: f(x), or GRAD * f'(x) with --backward")->required();
  apply->add_option("--approximate,-a", ao.approximate, "Form: none (exact), tanh or sigmoid")
      ->check(CLI::IsMember(forms_one))
      ->capture_default_str();
  std::string backward;
  auto* backward_opt = apply->add_option("--backward", backward,
                                         "GRAD .npy (grad_out, same shape and dtype as IN): write GRAD * f'(IN)");
  apply->add_option("--threads,-t", ao.threads, "Threads (0: all hardware threads)")->capture_default_str();
  apply->add_flag("--verbose,-v", ao.verbose, "Print what was written to stderr");

  BenchOptions bo;
  auto* bench = app.add_subcommand("bench", "Time every form, forward and backward, float32 and float64, from L1 to "
                                            "DRAM sizes, 1 and all threads, beside a copy and the naive erf loop");
  bench->add_flag("--quick", bo.quick, "Two sizes and 3 samples: done in well under 20 s");
  bench->add_option("--format", format, "Output: table, csv or json")->check(CLI::IsMember(formats))->capture_default_str();
  bench->add_option("--approximate,-a", bo.approximate, "Forms to time: none, tanh, sigmoid or all")
      ->check(CLI::IsMember(forms_all))
      ->capture_default_str();
  bench->add_option("--dtype", bo.dtype, "float32, float64 or all")
      ->check(CLI::IsMember({"float32", "float64", "all"}))
      ->capture_default_str();
  bench->add_option("--sizes", bo.sizes, "Element counts (default 4096 65536 1048576 16777216)");
  bench->add_option("--threads,-t", bo.threads, "Thread counts (default: 1 and all hardware threads)");
  bench->add_option("--repeats", bo.repeats, "Samples per case, median reported (default 5, --quick 3)");
  bool no_progress = false;
  bench->add_flag("--no-progress", no_progress, "No progress line on stderr");

  AccuracyOptions co;
  auto* accuracy = app.add_subcommand(
      "accuracy", "Max ULP error of every float32 function against the double-precision reference, where it "
                  "occurs, the naive formula beside it, and PASS/FAIL against the library's claims (exit 1 on FAIL)");
  accuracy->add_flag("--exhaustive", co.exhaustive, "All 2^32 float32 inputs (minutes; progress bar and ETA)");
  accuracy->add_option("--approximate,-a", co.approximate, "Forms: none, tanh, sigmoid or all")
      ->check(CLI::IsMember(forms_all))
      ->capture_default_str();
  accuracy->add_option("--threads,-t", co.threads, "Worker threads (0: all hardware threads)")->capture_default_str();
  std::string range;
  accuracy->add_option("--range", range, "With --exhaustive: only bit patterns LO:HI (hex or decimal), a spot check");
  accuracy->add_option("--format", format, "Output: table, csv or json")->check(CLI::IsMember(formats))->capture_default_str();
  accuracy->add_flag("--no-progress", no_progress, "No progress bar on stderr");

  PlotOptions po;
  auto* plot = app.add_subcommand("plot", "Draw GELU vs ReLU vs Leaky ReLU (f and f' on [-4, 4]) and the error of each "
                                          "approximation, as PNG and SVG (matplotlib)");
  plot->add_option("-o,--outdir", po.outdir, "Output directory (created if missing)")->capture_default_str();
  plot->add_option("--python", po.python, "Python 3 interpreter that has matplotlib")->capture_default_str();
  plot->add_option("--leaky-slope", po.leaky_slope, "Negative slope of the Leaky ReLU drawn")->capture_default_str();

  ReportOptions ro;
  auto* report = app.add_subcommand("report", "The main job: facts, accuracy sample, quick benchmark and figures, "
                                              "printed and written to DIR/report.md (about half a minute)");
  report->add_option("-o,--outdir", ro.outdir, "Output directory (created if missing)")->capture_default_str();
  report->add_option("--python", ro.python, "Python 3 interpreter that has matplotlib")->capture_default_str();
  report->add_flag("--no-progress", no_progress, "No progress lines on stderr");

  // Tag negative numbers after `eval` (see kNegativeTag).
  std::vector<std::string> storage(argv, argv + argc);
  bool in_eval = false, after_dashes = false;
  for (size_t i = 1; i < storage.size(); ++i) {
    if (!in_eval) {
      in_eval = storage[i] == "eval";
      continue;
    }
    if (storage[i] == "--") after_dashes = true;
    if (!after_dashes && LooksNegativeNumber(storage[i].c_str())) storage[i].insert(0, 1, kNegativeTag);
  }
  std::vector<char*> args;
  for (std::string& s : storage) args.push_back(s.data());

  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  CLI::App* sub = app.get_subcommands().front();
  try {
    if (sub == eval) {
      for (std::string& v : eo.values) {
        if (!v.empty() && v[0] == kNegativeTag) v.erase(0, 1);
      }
      eo.format = ParseFormat(format);
      return RunEval(eo);
    }
    if (sub == apply) {
      if (*backward_opt) ao.backward = backward;
      return RunApply(ao);
    }
    if (sub == bench) {
      bo.format = ParseFormat(format);
      bo.progress = !no_progress;
      return RunBench(bo);
    }
    if (sub == accuracy) {
      co.format = ParseFormat(format);
      co.progress = !no_progress;
      if (!range.empty()) {
        const size_t colon = range.find(':');
        try {
          if (colon == std::string::npos) throw std::invalid_argument("no colon");
          size_t end1 = 0, end2 = 0;
          const uint64_t lo = std::stoull(range.substr(0, colon), &end1, 0);
          const uint64_t hi = std::stoull(range.substr(colon + 1), &end2, 0);
          if (end1 != colon || end2 != range.size() - colon - 1) throw std::invalid_argument("trailing characters");
          co.bit_range = std::pair{lo, hi};
        } catch (const std::logic_error&) {
          throw Failure("--range must be LO:HI, e.g. 0x3f800000:0x3fffffff, not '" + range + "'");
        }
      }
      return RunAccuracy(co);
    }
    if (sub == plot) return RunPlot(po);
    if (sub == report) {
      ro.progress = !no_progress;
      return RunReport(ro);
    }
  } catch (const std::exception& e) {
    // Failure, npy::Error, gelu::Error, std::bad_alloc, filesystem errors: one line, exit status 1.
    std::fflush(stdout);
    std::fprintf(stderr, "gelu %s: %s\n", sub->get_name().c_str(), e.what());
    return 1;
  }
  return 1;
}
