// SPDX-License-Identifier: Apache-2.0
// `gelu plot`: computes the curves with the library and hands them as CSV to scripts/plot_gelu.py (matplotlib)
// for drawing.
#include <CLI/CLI.hpp>
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
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "gelu/gelu.hpp"
#include "src/reference/reference.h"
#include "tools/cleanup_on_signal.h"
#include "tools/commands.h"
#include "tools/replace_file.h"

extern char** environ;

namespace gelu::cli {

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

// The failure of an interpreter that cannot be started (CheckPlotOptions before anything runs, Spawn after).
Failure CannotRun(const std::string& python, int err) {
  return Failure(fmt::format("cannot run '{}': {}; gelu plot needs Python 3 with matplotlib "
                             "(the project's: bash scripts/install_python_env.sh; choose another with --python or GELU_PYTHON)",
                             python, std::strerror(err)));
}

// Runs argv[0] (an absolute path) with argv; returns its exit status. Throws if it cannot be started. While it runs
// it is CleanupOnSignal's child: a signal that ends gelu stops it before the temporary directory it draws into is
// removed. It starts with the caller's signal mask (not the one blocked here around posix_spawn and SetChild) and
// SIGXFSZ at its default action (main ignores it for gelu's own writes). If the wait fails, it is killed and
// reaped before Spawn throws.
int Spawn(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  {
    const BlockEndingSignals blocked;
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGXFSZ);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &blocked.previous());
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    const int err = posix_spawn(&pid, args[0], nullptr, &attr, args.data(), environ);
    posix_spawnattr_destroy(&attr);
    if (err != 0) throw CannotRun(argv[0], err);
    CleanupOnSignal::SetChild(pid);
  }
  const auto fail = [pid](const char* call) {
    const int e = errno;
    CleanupOnSignal::SetChild(0);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return Failure(fmt::format("{} failed: {}", call, std::strerror(e)));
  };
  // Waited for without reaping (WNOWAIT), so that until SetChild(0) the pid the handler may kill is still this
  // child's, never a reused one.
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0) {
    if (errno != EINTR) throw fail("waitid");
  }
  CleanupOnSignal::SetChild(0);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw fail("waitpid");
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// The files the script draws, in the order DrawPlots returns them and ReplaceFiles renames them into OUTDIR.
constexpr const char* kFigures[] = {"gelu_vs_relu.png", "gelu_vs_relu.svg", "gelu_approx_error.png",
                                    "gelu_approx_error.svg"};
// The CSV files gelu writes for the script.
constexpr const char* kCsvFiles[] = {"curves.csv", "errors.csv", "ulps.csv"};

// The temporary directory the CSV files and the figures go through: removed when MakePlots returns or throws, and
// by CleanupOnSignal when a signal ends gelu meanwhile (it then removes the files named above, the figures
// directory and the directory itself: what gelu and the script write there).
struct TempDir {
  std::filesystem::path path;
  CleanupOnSignal guard;
  std::vector<int> slots;
  TempDir() {
    slots.reserve(2 + std::size(kCsvFiles) + std::size(kFigures));
    std::string t = UniqueNameTemplate((std::filesystem::temp_directory_path() / "gelu-plot-").string());
    {
      const BlockEndingSignals blocked;
      if (mkdtemp(t.data()) == nullptr) {
        throw Failure(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
      }
      slots.push_back(CleanupOnSignal::Track(t.c_str()));
    }
    path = t;
    slots.push_back(CleanupOnSignal::Track(Figures().c_str()));
    for (const char* name : kCsvFiles) slots.push_back(CleanupOnSignal::Track((path / name).c_str()));
    for (const char* name : kFigures) slots.push_back(CleanupOnSignal::Track((Figures() / name).c_str()));
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    for (int slot : slots) CleanupOnSignal::Untrack(slot);
  }
  std::filesystem::path Figures() const { return path / "figures"; }
  std::filesystem::path Csv(size_t i) const { return path / kCsvFiles[i]; }
};

}  // namespace

std::string DefaultPython() {
  const char* env = std::getenv("GELU_PYTHON");
  return env && *env ? env : GELU_DEFAULT_PYTHON;
}

void CheckPlotOptions(const PlotOptions& o) {
  // Written so that NaN fails too.
  if (!(o.leaky_slope > 0 && o.leaky_slope < 1)) throw Failure("--leaky-slope must be in (0, 1)");
  if (::access(o.python.c_str(), X_OK) != 0) throw CannotRun(o.python, errno);
  (void)FindScript();
}

std::vector<std::string> FigureNames() { return {std::begin(kFigures), std::end(kFigures)}; }

std::vector<Figure> DrawPlots(const PlotOptions& o) {
  CheckPlotOptions(o);
  const std::filesystem::path script = FindScript();
  const Extremum m = FindMinimum(Approximation::none);
  const std::vector<Approximation> forms = AllForms();

  // Curves on [-4, 4], step 1/200, everything from the library in float64 (ReLU and Leaky ReLU are trivial).
  // Columns f_<form>, d_<form> for every form of the table (f_none, ..., d_sigmoid: the names the script reads).
  std::string curves = "x,relu,leaky,d_relu,d_leaky";
  for (const char* prefix : {",f_", ",d_"}) {
    for (Approximation a : forms) curves += prefix + std::string(FormName(a));
  }
  curves += "\n";
  for (int i = -800; i <= 800; ++i) {
    const double x = i / 200.0;
    curves += fmt::format("{},{},{},{},{}", Num(x), Num(x > 0 ? x : 0.0), Num(x > 0 ? x : o.leaky_slope * x),
                          x > 0 ? 1 : 0, Num(x > 0 ? 1.0 : o.leaky_slope));
    for (Approximation a : forms) curves += "," + Num(gelu::forward(x, a));
    for (Approximation a : forms) curves += "," + Num(gelu::derivative(x, a));
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
    const double r = reference::Forward(x, gelu::common::kNone);
    ulps += fmt::format("{},{},{}\n", Num(x), Num(reference::UlpErrorF32(gelu::forward(x), r)),
                        Num(reference::UlpErrorF32(NaiveForwardF32(x, Approximation::none), r)));
  }

  TempDir tmp;
  WriteFile(tmp.Csv(0), curves);
  WriteFile(tmp.Csv(1), errors);
  WriteFile(tmp.Csv(2), ulps);
  const int rc = Spawn({o.python, script.string(), "--curves", tmp.Csv(0).string(), "--errors", tmp.Csv(1).string(),
                        "--ulps", tmp.Csv(2).string(), "--min-x", Num(m.x), "--min-y", Num(m.f), "--leaky-slope",
                        Num(o.leaky_slope), "--outdir", tmp.Figures().string()});
  if (rc != 0) {
    throw Failure(fmt::format("'{} {}' failed with exit status {}{}", o.python, script.string(), rc,
                              rc == 3 ? " (matplotlib is missing: pip install matplotlib)" : ""));
  }
  // Every figure read whole, or nothing returned: a missing figure fails before the caller replaces any file.
  std::vector<Figure> drawn;
  std::error_code ec;
  for (const char* name : kFigures) {
    const auto p = tmp.Figures() / name;
    std::ifstream f(p, std::ios::binary);
    if (!std::filesystem::is_regular_file(p, ec) || !f) {
      throw Failure(fmt::format("the script did not write {} (nothing in '{}' was changed)", name, o.outdir));
    }
    drawn.push_back({name, std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>())});
    const auto size = std::filesystem::file_size(p, ec);
    if (ec || size != drawn.back().contents.size()) {
      throw Failure(fmt::format("cannot read the drawn {} (nothing in '{}' was changed)", name, o.outdir));
    }
  }
  return drawn;
}

void PrepareOutputDirectory(const std::string& outdir, const std::vector<std::string>& names) {
  std::error_code ec;
  if (!std::filesystem::is_directory(outdir, ec)) {
    // Create the output directory (one level or many), as `gelu plot -o DIR` and `gelu report -o DIR` promise.
    std::filesystem::create_directories(outdir, ec);
    if (ec || !std::filesystem::is_directory(outdir)) {
      throw Failure(fmt::format("cannot create output directory '{}': {}", outdir,
                                ec ? ec.message() : "a file of that name exists"));
    }
  }
  if (::access(outdir.c_str(), W_OK) != 0) {
    throw Failure(fmt::format("output directory '{}' is not writable: {}", outdir, std::strerror(errno)));
  }
  for (const std::string& name : names) (void)CheckReplaceable(std::filesystem::path(outdir) / name);
}

std::vector<std::string> MakePlots(const PlotOptions& o) {
  CheckPlotOptions(o);
  PrepareOutputDirectory(o.outdir, FigureNames());
  // The script draws into a temporary directory; only once it has drawn every figure are they written into
  // OUTDIR, all together by ReplaceFiles (every destination checked, every figure written to its temporary file,
  // then the renames). So a failing script, a missing figure, a refused destination or a write that fails leaves
  // OUTDIR's files as they were.
  const std::vector<Figure> drawn = DrawPlots(o);
  std::vector<NewFile> files;
  std::vector<std::string> written;
  for (const Figure& f : drawn) {
    files.push_back({std::filesystem::path(o.outdir) / f.name, f.contents});
    written.push_back(files.back().path.string());
  }
  ReplaceFiles(files);
  return written;
}

int RunPlot(const PlotOptions& o) {
  const std::vector<std::string> written = MakePlots(o);
  if (!o.quiet) {
    for (const std::string& p : written) std::printf("wrote %s\n", p.c_str());
  }
  return 0;
}

Command AddPlotCommand(CLI::App& app) {
  auto o = std::make_shared<PlotOptions>();
  auto* sub = app.add_subcommand("plot", "Draw GELU vs ReLU vs Leaky ReLU (f and f' on [-4, 4]) and the error of each "
                                         "approximation, as PNG and SVG (matplotlib)");
  sub->add_option("-o,--outdir", o->outdir, "Output directory (created if missing)")->capture_default_str();
  sub->add_option("--python", o->python, "Python 3 interpreter that has matplotlib")->capture_default_str();
  sub->add_option("--leaky-slope", o->leaky_slope, "Negative slope of the Leaky ReLU drawn")->capture_default_str();
  return {sub, [o] { return RunPlot(*o); }};
}

}  // namespace gelu::cli
