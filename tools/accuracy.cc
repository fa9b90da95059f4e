// SPDX-License-Identifier: Apache-2.0
// `gelu accuracy`: max ULP error of every float32 function against the double-precision reference
// (src/reference/reference.h), where it occurs, and the same for the textbook float formulas beside ours.
//
// Claims checked: the float32 rows of src/common/functions.h (forward none <= 1 ULP; forward tanh, sigmoid <= 2 ULP
// of their own formula; backward (grad_out = 1) <= 2 ULP, except in the near-root window of f', -2 < x < 0 with
// |f'(x)| < 2^-8, where the absolute error must be <= 2^-24), in the metric of src/reference/ulp.h.
//
// The reference is accurate to ~2^-40 relative (its header states and tests/reference_test.cc checks it), so
// the measured ULP values are exact to about 2^-16 ULP.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cfloat>
#include <cmath>
#include <string>
#include <stdexcept>
#include <memory>
#include <cstdio>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "gelu/gelu.hpp"
#include "src/reference/naive.h"
#include "src/reference/reference.h"
#include "tools/commands.h"

namespace gelu::cli {
namespace {

reference::Form RefForm(Approximation a) { return static_cast<reference::Form>(static_cast<int>(a)); }

struct Function {
  bool backward;
  Approximation form;
  const common::Function* row;  // src/common/functions.h: name and bounds
};

// The near-root error as an absolute value (the tracker keeps it in units of 2^-24).
double NearRootAbs(const Worst& w) { return w.abs24 * 0x1p-24; }

// Per-thread state: for each function, the Worst of ours and of the naive formula.
struct Tally {
  std::vector<Worst> ours, naive;
};

void CheckChunk(std::span<const float> x, const std::vector<Function>& fns, Tally& t, std::vector<float>& y,
                std::vector<float>& ones) {
  y.resize(x.size());
  if (ones.size() < x.size()) ones.assign(x.size(), 1.0f);
  const std::span<const float> one(ones.data(), x.size());
  for (size_t f = 0; f < fns.size(); ++f) {
    const Function fn = fns[f];
    if (fn.backward) {
      gelu::backward(one, x, std::span<float>(y), fn.form);
    } else {
      gelu::forward(x, std::span<float>(y), fn.form);
    }
    for (size_t i = 0; i < x.size(); ++i) {
      const double xd = x[i];
      const double r = fn.backward ? reference::Derivative(xd, RefForm(fn.form)) : reference::Forward(xd, RefForm(fn.form));
      t.ours[f].Add(x[i], y[i], r, fn.backward);
      const float naive = fn.backward ? NaiveDerivativeF32(x[i], fn.form) : NaiveForwardF32(x[i], fn.form);
      t.naive[f].Add(x[i], naive, r, fn.backward);
    }
  }
}

// The default sample, about 2.2 million inputs that take a few seconds:
//   every 4093rd bit pattern (all signs, binades, subnormals, inf, NaN: ~1.05 M);
//   2^20 points evenly spread over [-16, 16], where every result is nonzero and the kernels switch paths;
//   4096 consecutive floats around each point where something changes: 0, +-FLT_MIN, the root of f',
//   the cutoffs of the documented thresholds, and x = -5.5 where the naive formula collapses;
//   the special values.
std::vector<float> SampleInputs() {
  std::vector<float> x;
  x.reserve(2200000);
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 4093) x.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
  constexpr int kGrid = 1 << 20;
  for (int i = 0; i < kGrid; ++i) x.push_back(static_cast<float>(-16.0 + 32.0 * (i + 0.5) / kGrid));
  const float points[] = {0.0f,     -0.0f,       FLT_MIN,       -FLT_MIN,        -0.7517915f, -0.75179f,
                          1.0f,     -1.0f,       0x1.563dbp+2f, -0x1.cb64eap+3f, -0x1.a4ae0ep+3f, -5.5f,
                          -3.4f,    0x1.f5a888p+1f, 5.0f,       -5.0f};
  for (float p : points) {
    float lo = p, hi = p;
    for (int k = 0; k < 2048; ++k) {
      lo = std::nextafter(lo, -INFINITY);
      hi = std::nextafter(hi, INFINITY);
      x.push_back(lo);
      x.push_back(hi);
    }
    x.push_back(p);
  }
  for (float s : {INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, -FLT_MAX, FLT_TRUE_MIN, -FLT_TRUE_MIN}) x.push_back(s);
  return x;
}

std::string Bar(double frac, int width) {
  const int full = static_cast<int>(frac * width);
  return std::string(static_cast<size_t>(full), '#') + std::string(static_cast<size_t>(width - full), '.');
}

}  // namespace

// The textbook formulas (src/reference/naive.h), in float.
float NaiveForwardF32(float x, Approximation a) { return reference::NaiveForward(x, RefForm(a)); }
float NaiveDerivativeF32(float x, Approximation a) { return reference::NaiveDerivative(x, RefForm(a)); }

bool AccuracyRow::pass() const { return worst.Within(*function); }

bool AccuracyResult::all_pass() const {
  for (const AccuracyRow& r : rows) {
    if (!r.naive && !r.pass()) return false;
  }
  return true;
}

AccuracyResult ComputeAccuracy(const AccuracyOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  // The table's float32 functions of the chosen forms, in table order (forward, then backward).
  std::vector<Function> fns;
  const std::vector<Approximation> forms = ParseForms(o.approximate, /*with_all=*/true);
  for (const common::Function& row : common::kFunctions) {
    if (!row.Has(common::kF32) || !row.is_form()) continue;
    const auto a = static_cast<Approximation>(static_cast<int>(row.form()));
    if (std::find(forms.begin(), forms.end(), a) != forms.end()) fns.push_back({row.backward(), a, &row});
  }
  CheckThreadCount(o.threads);
  int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Chunks stay below the library's parallel threshold (2^16 elements), so each worker's calls run on that
  // worker alone; the split never changes a result (the library guarantees bit-identical output).
  constexpr uint64_t kChunk = uint64_t{1} << 15;

  std::vector<float> sample;
  uint64_t lo = 0, hi = 0;  // exhaustive: bit patterns [lo, hi]
  AccuracyResult result;
  if (o.exhaustive) {
    lo = o.bit_range ? o.bit_range->first : 0;
    hi = o.bit_range ? o.bit_range->second : 0xffffffffu;
    if (lo > hi || hi > 0xffffffffu) throw Failure("--range must be LO:HI with LO <= HI <= 0xffffffff");
    result.inputs = hi - lo + 1;
    result.description = o.bit_range ? fmt::format("exhaustive over bit patterns {:#010x}..{:#010x} ({} inputs)",
                                                   lo, hi, result.inputs)
                                     : "exhaustive: all 2^32 float32 inputs";
  } else {
    if (o.bit_range) throw Failure("--range needs --exhaustive");
    sample = SampleInputs();
    result.inputs = sample.size();
    result.description = fmt::format(
        "sample of {} float32 inputs: every 4093rd bit pattern, 2^20 points on [-16, 16], 4096 floats around "
        "each threshold and the root of f', special values (--exhaustive: all 2^32)",
        sample.size());
  }
  const uint64_t chunks = (result.inputs + kChunk - 1) / kChunk;
  std::atomic<uint64_t> next{0}, done{0};
  std::vector<Tally> tallies(static_cast<size_t>(threads));
  {
    std::vector<std::jthread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        Tally& tally = tallies[static_cast<size_t>(t)];
        tally.ours.resize(fns.size());
        tally.naive.resize(fns.size());
        std::vector<float> x, y, ones;
        for (uint64_t c; (c = next++) < chunks;) {
          const uint64_t begin = c * kChunk, end = std::min(result.inputs, begin + kChunk);
          if (o.exhaustive) {
            x.resize(end - begin);
            for (uint64_t i = begin; i < end; ++i) x[i - begin] = std::bit_cast<float>(static_cast<uint32_t>(lo + i));
            CheckChunk(x, fns, tally, y, ones);
          } else {
            CheckChunk(std::span<const float>(sample).subspan(begin, end - begin), fns, tally, y, ones);
          }
          done += end - begin;
        }
      });
    }
    // Progress bar with an ETA, on stderr, for runs long enough to need one.
    const bool tty = StderrIsTerminal();
    if (o.progress && o.exhaustive) {
      double last_print = -1;
      int last_decile = -1;
      while (done.load() < result.inputs) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double frac = static_cast<double>(done.load()) / static_cast<double>(result.inputs);
        const std::string eta = frac > 0 ? Duration(el * (1 - frac) / frac) : "?";
        const std::string line = fmt::format("accuracy [{}] {:5.1f}%  {}/{}  elapsed {}  ETA {}", Bar(frac, 30),
                                             100 * frac, HumanCount(done.load()), HumanCount(result.inputs),
                                             Duration(el), eta);
        if (tty) {
          if (el - last_print >= 0.5) {
            std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
            last_print = el;
          }
        } else if (static_cast<int>(frac * 20) > last_decile) {  // logs: one line per 5%
          last_decile = static_cast<int>(frac * 20);
          std::fprintf(stderr, "%s\n", line.c_str());
        }
      }
      if (tty) std::fprintf(stderr, "\r\x1b[K");
    }
  }  // workers join here

  for (size_t f = 0; f < fns.size(); ++f) {
    for (bool naive : {false, true}) {
      AccuracyRow row;
      row.backward = fns[f].backward;
      row.form = fns[f].form;
      row.naive = naive;
      row.function = fns[f].row;
      for (const Tally& t : tallies) {
        if (!t.ours.empty()) row.worst.Merge(naive ? t.naive[f] : t.ours[f]);
      }
      result.rows.push_back(row);
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

std::string FormatAccuracy(const AccuracyResult& r, Format f) {
  const auto name = [](const AccuracyRow& row) {
    return fmt::format("{} {}", row.backward ? "backward" : "forward", FormName(row.form));
  };
  const auto impl = [](const AccuracyRow& row) { return row.naive ? "naive" : "gelu"; };
  const auto verdict = [](const AccuracyRow& row) { return row.naive ? "-" : row.pass() ? "PASS" : "FAIL"; };
  std::string out;
  if (f == Format::csv) {
    out += "function,implementation,inputs,max_ulp,x,y,reference,ulp_bound,near_root_max_abs,near_root_x,"
           "near_root_abs_bound,nan_mismatches,verdict\n";
    for (const AccuracyRow& row : r.rows) {
      const Worst& w = row.worst;
      out += fmt::format("{},{},{},{},{:a},{:a},{:a},{},{},{},{},{},{}\n", name(row), impl(row), w.count, w.ulp,
                         w.x, w.y, w.r, row.naive ? "" : fmt::format("{}", row.function->f32_ulp),
                         row.backward ? fmt::format("{:.3g}", NearRootAbs(w)) : "",
                         row.backward ? fmt::format("{:a}", w.abs_x) : "",
                         row.backward && !row.naive ? fmt::format("{:a}", row.function->f32_abs) : "", w.nan_mismatches,
                         verdict(row));
    }
    return out;
  }
  if (f == Format::json) {
    out += fmt::format("{{\n  \"inputs\": {},\n  \"description\": {},\n  \"seconds\": {:.3f},\n  \"pass\": {},\n"
                       "  \"rows\": [",
                       r.inputs, JsonString(r.description), r.seconds, r.all_pass() ? "true" : "false");
    for (size_t i = 0; i < r.rows.size(); ++i) {
      const AccuracyRow& row = r.rows[i];
      const Worst& w = row.worst;
      out += fmt::format(
          "{}\n    {{\"function\": \"{}\", \"implementation\": \"{}\", \"max_ulp\": {}, \"x\": {}, \"y\": {}, "
          "\"reference\": {}, \"ulp_bound\": {}, \"near_root_max_abs\": {}, \"nan_mismatches\": {}, "
          "\"verdict\": \"{}\"}}",
          i ? "," : "", name(row), impl(row), JsonNumber(w.ulp), JsonNumber(w.x), JsonNumber(w.y),
          JsonNumber(w.r), row.naive ? "null" : JsonNumber(row.function->f32_ulp),
          row.backward ? JsonNumber(NearRootAbs(w)) : "null", w.nan_mismatches, verdict(row));
    }
    out += "\n  ]\n}\n";
    return out;
  }
  out += fmt::format("Accuracy of float32 GELU against the double-precision reference ({})\n", r.description);
  out += "Metric: |y - ref| / ulp(ref), ulp(ref) = 2^(max(e,-125)-24) (frexp exponent e), 2^-149 at 0; NaN "
         "must give NaN; a zero of the wrong sign is an error (inf).\n";
  out += fmt::format("Backward is grad_in for grad_out = 1. Near the root of f' (x in ({:g}, {:g}), |f'| < 2^{:g}) "
                     "the claim is absolute error <= 2^-24.\n",
                     common::kNearRoot.lo, common::kNearRoot.hi, std::log2(common::kNearRoot.max_derivative));
  out += "naive = the textbook float formula (0.5f*x*(1+erff(x/sqrt2)) etc.), shown for comparison.\n\n";
  out += fmt::format("{:<17} {:<5} {:>12}  {:<16} {:>15}  {:>6}  {:>20}  {:>8}  {}\n", "function", "impl",
                     "max ULP", "at x", "(x decimal)", "bound", "near-root max |err|", "NaN err", "verdict");
  for (const AccuracyRow& row : r.rows) {
    const Worst& w = row.worst;
    std::string near = "";
    if (row.backward) near = fmt::format("{:.3g} (2^{:.1f})", NearRootAbs(w), NearRootAbs(w) > 0 ? std::log2(NearRootAbs(w)) : -INFINITY);
    out += fmt::format("{:<17} {:<5} {:>12.4g}  {:<16a} {:>15.8g}  {:>6}  {:>20}  {:>8}  {}\n", name(row),
                       impl(row), w.ulp, w.x, w.x, row.naive ? "" : fmt::format("{:g}", row.function->f32_ulp), near,
                       w.nan_mismatches, verdict(row));
  }
  out += fmt::format("\n{} inputs x {} functions in {}: {}\n", r.inputs, r.rows.size() / 2, Duration(r.seconds),
                     r.all_pass() ? "every claim holds (PASS)" : "a claim FAILS");
  return out;
}

int RunAccuracy(const AccuracyOptions& o) {
  const AccuracyResult r = ComputeAccuracy(o);
  const std::string s = FormatAccuracy(r, o.format);
  std::fwrite(s.data(), 1, s.size(), stdout);
  return r.all_pass() ? 0 : 1;
}

Command AddAccuracyCommand(CLI::App& app) {
  auto o = std::make_shared<AccuracyOptions>();
  auto format = std::make_shared<std::string>("table");
  auto range = std::make_shared<std::string>();
  auto no_progress = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand(
      "accuracy", "Max ULP error of every float32 function against the double-precision reference, where it "
                  "occurs, the naive formula beside it, and PASS/FAIL against the library's claims (exit 1 on FAIL)");
  sub->add_flag("--exhaustive", o->exhaustive, "All 2^32 float32 inputs (minutes; progress bar and ETA)");
  AddFormOption(*sub, &o->approximate, "Forms: {}", /*with_all=*/true);
  sub->add_option("--threads,-t", o->threads, "Worker threads (0: all hardware threads)")->capture_default_str();
  sub->add_option("--range", *range, "With --exhaustive: only bit patterns LO:HI (hex or decimal), a spot check");
  sub->add_option("--format", *format, "Output: table, csv or json")
      ->check(CLI::IsMember(FormatChoices()))
      ->capture_default_str();
  sub->add_flag("--no-progress", *no_progress, "No progress bar on stderr");
  return {sub, [o, format, range, no_progress] {
            o->format = ParseFormat(*format);
            o->progress = !*no_progress;
            if (!range->empty()) {
              const size_t colon = range->find(':');
              try {
                if (colon == std::string::npos) throw std::invalid_argument("no colon");
                size_t end1 = 0, end2 = 0;
                const uint64_t lo = std::stoull(range->substr(0, colon), &end1, 0);
                const uint64_t hi = std::stoull(range->substr(colon + 1), &end2, 0);
                if (end1 != colon || end2 != range->size() - colon - 1) {
                  throw std::invalid_argument("trailing characters");
                }
                o->bit_range = std::pair{lo, hi};
              } catch (const std::logic_error&) {
                throw Failure("--range must be LO:HI, e.g. 0x3f800000:0x3fffffff, not '" + *range + "'");
              }
            }
            return RunAccuracy(*o);
          }};
}

}  // namespace gelu::cli
