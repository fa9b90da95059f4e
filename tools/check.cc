// SPDX-License-Identifier: Apache-2.0
// `gelu check`: judges anyone's GELU against the reference (tools/checker.h): a C function of a shared library
// (--lib, --symbol) or results an engine recorded (--x, --y, --dy); `--write-inputs` writes the canonical inputs
// for an engine to run. Every option is checked, and the inputs read, before anything runs or is written.
// docs/CHECK.md, docs/CLI.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/checker.h"
#include "tools/commands.h"
#include "tools/npy.h"
#include "tools/replace_file.h"

namespace gelu::cli {
namespace {

struct CheckOptions {
  std::string lib, symbol;
  std::string x, y, dy;  // recorded pairs
  std::string write_inputs;
  std::string approximate = "none";
  bool backward = false;
  std::string dtype;  // empty: float32, or the pairs' dtype
  bool exhaustive = false;
  std::string range;
  int threads = 0;
  double timeout = 60;
  bool no_progress = false, json = false, markdown = false;
  std::string plot;
  std::vector<std::string> require;
};

std::pair<uint64_t, uint64_t> ParseRange(const std::string& range) {
  const size_t colon = range.find(':');
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no colon");
    size_t end1 = 0, end2 = 0;
    const uint64_t lo = std::stoull(range.substr(0, colon), &end1, 0);
    const uint64_t hi = std::stoull(range.substr(colon + 1), &end2, 0);
    if (end1 != colon || end2 != range.size() - colon - 1 || lo > hi || hi > 0xffffffffu) {
      throw std::invalid_argument("bad range");
    }
    return {lo, hi};
  } catch (const std::logic_error&) {
    throw Failure("--range must be LO:HI, float32 bit patterns with LO <= HI <= 0xffffffff, e.g. "
                  "0x3f800000:0x3fffffff, not '" + range + "'");
  }
}

// The input set of a library run or of --write-inputs.
check::Inputs ChooseInputs(const CheckOptions& o, const check::Spec& s) {
  check::Inputs in;
  if (s.type == common::kF64) {
    if (o.exhaustive || !o.range.empty()) throw Failure("--exhaustive and --range are for float32: float64 takes its stratified sample");
    in.values64 = check::StratifiedInputsF64(s);
    in.description = "stratified float64 sample: every binade of both signs, [-10, 10] grid, round values, "
                     "thresholds +- 16 ULP, specials, random bit patterns";
  } else if (s.type != common::kF32) {
    if (o.exhaustive || !o.range.empty()) throw Failure("--exhaustive and --range are for float32: 16-bit types always take all 65,536 inputs");
    in.values = check::AllHalfInputs(s.type);
    in.bits16.resize(65536);
    for (uint32_t b = 0; b < 65536; ++b) in.bits16[b] = static_cast<uint16_t>(b);
    in.description = fmt::format("all 65,536 {} values", gelu_dtype_name(s.type));
  } else if (o.exhaustive) {
    in.bit_range = o.range.empty() ? std::pair<uint64_t, uint64_t>{0, 0xffffffffu} : ParseRange(o.range);
    in.description = o.range.empty() ? "exhaustive: all 2^32 float32 values"
                                     : fmt::format("exhaustive over bit patterns {:#010x}..{:#010x}",
                                                   in.bit_range->first, in.bit_range->second);
  } else {
    if (!o.range.empty()) throw Failure("--range needs --exhaustive");
    in.values = check::StratifiedInputsF32(s);
    in.description = "stratified float32 sample: every binade of both signs, [-10, 10] grid, round values, "
                     "thresholds +- 64 ULP, specials (--exhaustive: all 2^32)";
  }
  return in;
}

// The recorded pairs as floats of the checked type; every refusal names the file.
struct Pairs {
  std::vector<float> x, y, dy;
  std::vector<double> x64, y64, dy64;  // float64 pairs
  check::Type type;
};
Pairs ReadPairs(const CheckOptions& o) {
  npy::Array ax = npy::Read(o.x), ay = npy::Read(o.y);
  std::optional<npy::Array> ad;
  if (!o.dy.empty()) ad = npy::Read(o.dy);
  const auto shape_check = [&](const npy::Array& a, const std::string& name) {
    if (a.shape != ax.shape) {
      throw Failure(fmt::format("'{}' has shape {} but '{}' has shape {}: the arrays must have the same shape", name,
                                npy::ShapeString(a.shape), o.x, npy::ShapeString(ax.shape)));
    }
    if (a.dtype != ax.dtype) {
      throw Failure(fmt::format("'{}' holds {} but '{}' holds {}: the arrays must have the same dtype", name,
                                npy::to_string(a.dtype), o.x, npy::to_string(ax.dtype)));
    }
  };
  shape_check(ay, o.y);
  if (ad) shape_check(*ad, o.dy);
  Pairs p;
  if (ax.dtype == npy::DType::f64) {
    if (!o.dtype.empty() && o.dtype != "float64") {
      throw Failure(fmt::format("'{}' holds float64, not {} (--dtype)", o.x, o.dtype));
    }
    try {
      p.type = check::ParseType("float64");  // refused by a build without MPFR
    } catch (const std::invalid_argument& e) {
      throw Failure(e.what());
    }
    p.x64 = std::move(ax.f64);
    p.y64 = std::move(ay.f64);
    if (ad) p.dy64 = std::move(ad->f64);
    return p;
  }
  if (ax.dtype == npy::DType::f16) {
    if (!o.dtype.empty() && o.dtype != "float16") {
      throw Failure(fmt::format("'{}' holds float16, not {} (--dtype)", o.x, o.dtype));
    }
    p.type = common::kF16;
  } else {
    p.type = o.dtype.empty() ? common::kF32 : check::ParseType(o.dtype);
    if (p.type == common::kF16 || p.type == common::kF64) {
      throw Failure(fmt::format("'{}' holds float32, not {} (--dtype)", o.x, o.dtype));
    }
  }
  const auto values = [&](const npy::Array& a, const std::string& name) {
    std::vector<float> v;
    if (a.dtype == npy::DType::f16) {
      v.reserve(a.f16.size());
      for (uint16_t b : a.f16) v.push_back(check::FromBits(common::kF16, b));
    } else {
      v = a.f32;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      if (!check::IsRepresentable(p.type, v[i])) {
        throw Failure(fmt::format("'{}' holds {} at index {}, which is not a {} value", name, v[i], i,
                                  gelu_dtype_name(p.type)));
      }
    }
    return v;
  };
  p.x = values(ax, o.x);
  p.y = values(ay, o.y);
  if (ad) p.dy = values(*ad, o.dy);
  return p;
}

int RunCheck(const CheckOptions& o) {
  // Everything that can be refused is refused here, before anything runs or is written.
  const int sources = !o.lib.empty() + !o.x.empty() + !o.write_inputs.empty();
  if (sources != 1) {
    throw Failure("give one of: --lib PATH --symbol NAME (a C function), --x X.npy --y Y.npy (recorded pairs), "
                  "--write-inputs OUT.npy");
  }
  if (!o.lib.empty() && o.symbol.empty()) throw Failure("--lib needs --symbol NAME");
  if (o.lib.empty() && !o.symbol.empty()) throw Failure("--symbol needs --lib PATH");
  if (!o.x.empty() && o.y.empty()) throw Failure("--x needs --y Y.npy (the results at those inputs)");
  if (o.x.empty() && (!o.y.empty() || !o.dy.empty())) throw Failure("--y and --dy need --x X.npy");
  if (!o.dy.empty() && !o.backward) throw Failure("--dy is the gradient of a backward check: add --backward");
  if (o.json && o.markdown) throw Failure("--json and --markdown exclude each other");
  if (!(o.timeout > 0)) throw Failure("--timeout must be > 0 seconds");
  CheckThreadCount(o.threads);
  for (const std::string& r : o.require) {
    try {
      check::ParseProfile(r);
    } catch (const std::invalid_argument& e) {
      throw Failure(std::string("--require: ") + e.what());
    }
  }
  check::Spec spec;
  spec.form = ParseForms(o.approximate, /*with_all=*/false).front();
  spec.backward = o.backward;
  try {
    if (!o.dtype.empty()) spec.type = check::ParseType(o.dtype);
  } catch (const std::invalid_argument& e) {
    throw Failure(e.what());
  }
  if (!o.plot.empty()) CheckReplaceable(o.plot);

  if (!o.write_inputs.empty()) {
    const check::Inputs in = ChooseInputs(o, spec);
    npy::Array a;
    if (spec.type == common::kF16) {
      a.dtype = npy::DType::f16;
      a.f16 = in.bits16;
    } else if (spec.type == common::kF64) {
      a.dtype = npy::DType::f64;
      a.f64 = in.values64;
    } else if (in.bit_range) {
      a.f32.resize(in.size());
      for (uint64_t i = 0; i < in.size(); ++i) a.f32[i] = std::bit_cast<float>(static_cast<uint32_t>(in.bit_range->first + i));
    } else {
      a.f32 = in.values;  // float32, or bfloat16 values (exact in float32: .npy has no bfloat16)
    }
    a.shape = {a.size()};
    npy::Write(o.write_inputs, a);
    std::fprintf(stderr, "gelu check: wrote %llu inputs (%s) to %s\n", static_cast<unsigned long long>(a.size()),
                 in.description.c_str(), o.write_inputs.c_str());
    return 0;
  }

  check::Findings f;
  if (!o.lib.empty()) {
    std::optional<check::LibraryFunction> fn;
    try {
      fn.emplace(o.lib, o.symbol);
    } catch (const std::runtime_error& e) {
      throw Failure(e.what());
    }
    const check::Inputs in = ChooseInputs(o, spec);
    check::RunOptions ro;
    ro.threads = o.threads;
    ro.progress = !o.no_progress && in.size() > (uint64_t{1} << 24);
    ro.timeout_s = o.timeout;
    try {
      f = check::RunLibrary(spec, *fn, in, ro);
    } catch (const std::runtime_error& e) {
      throw Failure(e.what());
    }
  } else {
    if (o.exhaustive || !o.range.empty()) throw Failure("--exhaustive and --range are for --lib: pairs are judged as given");
    const Pairs p = ReadPairs(o);
    spec.type = p.type;
    f = check::NewFindings(spec);
    const auto t0 = std::chrono::steady_clock::now();
    if (spec.type == common::kF64) check::JudgeAll(spec, p.x64, p.y64, p.dy64, f);
    else check::Judge(spec, p.x, p.y, p.dy, 0, f);
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    f.coverage = fmt::format("recorded pairs '{}', '{}'{}", o.x, o.y, o.dy.empty() ? "" : ", '" + o.dy + "'");
    f.true_cutoff = check::TrueTailCutoff(spec);
  }
  const std::string report = check::FormatFindings(
      f, o.json ? check::ReportFormat::json : o.markdown ? check::ReportFormat::markdown : check::ReportFormat::table);
  if (!o.plot.empty()) ReplaceFile(o.plot, check::PlotSvg(f));
  std::fwrite(report.data(), 1, report.size(), stdout);
  int rc = 0;
  for (const std::string& r : o.require) {
    if (check::Meets(f, r)) continue;
    std::fflush(stdout);
    std::fprintf(stderr, "gelu check: %s fails the profile %s\n", check::Describe(spec).c_str(), r.c_str());
    rc = 2;
  }
  return rc;
}

}  // namespace

Command AddCheckCommand(CLI::App& app) {
  auto o = std::make_shared<CheckOptions>();
  auto* sub = app.add_subcommand(
      "check", "Judge anyone's GELU against the reference: a C function of a shared library or recorded results; "
               "max ULP and where, histograms, tail, specials, tolerance profiles (docs/CHECK.md)");
  sub->add_option("--lib", o->lib, "Shared library holding the function (with --symbol)");
  sub->add_option("--symbol", o->symbol,
                  "The function: void f(const T* x, T* y, size_t n), backward void f(const T* dy, const T* x, T* dx, "
                  "size_t n); T = float, double (float64), or uint16_t bits for 16-bit types");
  sub->add_option("--x", o->x, "Recorded inputs (.npy, float32, float16 or float64, any shape)");
  sub->add_option("--y", o->y, "Recorded results at --x (same shape and dtype)");
  sub->add_option("--dy", o->dy, "Recorded gradient given to the backward (default: 1)");
  sub->add_option("--write-inputs", o->write_inputs,
                  "Write the inputs an engine should run to this .npy (16-bit: all 65,536; float32: the stratified "
                  "sample, or with --exhaustive all or --range; float64: its stratified sample); bfloat16 values "
                  "are written as float32");
  AddFormOption(*sub, &o->approximate, "Form: {}", /*with_all=*/false);
  sub->add_flag("--backward", o->backward, "Check the derivative (grad_in for grad_out = 1, or --dy)");
  sub->add_option("--dtype", o->dtype, "float32 (default), bfloat16, float16, or float64 (a stratified sample)");
  sub->add_flag("--exhaustive", o->exhaustive, "float32: all 2^32 inputs (threads, progress, ETA)");
  sub->add_option("--range", o->range, "With --exhaustive: only float32 bit patterns LO:HI");
  sub->add_option("--threads,-t", o->threads, "Worker threads, one child process each (0: all hardware threads)");
  sub->add_option("--timeout", o->timeout, "Seconds one call may take before it counts as a hang")->capture_default_str();
  sub->add_flag("--no-progress", o->no_progress, "No progress bar on stderr");
  sub->add_flag("--json", o->json, "Report as JSON");
  sub->add_flag("--markdown", o->markdown, "Report as Markdown");
  sub->add_option("--plot", o->plot, "Also write the ULP error against x as an SVG to this file");
  sub->add_option("--require", o->require,
                  "Exit status 2 unless this profile holds: " + check::ProfileChoices() +
                      "; exact:NAME judges against the exact GELU (repeatable)");
  return {sub, [o] { return RunCheck(*o); }};
}

}  // namespace gelu::cli
