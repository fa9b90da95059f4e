// SPDX-License-Identifier: Apache-2.0
// `gelu report`: the main job. Facts, accuracy sample, quick benchmark and figures, printed as each finishes and
// collected in DIR/report.md beside the figures. Target: under a minute on a 2-core machine.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "gelu/gelu.hpp"
#include "tools/commands.h"
#include "tools/replace_file.h"

namespace gelu::cli {
namespace {

// The quick benchmark pivoted to one row per function: per dtype, the in-cache size on 1 thread and the
// out-of-cache size on all threads (with its fraction of the copy's bandwidth).
std::string BenchSummary(const BenchResult& r) {
  uint64_t small = UINT64_MAX, large = 0;
  int most = 1;
  for (const BenchRow& row : r.rows) {
    small = std::min(small, row.n);
    large = std::max(large, row.n);
    most = std::max(most, row.threads);
  }
  struct Key {
    std::string dtype;
    uint64_t n;
    int threads;
  };
  const std::vector<Key> columns = {{"float32", small, 1}, {"float32", large, most}, {"float64", small, 1},
                                    {"float64", large, most}};
  std::vector<std::string> functions;
  std::map<std::string, std::map<std::string, const BenchRow*>> cell;  // function -> column -> row
  const auto column_name = [](const Key& k) { return fmt::format("{} {} {}t", k.dtype, HumanCount(k.n), k.threads); };
  for (const BenchRow& row : r.rows) {
    const std::string f = row.approximate.empty() || row.function.starts_with("naive")
                              ? row.function
                              : fmt::format("{} {}", row.function, row.approximate);
    if (std::find(functions.begin(), functions.end(), f) == functions.end()) functions.push_back(f);
    for (const Key& k : columns) {
      if (row.dtype == k.dtype && row.n == k.n && row.threads == k.threads) cell[f][column_name(k)] = &row;
    }
  }
  std::string s = fmt::format("{:<17}", "Gelem/s");
  for (const Key& k : columns) s += fmt::format(" {:>24}", column_name(k));
  s += "\n";
  for (const std::string& f : functions) {
    s += fmt::format("{:<17}", f);
    for (const Key& k : columns) {
      const auto it = cell[f].find(column_name(k));
      if (it == cell[f].end()) {
        s += fmt::format(" {:>24}", "-");
      } else if (k.threads == 1) {
        s += fmt::format(" {:>24.3f}", it->second->gelem_s);
      } else {
        s += fmt::format(" {:>24}", fmt::format("{:.3f} ({:.2f}x copy)", it->second->gelem_s, it->second->vs_copy));
      }
    }
    s += "\n";
  }
  return s;
}

}  // namespace

int RunReport(const ReportOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string md = "# gelu report\n\n";
  const auto print = [](const std::string& title, const std::string& body) {
    std::printf("== %s ==\n%s\n", title.c_str(), body.c_str());
    std::fflush(stdout);
  };
  const auto add = [&](const std::string& title, const std::string& body) {
    md += fmt::format("## {}\n\n```\n{}```\n\n", title, body);
  };
  const auto section = [&](const std::string& title, const std::string& body) {
    print(title, body);
    add(title, body);
  };
  const auto note = [&](const char* what) {
    if (o.progress && StderrIsTerminal()) std::fprintf(stderr, "report: %s...\r", what);
  };
  // Check the output directory and every file of the report first (and the plotting tools: a bad --python), so
  // that a bad -o, or a directory where report.md or a figure goes, fails in a second, before any section is
  // printed, not after the benchmark.
  PlotOptions po;
  po.outdir = o.outdir;
  po.python = o.python;
  CheckPlotOptions(po);
  std::vector<std::string> names = FigureNames();
  names.push_back("report.md");
  PrepareOutputDirectory(o.outdir, names);
  section("Machine", fmt::format("SIMD target {}, {} hardware threads, gelu {}\n", gelu::simd_target(),
                                 std::thread::hardware_concurrency(), GELU_VERSION));
  section("Facts", FormatFacts());

  note("accuracy sample");
  AccuracyOptions ao;
  ao.progress = o.progress;
  const AccuracyResult acc = ComputeAccuracy(ao);
  section("Accuracy (float32, sample)", FormatAccuracy(acc, Format::table));

  note("quick benchmark");
  BenchOptions bo;
  bo.quick = true;
  bo.progress = o.progress;
  const BenchResult bench = ComputeBench(bo);
  section("Speed (gelu bench --quick)", BenchSummary(bench) + "\n" + bench.method + "\nFull table: gelu bench\n");

  note("figures");
  const std::vector<Figure> figures = DrawPlots(po);
  // report.md and the figures are written together, all of them or none (ReplaceFiles): a step that fails,
  // figures included, leaves a previous report in DIR as it was, every file of it.
  std::vector<NewFile> files;
  std::string list;
  for (const Figure& f : figures) {
    files.push_back({std::filesystem::path(o.outdir) / f.name, f.contents});
    list += files.back().path.string() + "\n";
  }
  add("Figures", list);
  md += "![GELU vs ReLU vs Leaky ReLU](gelu_vs_relu.png)\n\n![Error of each approximation](gelu_approx_error.png)\n";

  const auto path = std::filesystem::path(o.outdir) / "report.md";
  files.push_back({path, md});
  ReplaceFiles(files);
  print("Figures", list);  // once they are written
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("Report written to %s (figures beside it) in %s. Accuracy: %s.\n", path.string().c_str(),
              Duration(s).c_str(), acc.all_pass() ? "every claim holds" : "a claim FAILS (see above)");
  return 0;
}

Command AddReportCommand(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto no_progress = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("report", "The main job: facts, accuracy sample, quick benchmark and figures, "
                                           "printed and written to DIR/report.md (about half a minute)");
  sub->add_option("-o,--outdir", o->outdir, "Output directory (created if missing)")->capture_default_str();
  sub->add_option("--python", o->python, "Python 3 interpreter that has matplotlib")->capture_default_str();
  sub->add_flag("--no-progress", *no_progress, "No progress lines on stderr");
  return {sub, [o, no_progress] {
            o->progress = !*no_progress;
            return RunReport(*o);
          }};
}

}  // namespace gelu::cli
