// SPDX-License-Identifier: Apache-2.0
// The subcommands of the `gelu` executable, one file each in tools/ (eval.cc, apply.cc, accuracy.cc, bench.cc,
// plot.cc, report.cc, check.cc): its options, what it computes, and Add<Name>Command, which registers it with CLI11.
// Each command prints its result to stdout and returns the process exit status; failures throw
// gelu::cli::Failure (or npy::Error, gelu::Error, ReplaceFileError: each message names what failed), which
// RunCommandLine turns into one line on stderr and exit status 1. Everything here is in the library gelu_cli_lib,
// so tests call the commands in-process.
#ifndef GELU_TOOLS_COMMANDS_H_
#define GELU_TOOLS_COMMANDS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gelu/gelu.hpp"
#include "src/common/functions.h"
#include "src/reference/ulp.h"
#include "tools/cli_helpers.h"

namespace CLI {
class App;
}

namespace gelu::cli {

// The whole `gelu` command line: args[0] is the program name. Parses, runs the chosen subcommand and returns
// the exit status: 0, 1 with "gelu <command>: <what went wrong>" on stderr, or CLI11's 105-109 for bad usage.
int RunCommandLine(std::vector<std::string> args);

// A subcommand registered on the top-level app: `run` executes it once the command line is parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// ---- eval ----
struct EvalOptions {
  std::string approximate = "none";
  bool grad = false;
  std::string dtype = "float64";
  Format format = Format::table;
  std::vector<std::string> values;  // empty: read whitespace-separated numbers from stdin
  bool list_forms = false;          // print the forms (value, name, formula) instead of evaluating
};
int RunEval(const EvalOptions& o);
Command AddEvalCommand(CLI::App& app);
// CLI11 reads "-1.5" as the short option "-1"; eval's numbers may be negative, so arguments after `eval` that
// parse as negative numbers are tagged before parsing, and eval untags its values.
void TagNegativeNumbersAfterEval(std::vector<std::string>& args);

// ---- apply ----
struct ApplyOptions {
  std::string in, out;
  std::string approximate = "none";
  std::optional<std::string> backward;  // GRAD file: OUT = GRAD * f'(IN)
  int threads = 0;                      // 0: all hardware threads
  bool verbose = false;
};
int RunApply(const ApplyOptions& o);
Command AddApplyCommand(CLI::App& app);

// ---- accuracy ----
// Error of one function of one implementation over the inputs seen: the tests' metric and tracker.
using Worst = reference::Worst;
struct AccuracyRow {
  bool backward = false;
  Approximation form = Approximation::none;
  bool naive = false;        // the textbook float formula, shown beside ours; not judged
  const common::Function* function = nullptr;  // its row of src/common/functions.h: name and bounds
  Worst worst;
  bool pass() const;
};
struct AccuracyOptions {
  bool exhaustive = false;
  std::string approximate = "all";
  int threads = 0;                                          // 0: all hardware threads
  std::optional<std::pair<uint64_t, uint64_t>> bit_range;  // exhaustive over [lo, hi] bit patterns only
  Format format = Format::table;
  bool progress = true;
};
struct AccuracyResult {
  std::vector<AccuracyRow> rows;
  uint64_t inputs = 0;
  std::string description;  // which inputs were checked
  double seconds = 0;
  bool all_pass() const;
};
AccuracyResult ComputeAccuracy(const AccuracyOptions& o);
std::string FormatAccuracy(const AccuracyResult& r, Format f);
int RunAccuracy(const AccuracyOptions& o);
Command AddAccuracyCommand(CLI::App& app);

// The textbook float formulas (0.5f*x*(1+erff(x/sqrt2)), 0.5f*x*(1+tanhf(...)), x/(1+expf(-1.702x)) and their
// derivatives), shown beside ours by `accuracy` and `plot`.
float NaiveForwardF32(float x, Approximation a);
float NaiveDerivativeF32(float x, Approximation a);

// ---- bench ----
struct BenchOptions {
  bool quick = false;
  Format format = Format::table;
  std::string approximate = "all";
  std::string dtype = "all";
  std::vector<int64_t> sizes;   // elements, each in [1, 2^32] (signed, so that "-5" is refused as -5, not wrapped);
                                // empty: the default list (quick: a shorter one)
  std::vector<int> threads;     // empty: 1 and all hardware threads
  int repeats = 0;              // 0: 5 (quick: 3)
  bool progress = true;
};
struct BenchRow {
  std::string function;     // "forward", "backward", "copy", "naive forward", "naive backward"
  std::string approximate;  // "none" | "tanh" | "sigmoid" | "" (copy)
  std::string dtype;        // "float32" | "float64"
  uint64_t n = 0;
  int threads = 1;
  double seconds = 0;  // median time of one call
  double gelem_s = 0, gbyte_s = 0;
  double vs_copy = 0;  // GB/s over the copy's GB/s at the same dtype, n, threads
};
struct BenchResult {
  std::vector<BenchRow> rows;
  std::string method;  // how it was measured, one paragraph
  double seconds = 0;
};
BenchResult ComputeBench(const BenchOptions& o);
std::string FormatBench(const BenchResult& r, Format f);
int RunBench(const BenchOptions& o);
Command AddBenchCommand(CLI::App& app);

// ---- facts ----
struct Extremum {
  double x = 0, f = 0, df = 0;
};
// The minimum of f for `form`: bisection on f' (gelu::derivative in double) over [-2, -0.3], where f' changes
// sign once; f' there, as evaluated, is returned in df.
Extremum FindMinimum(Approximation form);
std::string FormatFacts();

// ---- plot ----
// The default --python of plot and report: $GELU_PYTHON if set (the wheel's `gelu` sets it to the Python it was
// installed into), else the interpreter the build was configured with (Python_EXECUTABLE: the project's venv,
// scripts/install_python_env.sh, which has matplotlib), else /usr/bin/python3.
std::string DefaultPython();
struct PlotOptions {
  std::string outdir = ".";
  std::string python = DefaultPython();
  double leaky_slope = 0.1;
  bool quiet = false;
};
// Writes gelu_vs_relu.{png,svg} and gelu_approx_error.{png,svg} into outdir, all of them or none
// (PrepareOutputDirectory, DrawPlots, then ReplaceFiles); returns the paths written.
std::vector<std::string> MakePlots(const PlotOptions& o);
// A figure DrawPlots drew: its file name (gelu_vs_relu.png, ...) and its bytes.
struct Figure {
  std::string name, contents;
};
// The file names of the figures, in the order DrawPlots returns them.
std::vector<std::string> FigureNames();
// Computes the curves, runs the plotting script into a temporary directory (removed before it returns) and returns
// every figure it drew; writes nothing into outdir. Throws Failure if the script fails or leaves a figure out.
std::vector<Figure> DrawPlots(const PlotOptions& o);
// Creates `outdir` if it is missing, checks that it is writable and that each of `names` in it can be replaced
// (CheckReplaceable): what MakePlots and `gelu report` check before the long steps. Throws Failure or
// ReplaceFileError.
void PrepareOutputDirectory(const std::string& outdir, const std::vector<std::string>& names);
// What MakePlots checks before it computes anything (MakePlots calls it; `gelu report` calls it before its first
// section): --leaky-slope in (0, 1), the interpreter an executable file, the plotting script found. Throws Failure.
void CheckPlotOptions(const PlotOptions& o);
int RunPlot(const PlotOptions& o);
Command AddPlotCommand(CLI::App& app);

// ---- check ---- (tools/check.cc; the checker itself: tools/checker.h)
Command AddCheckCommand(CLI::App& app);

// ---- report ----
struct ReportOptions {
  std::string outdir = "gelu-report";
  std::string python = DefaultPython();
  bool progress = true;
};
int RunReport(const ReportOptions& o);
Command AddReportCommand(CLI::App& app);

}  // namespace gelu::cli

#endif  // GELU_TOOLS_COMMANDS_H_
