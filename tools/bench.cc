// SPDX-License-Identifier: Apache-2.0
// `gelu bench`: our own timing loop (std::chrono), so the command needs nothing beyond the library.
//
// For each dtype, size and thread count: a plain copy of the same bytes (the memory limit), the naive
// 0.5*x*(1+erf(x/sqrt 2)) loop and its derivative (the baseline every GELU write-up shows), and each of our six
// functions. Inputs: fixed-seed N(0, 1), what transformer pre-activations look like. Each case is run once
// to fault pages in and warm caches, then `repeats` samples are taken, each timing enough calls to last at least
// `min_sample` seconds; the median sample is reported. Bytes counted: forward and copy read and write n
// elements (2n), backward reads two arrays and writes one (3n).
//
// Threads: the library splits arrays of >= 2^16 elements over gelu::set_num_threads threads. The copy and
// naive baselines follow the same rule with OpenMP (static schedule), so "all threads" means the same for all.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <thread>
#include <vector>

#include "gelu/gelu.hpp"
#include "src/parallel/parallel.h"
#include "src/reference/naive.h"
#include "tools/commands.h"

namespace gelu::cli {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

template <class T>
struct Buffer {
  std::unique_ptr<T[], FreeDeleter> p;
  size_t n = 0;
  explicit Buffer(size_t count) : n(count) {
    // 64-byte aligned (a cache line, an AVX-512 vector), like any serious allocator hands to a tensor.
    const size_t bytes = std::max<size_t>(64, (count * sizeof(T) + 63) / 64 * 64);
    p.reset(static_cast<T*>(std::aligned_alloc(64, bytes)));
    if (!p) throw Failure(fmt::format("cannot allocate {} bytes", bytes));
  }
  std::span<T> span() { return {p.get(), n}; }
  std::span<const T> cspan() const { return {p.get(), n}; }
};

// Runs body(begin, end) over [0, n) on `threads` threads, split exactly as the library splits its arrays.
void Split(uint64_t n, int threads, const std::function<void(size_t, size_t)>& body) {
  gelu::parallel::ParallelForThreads(n, threads, body);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Median seconds per call of fn(). A call that already lasts min_sample is its own sample, so slow cases (the
// naive loop at out-of-cache sizes) cost 1 + repeats calls, not more.
double Time(const std::function<void()>& fn, int repeats, double min_sample) {
  using clock = std::chrono::steady_clock;
  fn();  // warm-up: faults pages in, fills caches, wakes the thread pool
  auto t0 = clock::now();
  fn();
  const double once = std::max(1e-9, std::chrono::duration<double>(clock::now() - t0).count());
  std::vector<double> samples;
  if (once >= min_sample) samples.push_back(once);
  const int calls = static_cast<int>(std::clamp(min_sample / once, 1.0, 1e6));
  while (static_cast<int>(samples.size()) < repeats) {
    t0 = clock::now();
    for (int c = 0; c < calls; ++c) fn();
    samples.push_back(std::chrono::duration<double>(clock::now() - t0).count() / calls);
  }
  return Median(samples);
}

struct Case {
  std::string function, approximate;
  std::function<void()> run;
  int streams;  // arrays moved per element
};

template <class T>
void BenchDtype(const BenchOptions& o, const std::vector<uint64_t>& sizes, const std::vector<int>& thread_list,
                const std::vector<Approximation>& forms, int repeats, double min_sample, BenchResult& result,
                int& done, int total) {
  const std::string dtype = sizeof(T) == 4 ? "float32" : "float64";
  for (uint64_t n : sizes) {
    Buffer<T> x(n), g(n), y(n);
    std::mt19937_64 rng(42);
    std::normal_distribution<T> normal(T(0), T(1));
    for (T& v : x.span()) v = normal(rng);
    for (T& v : g.span()) v = normal(rng);
    for (int threads : thread_list) {
      std::vector<Case> cases;
      cases.push_back({"copy", "", [&] {
                         Split(n, threads, [&](size_t b, size_t e) {
                           if (e > b) std::memcpy(y.p.get() + b, x.p.get() + b, (e - b) * sizeof(T));
                         });
                       },
                       2});
      cases.push_back({"naive forward", "none", [&] {
                         Split(n, threads, [&](size_t b, size_t e) {
                           for (size_t i = b; i < e; ++i) y.p[i] = reference::NaiveForward(x.p[i], common::kNone);
                         });
                       },
                       2});
      cases.push_back({"naive backward", "none", [&] {
                         Split(n, threads, [&](size_t b, size_t e) {
                           for (size_t i = b; i < e; ++i) y.p[i] = g.p[i] * reference::NaiveDerivative(x.p[i], common::kNone);
                         });
                       },
                       3});
      for (Approximation a : forms) {
        cases.push_back({"forward", FormName(a), [&, a] { gelu::forward(x.cspan(), y.span(), a); }, 2});
      }
      for (Approximation a : forms) {
        cases.push_back(
            {"backward", FormName(a), [&, a] { gelu::backward(g.cspan(), x.cspan(), y.span(), a); }, 3});
      }
      gelu::set_num_threads(threads);
      double copy_gbs = 0;
      for (const Case& c : cases) {
        ++done;
        if (o.progress && StderrIsTerminal()) {
          std::fprintf(stderr, "\rbench [%3d/%d] %-15s %-7s %s n=%s threads=%d\x1b[K", done, total,
                       c.function.c_str(), c.approximate.c_str(), dtype.c_str(), HumanCount(n).c_str(), threads);
        }
        BenchRow row;
        row.function = c.function;
        row.approximate = c.approximate;
        row.dtype = dtype;
        row.n = n;
        row.threads = threads;
        row.seconds = Time(c.run, repeats, min_sample);
        row.gelem_s = static_cast<double>(n) / row.seconds * 1e-9;
        row.gbyte_s = row.gelem_s * static_cast<double>(sizeof(T) * static_cast<size_t>(c.streams));
        if (c.function == "copy") copy_gbs = row.gbyte_s;
        row.vs_copy = copy_gbs > 0 ? row.gbyte_s / copy_gbs : 0;
        result.rows.push_back(row);
      }
    }
  }
}

}  // namespace

BenchResult ComputeBench(const BenchOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<uint64_t> sizes;
  for (int64_t n : o.sizes) {
    if (n < 1 || n > (int64_t{1} << 32)) throw Failure(fmt::format("size {} out of range [1, 2^32]", n));
    sizes.push_back(static_cast<uint64_t>(n));
  }
  if (sizes.empty()) {
    // L1 (4 Ki x 4 B = 16 KiB), L2 (64 Ki: 256 KiB), L2/L3 (1 Mi: 4 MiB), past most L3s (16 Mi: 64 MiB per
    // array). --quick keeps one in-L2 size and one past a 2 MiB L2 (2 Mi float32: 8 MiB per array).
    sizes = o.quick ? std::vector<uint64_t>{uint64_t{1} << 16, uint64_t{1} << 21}
                    : std::vector<uint64_t>{uint64_t{1} << 12, uint64_t{1} << 16, uint64_t{1} << 20, uint64_t{1} << 24};
  }
  std::vector<int> thread_list = o.threads;
  if (thread_list.empty()) {
    thread_list = {1};
    if (hw > 1) thread_list.push_back(hw);
  }
  for (int t : thread_list) {
    if (t < 1) throw Failure("--threads values must be >= 1");
  }
  const std::vector<Approximation> forms = ParseForms(o.approximate, /*with_all=*/true);
  std::vector<std::string> dtypes;
  if (o.dtype == "all") {
    dtypes = {"float32", "float64"};
  } else if (o.dtype == "float32" || o.dtype == "float64") {
    dtypes = {o.dtype};
  } else {
    throw Failure("--dtype must be float32, float64 or all, not '" + o.dtype + "'");
  }
  const int repeats = o.repeats > 0 ? o.repeats : o.quick ? 3 : 5;
  const double min_sample = o.quick ? 0.002 : 0.02;
  const int total = static_cast<int>(dtypes.size() * sizes.size() * thread_list.size() * (3 + 2 * forms.size()));
  BenchResult result;
  int done = 0;
  const int saved_threads = gelu::num_threads();
  for (const std::string& d : dtypes) {
    if (d == "float32") {
      BenchDtype<float>(o, sizes, thread_list, forms, repeats, min_sample, result, done, total);
    } else {
      BenchDtype<double>(o, sizes, thread_list, forms, repeats, min_sample, result, done, total);
    }
  }
  gelu::set_num_threads(saved_threads);
  if (o.progress && StderrIsTerminal()) std::fprintf(stderr, "\r\x1b[K");
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.method = fmt::format(
      "gelu bench{}: SIMD target {}, {} hardware threads; inputs N(0,1) (seed 42); each case warmed up once, then "
      "the median of {} samples of >= {} ms each; GB/s counts 2 arrays per element for forward and copy, 3 for "
      "backward; 'vs copy' = GB/s / copy GB/s at the same dtype, size and threads. naive = "
      "0.5*x*(1+erf(x/sqrt2)) (and its derivative) per element, compiled with the same flags.",
      o.quick ? " --quick" : "", gelu::simd_target(), hw, repeats, min_sample * 1e3);
  return result;
}

std::string FormatBench(const BenchResult& r, Format f) {
  std::string out;
  if (f == Format::csv) {
    out += "function,approximate,dtype,n,threads,seconds_per_call,gelem_per_s,gbyte_per_s,vs_copy\n";
    for (const BenchRow& row : r.rows) {
      out += fmt::format("{},{},{},{},{},{:.6g},{:.4g},{:.4g},{:.3f}\n", row.function, row.approximate, row.dtype,
                         row.n, row.threads, row.seconds, row.gelem_s, row.gbyte_s, row.vs_copy);
    }
    return out;
  }
  if (f == Format::json) {
    out += fmt::format("{{\n  \"method\": {},\n  \"simd_target\": {},\n  \"seconds\": {:.2f},\n  \"rows\": [",
                       JsonString(r.method), JsonString(gelu::simd_target()), r.seconds);
    for (size_t i = 0; i < r.rows.size(); ++i) {
      const BenchRow& row = r.rows[i];
      out += fmt::format(
          "{}\n    {{\"function\": \"{}\", \"approximate\": \"{}\", \"dtype\": \"{}\", \"n\": {}, \"threads\": {}, "
          "\"seconds_per_call\": {}, \"gelem_per_s\": {}, \"gbyte_per_s\": {}, \"vs_copy\": {}}}",
          i ? "," : "", row.function, row.approximate, row.dtype, row.n, row.threads, JsonNumber(row.seconds),
          JsonNumber(row.gelem_s), JsonNumber(row.gbyte_s), JsonNumber(row.vs_copy));
    }
    out += "\n  ]\n}\n";
    return out;
  }
  out += fmt::format("{:<15} {:<8} {:<8} {:>6} {:>7} {:>12} {:>9} {:>8} {:>8}\n", "function", "approx", "dtype",
                     "n", "threads", "time/call", "Gelem/s", "GB/s", "vs copy");
  std::string last_group;
  for (const BenchRow& row : r.rows) {
    const std::string group = fmt::format("{}{}{}", row.dtype, row.n, row.threads);
    if (!last_group.empty() && group != last_group) out += "\n";
    last_group = group;
    out += fmt::format("{:<15} {:<8} {:<8} {:>6} {:>7} {:>12} {:>9.3f} {:>8.2f} {:>8.2f}\n", row.function,
                       row.approximate, row.dtype, HumanCount(row.n), row.threads, Duration(row.seconds),
                       row.gelem_s, row.gbyte_s, row.vs_copy);
  }
  out += fmt::format("\nMethod: {} Took {}.\n", r.method, Duration(r.seconds));
  return out;
}

int RunBench(const BenchOptions& o) {
  const BenchResult r = ComputeBench(o);
  const std::string s = FormatBench(r, o.format);
  std::fwrite(s.data(), 1, s.size(), stdout);
  return 0;
}

Command AddBenchCommand(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto format = std::make_shared<std::string>("table");
  auto no_progress = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("bench", "Time every form, forward and backward, float32 and float64, from L1 to "
                                          "DRAM sizes, 1 and all threads, beside a copy and the naive erf loop");
  sub->add_flag("--quick", o->quick, "Two sizes and 3 samples: done in well under 20 s");
  sub->add_option("--format", *format, "Output: table, csv or json")
      ->check(CLI::IsMember(FormatChoices()))
      ->capture_default_str();
  AddFormOption(*sub, &o->approximate, "Forms to time: {}", /*with_all=*/true);
  sub->add_option("--dtype", o->dtype, "float32, float64 or all")
      ->check(CLI::IsMember({"float32", "float64", "all"}))
      ->capture_default_str();
  sub->add_option("--sizes", o->sizes, "Element counts (default 4096 65536 1048576 16777216)");
  sub->add_option("--threads,-t", o->threads, "Thread counts (default: 1 and all hardware threads)");
  sub->add_option("--repeats", o->repeats, "Samples per case, median reported (default 5, --quick 3)")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  sub->add_flag("--no-progress", *no_progress, "No progress line on stderr");
  return {sub, [o, format, no_progress] {
            o->format = ParseFormat(*format);
            o->progress = !*no_progress;
            return RunBench(*o);
          }};
}

}  // namespace gelu::cli
