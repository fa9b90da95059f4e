// SPDX-License-Identifier: Apache-2.0
// The facts `gelu report` states (computed here by the library, not typed in) and `gelu plot`, which computes
// the curves with the library and hands them as CSV to scripts/plot_gelu.py (matplotlib) for drawing.
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "gelu/gelu.hpp"
#include "src/reference/reference.h"
#include "tools/commands.h"

extern char** environ;

namespace gelu::cli {

Extremum FindMinimum(Approximation form) {
  // f' < 0 at -2 and > 0 at -0.3 for all three forms, and f' is increasing in between (f'' > 0 on (-sqrt2,
  // sqrt2) for the exact form; likewise for the others), so the bracket holds exactly one root.
  double lo = -2.0, hi = -0.3;
  if (!(gelu::derivative(lo, form) < 0 && gelu::derivative(hi, form) > 0)) {
    throw Failure(fmt::format("f' of the {} form does not change sign on [-2, -0.3]", to_string(form)));
  }
  // Bisect until the interval is two adjacent doubles.
  while (true) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (gelu::derivative(mid, form) < 0 ? lo : hi) = mid;
  }
  const double dlo = gelu::derivative(lo, form), dhi = gelu::derivative(hi, form);
  Extremum e;
  e.x = std::fabs(dlo) <= std::fabs(dhi) ? lo : hi;
  e.df = gelu::derivative(e.x, form);
  e.f = gelu::forward(e.x, form);
  return e;
}

std::string FormatFacts() {
  using gelu::derivative;
  using gelu::forward;
  const Extremum m = FindMinimum(Approximation::none);
  const Extremum mt = FindMinimum(Approximation::tanh);
  const Extremum ms = FindMinimum(Approximation::sigmoid);
  const double r2 = std::sqrt(2.0);
  std::string s;
  s += "Facts about GELU, f(x) = x*Phi(x), each computed by this library in float64 (gelu::forward/derivative):\n";
  s += fmt::format("  minimum        x* = {:.10f}  (root of f', bisection to adjacent doubles)\n", m.x);
  s += fmt::format("                 f(x*) = {:.10f}  (the minimum VALUE; the location is x* ~ {:.4f})\n", m.f, m.x);
  s += fmt::format("  f'(x*)         = {:.3g}  (zero to rounding: the gradient IS zero at x*; f'(x*-0.1) = {:.4f} "
                   "< 0,\n                 f'(x*+0.1) = {:.4f} > 0)\n",
                   m.df, derivative(m.x - 0.1), derivative(m.x + 0.1));
  s += fmt::format("  f(0) = {}, f'(0) = Phi(0) = {}\n", forward(0.0), derivative(0.0));
  s += fmt::format("  f' ranges over [{:.6f}, {:.6f}]: f'' = phi(x)(2 - x^2) vanishes at x = -+sqrt2, and "
                   "f'(-sqrt2) = {:.6f}, f'(sqrt2) = {:.6f}\n",
                   derivative(-r2), derivative(r2), derivative(-r2), derivative(r2));
  s += fmt::format("  asymptotes     f(x) - x -> 0 as x -> +inf and f(x) -> 0 as x -> -inf (one fact: f(x) - f(-x) = x):\n"
                   "                 f(5) - 5 = {:.6g}, f(-5) = {:.6g}; f(10) - 10 = {:.3g}, f(-10) = {:.6g}; "
                   "f'(-10) = {:.3g}, f'(10) = {}\n",
                   forward(5.0) - 5.0, forward(-5.0), forward(10.0) - 10.0, forward(-10.0), derivative(-10.0),
                   derivative(10.0));
  s += fmt::format("  tanh form      minimum at x = {:.10f}, f = {:.10f}\n", mt.x, mt.f);
  s += fmt::format("  sigmoid form   minimum at x = {:.10f}, f = {:.10f}\n", ms.x, ms.f);
  s += "Common write-ups get two of these wrong: -0.17 is the minimum's value, not its location (x* ~ -0.7518);\n"
       "and \"GELU's gradient is never zero\" is false: f'(x*) = 0, and f' < 0 for every x < x*.\n";
  return s;
}

namespace {

std::string Num(double v) { return fmt::format("{:.17g}", v); }

std::filesystem::path ExecutableDir() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p.parent_path();
}

// Where plot_gelu.py lives: $GELU_PLOT_SCRIPT; installed beside the executable's prefix
// (<prefix>/share/gelu/plot_gelu.py); in the source tree this binary was built from.
std::filesystem::path FindScript() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("GELU_PLOT_SCRIPT"); env != nullptr && *env != '\0') return env;
  const auto exe = ExecutableDir();
  if (!exe.empty()) candidates.push_back(exe.parent_path() / "share" / "gelu" / "plot_gelu.py");
  candidates.push_back(std::filesystem::path(GELU_SOURCE_DIR) / "scripts" / "plot_gelu.py");
  for (const auto& c : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(c, ec)) return c;
  }
  std::string tried;
  for (const auto& c : candidates) tried += " '" + c.string() + "'";
  throw Failure("cannot find plot_gelu.py (looked at" + tried + "; set GELU_PLOT_SCRIPT to its path)");
}

void WriteFile(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw Failure("cannot write '" + p.string() + "'");
}

// Runs argv[0] (an absolute path) with argv; returns its exit status. Throws if it cannot be started.
int Spawn(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ);
  if (err != 0) {
    throw Failure(fmt::format("cannot run '{}': {}; gelu plot needs Python 3 with matplotlib "
                              "(Debian: apt-get install python3 python3-matplotlib; choose another with --python)",
                              argv[0], std::strerror(err)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Failure(fmt::format("waitpid failed: {}", std::strerror(errno)));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "gelu-plot-XXXXXX").string();
    if (mkdtemp(t.data()) == nullptr) throw Failure(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

std::vector<std::string> MakePlots(const PlotOptions& o) {
  if (o.leaky_slope <= 0 || o.leaky_slope >= 1) throw Failure("--leaky-slope must be in (0, 1)");
  std::error_code ec;
  if (!std::filesystem::is_directory(o.outdir, ec)) {
    // Create the output directory (one level or many), as `gelu report -o DIR` promises to.
    std::filesystem::create_directories(o.outdir, ec);
    if (ec) throw Failure(fmt::format("cannot create output directory '{}': {}", o.outdir, ec.message()));
  }
  if (::access(o.outdir.c_str(), W_OK) != 0) {
    throw Failure(fmt::format("output directory '{}' is not writable: {}", o.outdir, std::strerror(errno)));
  }
  const std::filesystem::path script = FindScript();
  const Extremum m = FindMinimum(Approximation::none);
  constexpr Approximation kForms[] = {Approximation::none, Approximation::tanh, Approximation::sigmoid};

  // Curves on [-4, 4], step 1/200, everything from the library in float64 (ReLU and Leaky ReLU are trivial).
  std::string curves = "x,relu,leaky,d_relu,d_leaky,f_none,f_tanh,f_sigmoid,d_none,d_tanh,d_sigmoid\n";
  for (int i = -800; i <= 800; ++i) {
    const double x = i / 200.0;
    curves += fmt::format("{},{},{},{},{}", Num(x), Num(x > 0 ? x : 0.0), Num(x > 0 ? x : o.leaky_slope * x),
                          x > 0 ? 1 : 0, Num(x > 0 ? 1.0 : o.leaky_slope));
    for (Approximation a : kForms) curves += "," + Num(gelu::forward(x, a));
    for (Approximation a : kForms) curves += "," + Num(gelu::derivative(x, a));
    curves += "\n";
  }
  // Each approximation minus the exact form on [-8, 8], step 1/100, float64.
  std::string errors = "x,e_tanh,e_sigmoid,de_tanh,de_sigmoid\n";
  for (int i = -800; i <= 800; ++i) {
    const double x = i / 100.0;
    const double f = gelu::forward(x), d = gelu::derivative(x);
    errors += fmt::format("{},{},{},{},{}\n", Num(x), Num(gelu::forward(x, Approximation::tanh) - f),
                          Num(gelu::forward(x, Approximation::sigmoid) - f),
                          Num(gelu::derivative(x, Approximation::tanh) - d),
                          Num(gelu::derivative(x, Approximation::sigmoid) - d));
  }
  // float32 exact form, ours vs the textbook formula, in ULP of the reference, on [-14.5, 4].
  std::string ulps = "x,ulp_gelu,ulp_naive\n";
  for (int i = 0; i <= 3700; ++i) {
    const float x = static_cast<float>(-14.5 + i * 0.005);
    const double r = reference::Forward(x, reference::Form::kNone);
    ulps += fmt::format("{},{},{}\n", Num(x), Num(reference::UlpErrorF32(gelu::forward(x), r)),
                        Num(reference::UlpErrorF32(NaiveForwardF32(x, Approximation::none), r)));
  }

  TempDir tmp;
  WriteFile(tmp.path / "curves.csv", curves);
  WriteFile(tmp.path / "errors.csv", errors);
  WriteFile(tmp.path / "ulps.csv", ulps);
  const int rc = Spawn({o.python, script.string(), "--curves", (tmp.path / "curves.csv").string(), "--errors",
                        (tmp.path / "errors.csv").string(), "--ulps", (tmp.path / "ulps.csv").string(), "--min-x",
                        Num(m.x), "--min-y", Num(m.f), "--leaky-slope", Num(o.leaky_slope), "--outdir", o.outdir});
  if (rc != 0) {
    throw Failure(fmt::format("'{} {}' failed with exit status {}{}", o.python, script.string(), rc,
                              rc == 3 ? " (matplotlib is missing: apt-get install python3-matplotlib)" : ""));
  }
  std::vector<std::string> written;
  for (const char* name : {"gelu_vs_relu.png", "gelu_vs_relu.svg", "gelu_approx_error.png", "gelu_approx_error.svg"}) {
    const auto p = std::filesystem::path(o.outdir) / name;
    if (!std::filesystem::is_regular_file(p, ec)) throw Failure("the script did not write '" + p.string() + "'");
    written.push_back(p.string());
  }
  return written;
}

int RunPlot(const PlotOptions& o) {
  const std::vector<std::string> written = MakePlots(o);
  if (!o.quiet) {
    for (const std::string& p : written) std::printf("wrote %s\n", p.c_str());
  }
  return 0;
}

}  // namespace gelu::cli
