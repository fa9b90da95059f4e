// SPDX-License-Identifier: Apache-2.0
// The checker of tools/checker.h: inputs, judging against the reference, the report, and running a library's
// function in child processes.
#include "tools/checker.h"

#include <dlfcn.h>
#include <omp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "src/common/half.h"
#include "src/reference/reference.h"
#include "src/reference/ulp.h"
#include "tools/checker_oracle.h"
#include "tools/checker_plot_bins.h"
#include "tools/checker_types.h"
#include "tools/cli_helpers.h"

namespace gelu::check {
namespace {

int Bin(double e) {
  if (e == 0) return 0;
  if (e <= 0.5) return 1;
  if (e <= 1) return 2;
  if (e <= 2) return 3;
  if (e <= 4) return 4;
  if (e <= 16) return 5;
  if (e <= 256) return 6;
  if (e < kInf) return 7;
  return 8;
}

void Raise(Place& p, const Place& o) {
  if (o.index == UINT64_MAX) return;
  if (p.index == UINT64_MAX || o.error > p.error || (o.error == p.error && o.index < p.index)) p = o;
}
void First(Place& p, const Place& o) {
  if (o.index != UINT64_MAX && (p.index == UINT64_MAX || o.index < p.index)) p = o;
}

// One result against one reference: the reference r (f, or dy f'), the correctly rounded value of the type, the
// error (ULP of the type, or inside a derivative's near-root window |y - r| / (|dy| 2^-precision); NaN for a NaN
// mismatch, as reference::PairError gives it) and |y - r|.
struct Verdict {
  double r, expected, error, abs_error;
};

// The verdict for float32 and 16-bit results against the double reference.
Verdict FloatVerdict(const Spec& s, const TypeInfo& info, float x, float y, double dy, Approximation form) {
  double r = Reference(x, form, s.backward);
  if (s.backward) r *= dy;
  double e;
  const double fprime = dy != 0 ? r / dy : 0;
  if (s.backward && dy != 0 && !std::isnan(r) && common::InNearRootWindow(x, fprime)) {
    e = reference::PairError(y, r, std::fabs(static_cast<double>(y) - r) / (std::fabs(dy) * std::ldexp(1.0, -info.precision)));
  } else {
    e = reference::PairError(y, r, s.type == Type::f32 ? reference::UlpErrorF32(y, r)
                                                       : reference::UlpErrorIn(y, r, info.precision, info.min_exponent));
  }
  return {r, RoundTo(s.type, r), e, std::fabs(static_cast<double>(y) - r)};
}

#if defined(GELU_CHECK_HAVE_MPFR)
// The verdict for float64 results against MPFR; r is RN(r), which the profiles' absolute tests (torch, abs10eps)
// compare with, half an ULP of the true value away at most.
Verdict F64Verdict(const Spec& s, double x, double y, double dy, Approximation form) {
  if (!std::isfinite(x)) {
    double r = ReferenceF64(x, form, s.backward);
    if (s.backward) r *= dy;
    return {r, r, SameResult(y, r) ? 0.0 : std::nan(""), std::fabs(y - r)};
  }
  F64Oracle& oracle = ThreadOracle();
  const double r = oracle.Eval(x, form, s.backward, dy);
  // NaN, inf and the sign of zero as UlpErrorF32 (src/reference/ulp.h) rules them, with PairError's NaN.
  if (std::isnan(r) || std::isnan(y)) return {r, r, reference::PairError(y, r, 0.0), std::fabs(y - r)};
  if (std::isinf(r) || std::isinf(y)) return {r, r, y == r ? 0.0 : kInf, std::fabs(y - r)};
  const F64Oracle::Errors err = oracle.Error(y, dy);
  double e = err.ulps;
  if (y == 0 && std::signbit(y) != std::signbit(r)) e = kInf;
  else if (s.backward && dy != 0 && common::InNearRootWindow(x, oracle.derivative())) e = err.window;
  return {r, r, e, err.abs};
}
#endif

void JudgeOne(const TypeInfo& info, double x, double y, const Verdict& v, bool near_root_x, uint64_t index,
              Judgement& j, std::vector<double>* plot) {
  const double r = v.r, expected = v.expected;
  double e = v.error;
  if (std::isnan(e)) e = kInf;  // a NaN mismatch: worse than any number
  const Place here{e, x, y, r, index};
  Raise(j.worst, here);
  const double ax = std::fabs(x);
  const double min_normal = std::ldexp(1.0, info.min_exponent - 1);
  bool in[kNumRegions] = {ax < 4, x <= -4, x >= 4, expected != 0 && std::fabs(expected) < min_normal, near_root_x};
  for (int k = 0; k < kNumRegions; ++k) {
    if (!in[k]) continue;
    ++j.histogram[k][Bin(e)];
    Raise(j.region_worst[k], here);
  }
  bool torch_ok;
  if (std::isnan(expected) || std::isnan(y) || std::isinf(expected) || std::isinf(y)) {
    torch_ok = SameResult(y, expected);
  } else {
    torch_ok = std::fabs(static_cast<double>(y) - expected) <= info.torch_atol + info.torch_rtol * std::fabs(expected);
  }
  const bool abs_ok = !(ax <= 10) || v.abs_error <= 10 * info.eps;
  const bool ok[kNumProfiles] = {e <= 1, e <= 4, torch_ok, abs_ok, SameResult(y, expected)};
  for (int p = 0; p < kNumProfiles; ++p) {
    if (ok[p]) continue;
    if (j.profile_failures[p]++ == 0 || index < j.profile_first[p].index) j.profile_first[p] = here;
  }
  if (plot != nullptr && !std::isinf(x) && !std::isnan(x)) {
    double& m = (*plot)[static_cast<size_t>(PlotBin(static_cast<float>(x)))];
    m = std::max(m, std::min(e, 1e30));
  }
}

}  // namespace

bool Special::ok() const { return SameResult(y, expected); }

void Judgement::Merge(const Judgement& o) {
  Raise(worst, o.worst);
  for (int k = 0; k < kNumRegions; ++k) {
    Raise(region_worst[k], o.region_worst[k]);
    for (int b = 0; b < kNumBins; ++b) histogram[k][b] += o.histogram[k][b];
  }
  for (int p = 0; p < kNumProfiles; ++p) {
    profile_failures[p] += o.profile_failures[p];
    First(profile_first[p], o.profile_first[p]);
  }
}

namespace {
double MinNan(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b); }
}  // namespace

void Findings::Merge(const Findings& o) {
  inputs += o.inputs;
  own.Merge(o.own);
  exact.Merge(o.exact);
  for (int k = 0; k < kNumSpecials; ++k) {
    if (o.specials[k].seen && !specials[k].seen) specials[k] = o.specials[k];
  }
  cutoff = MinNan(cutoff, o.cutoff);
  cutoff_expected = MinNan(cutoff_expected, o.cutoff_expected);
  subnormal_expected += o.subnormal_expected;
  subnormal_flushed += o.subnormal_flushed;
  subnormal_inputs += o.subnormal_inputs;
  subnormal_inputs_zeroed += o.subnormal_inputs_zeroed;
  for (size_t i = 0; i < plot_max.size() && i < o.plot_max.size(); ++i) plot_max[i] = std::max(plot_max[i], o.plot_max[i]);
}

Findings NewFindings(const Spec& s) {
  Findings f;
  f.spec = s;
  f.plot_max.assign(2 * kPlotSide + 1, 0.0);
  f.inputs = 0;
  return f;
}

namespace {

// Judges results y at inputs x of one type; verdict(x, y, dy, form) judges one result against one form.
template <typename T, typename VerdictFn>
void JudgeWith(const Spec& s, std::span<const T> x, std::span<const T> y, std::span<const T> dy, uint64_t index0,
               Findings& f, VerdictFn verdict) {
  const TypeInfo& info = Info(s.type);
  static const std::pair<double, double> kNear[3] = {NearRootInterval(Approximation::none),
                                                     NearRootInterval(Approximation::tanh),
                                                     NearRootInterval(Approximation::sigmoid)};
  const auto [near_lo, near_hi] = kNear[static_cast<int>(s.form)];
  const double min_normal = std::ldexp(1.0, info.min_exponent - 1);
  const bool same_form = s.form == Approximation::none;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xi = x[i], yi = y[i], g = dy.empty() ? 1.0 : static_cast<double>(dy[i]);
    const uint64_t index = index0 + i;
    const Verdict v = verdict(x[i], y[i], g, s.form);
    const bool near = xi > near_lo && xi < near_hi;
    JudgeOne(info, xi, yi, v, near, index, f.own, &f.plot_max);
    if (!same_form) {  // form none: the exact judgement is the own one, copied below
      JudgeOne(info, xi, yi, verdict(x[i], y[i], g, Approximation::none), near, index, f.exact, nullptr);
    }
    const double r = v.r, expected = v.expected;
    int special = -1;
    if (xi == 0) special = std::signbit(xi) ? 1 : 0;
    else if (std::isinf(xi)) special = xi > 0 ? 2 : 3;
    else if (std::isnan(xi)) special = 4;
    if (special >= 0 && !f.specials[special].seen) f.specials[special] = {xi, yi, expected, true};
    if (std::isfinite(xi) && xi < 0) {
      if (yi != 0 && !std::isnan(yi)) f.cutoff = MinNan(f.cutoff, xi);
      if (expected != 0) f.cutoff_expected = MinNan(f.cutoff_expected, xi);
    }
    // Flushed: 0 for a result of at least the smallest subnormal (a 0 for r below it is a rounding, at most 1 ULP).
    const double min_subnormal = std::ldexp(1.0, info.min_exponent - info.precision);
    if (std::fabs(r) >= min_subnormal && std::fabs(expected) < min_normal) {
      ++f.subnormal_expected;
      if (yi == 0) ++f.subnormal_flushed;
    }
    if (xi != 0 && std::fabs(xi) < min_normal && std::fabs(r) >= min_subnormal) {
      ++f.subnormal_inputs;
      if (yi == 0) ++f.subnormal_inputs_zeroed;
    }
  }
  f.inputs += x.size();
  if (same_form) f.exact = f.own;
}

}  // namespace

void Judge(const Spec& s, std::span<const float> x, std::span<const float> y, std::span<const float> dy,
           uint64_t index0, Findings& f) {
  const TypeInfo& info = Info(s.type);
  JudgeWith(s, x, y, dy, index0, f, [&](float xi, float yi, double g, Approximation form) {
    return FloatVerdict(s, info, xi, yi, g, form);
  });
}

void Judge(const Spec& s, std::span<const double> x, std::span<const double> y, std::span<const double> dy,
           uint64_t index0, Findings& f) {
#if defined(GELU_CHECK_HAVE_MPFR)
  JudgeWith(s, x, y, dy, index0, f,
            [&](double xi, double yi, double g, Approximation form) { return F64Verdict(s, xi, yi, g, form); });
#else
  (void)s, (void)x, (void)y, (void)dy, (void)index0, (void)f;
  throw std::runtime_error(kNoFloat64);
#endif
}

void JudgeAll(const Spec& s, std::span<const double> x, std::span<const double> y, std::span<const double> dy,
              Findings& f) {
  constexpr size_t kPart = size_t{1} << 12;
  const size_t parts = (x.size() + kPart - 1) / kPart;
  std::vector<Findings> found(parts, NewFindings(s));
  std::atomic<size_t> next{0};
  {
    std::vector<std::jthread> pool;
    const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(parts)));
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (size_t p; (p = next++) < parts;) {
          const size_t b = p * kPart, n = std::min(kPart, x.size() - b);
          Judge(s, x.subspan(b, n), y.subspan(b, n), dy.empty() ? dy : dy.subspan(b, n), b, found[p]);
        }
      });
    }
  }
  for (const Findings& part : found) f.Merge(part);
}

std::pair<Profile, bool> ParseProfile(const std::string& name) {
  const bool exact = name.rfind("exact:", 0) == 0;
  const std::string base = exact ? name.substr(6) : name;
  for (int p = 0; p < kNumProfiles; ++p) {
    if (base == kProfileNames[p]) return {static_cast<Profile>(p), exact};
  }
  throw std::invalid_argument("unknown profile '" + name + "': the profiles are " + ProfileChoices() +
                              ", each also as exact:NAME (judged against the exact GELU)");
}
std::string ProfileChoices() {
  std::string s;
  for (int p = 0; p < kNumProfiles; ++p) s += (p ? ", " : "") + std::string(kProfileNames[p]);
  return s;
}
bool Meets(const Findings& f, const std::string& profile) {
  const auto [p, exact] = ParseProfile(profile);
  return (exact ? f.exact : f.own).Meets(p);
}

// ---- Running a library function ----

LibraryFunction::LibraryFunction(const std::string& p, const std::string& s) : path(p), symbol(s) {
  void* handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw std::runtime_error(fmt::format("cannot load '{}': {}", p, dlerror()));
  dlerror();
  address_ = dlsym(handle, s.c_str());
  if (address_ == nullptr) throw std::runtime_error(fmt::format("no symbol '{}' in '{}'", s, p));
}

namespace {

// A child process that calls the function on a shared buffer: x (or dy then x) in, y out.
struct Child {
  pid_t pid = -1;
  int command = -1, done = -1;  // parent's ends: write n, read one byte back
  void* buffer = nullptr;
  size_t bytes = 0;
};

constexpr uint64_t kChunk = uint64_t{1} << 16;

size_t ElementSize(Type t) { return t == Type::f64 ? 8 : t == Type::f32 ? 4 : 2; }

[[noreturn]] void ChildLoop(const Spec& s, void* fn, void* buffer, int command, int done) {
  const size_t es = ElementSize(s.type);
  char* base = static_cast<char*>(buffer);
  for (;;) {
    uint64_t n = 0;
    if (read(command, &n, sizeof n) != sizeof n) _exit(0);
    void* dy = base;
    void* x = base + kChunk * es;
    void* y = base + 2 * kChunk * es;
    if (s.type == Type::f64) {
      if (s.backward) reinterpret_cast<void (*)(const double*, const double*, double*, size_t)>(fn)(
          static_cast<double*>(dy), static_cast<double*>(x), static_cast<double*>(y), n);
      else reinterpret_cast<void (*)(const double*, double*, size_t)>(fn)(static_cast<double*>(x), static_cast<double*>(y), n);
    } else if (s.type == Type::f32) {
      if (s.backward) reinterpret_cast<void (*)(const float*, const float*, float*, size_t)>(fn)(
          static_cast<float*>(dy), static_cast<float*>(x), static_cast<float*>(y), n);
      else reinterpret_cast<void (*)(const float*, float*, size_t)>(fn)(static_cast<float*>(x), static_cast<float*>(y), n);
    } else {
      if (s.backward) reinterpret_cast<void (*)(const uint16_t*, const uint16_t*, uint16_t*, size_t)>(fn)(
          static_cast<uint16_t*>(dy), static_cast<uint16_t*>(x), static_cast<uint16_t*>(y), n);
      else reinterpret_cast<void (*)(const uint16_t*, uint16_t*, size_t)>(fn)(static_cast<uint16_t*>(x),
                                                                             static_cast<uint16_t*>(y), n);
    }
    const char ok = 1;
    if (write(done, &ok, 1) != 1) _exit(0);
  }
}

// `others`: the children already started, whose pipe ends the new child must not hold (a child holding another's
// command pipe open would keep that one from seeing its end).
Child StartChild(const Spec& s, void* fn, const std::vector<Child>& others = {}) {
  Child c;
  c.bytes = 3 * kChunk * ElementSize(s.type);
  c.buffer = mmap(nullptr, c.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (c.buffer == MAP_FAILED) throw std::runtime_error(fmt::format("mmap: {}", std::strerror(errno)));
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);
  c.pid = fork();
  if (c.pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (c.pid == 0) {
    close(to_child[1]);
    close(from_child[0]);
    for (const Child& o : others) {
      close(o.command);
      close(o.done);
    }
    // The checker's threads are the parallelism: a function that starts OpenMP teams with the default team size
    // runs them on one thread here (teams of an explicit size are kept; their spin-waiting between calls is
    // stopped by OMP_WAIT_POLICY=passive, which tools/main.cc sets for `check`).
    omp_set_num_threads(1);
    ChildLoop(s, fn, c.buffer, to_child[0], from_child[1]);
  }
  close(to_child[0]);
  close(from_child[1]);
  c.command = to_child[1];
  c.done = from_child[0];
  return c;
}

// Ends a child: closes its command pipe (it exits) or kills it; returns how it ended, in words ("" if normally).
std::string StopChild(Child& c, bool kill_it) {
  if (kill_it) kill(c.pid, SIGKILL);
  close(c.command);
  close(c.done);
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  munmap(c.buffer, c.bytes);
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "";
}

enum class CallResult { ok, died, hung };

// Writes the inputs [begin, end) of the run into the child's buffer, calls, waits.
// The inputs of one chunk: float32 and 16-bit values as floats, float64 as doubles.
struct ChunkValues {
  std::vector<float> x, y;
  std::vector<double> x64, y64;
};

CallResult Call(const Spec& s, Child& c, const Inputs& in, uint64_t begin, uint64_t end, ChunkValues& v,
                double timeout_s) {
  const uint64_t n = end - begin;
  std::vector<float>& x = v.x;
  char* base = static_cast<char*>(c.buffer);
  if (s.type == Type::f64) {
    v.x64.assign(in.values64.begin() + static_cast<ptrdiff_t>(begin), in.values64.begin() + static_cast<ptrdiff_t>(end));
    std::fill_n(reinterpret_cast<double*>(base), n, 1.0);
    std::memcpy(base + kChunk * 8, v.x64.data(), n * 8);
  } else {
    x.resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      x[i] = in.bit_range ? std::bit_cast<float>(static_cast<uint32_t>(in.bit_range->first + begin + i))
                          : in.values[begin + i];
    }
  }
  if (s.type == Type::f32) {
    std::fill_n(reinterpret_cast<float*>(base), n, 1.0f);
    std::memcpy(base + kChunk * 4, x.data(), n * 4);
  } else if (s.type != Type::f64) {
    auto* dy = reinterpret_cast<uint16_t*>(base);
    auto* xb = reinterpret_cast<uint16_t*>(base + kChunk * 2);
    const uint16_t one = ToBits(s.type, 1.0f);
    for (uint64_t i = 0; i < n; ++i) {
      dy[i] = one;
      xb[i] = in.bits16.empty() ? ToBits(s.type, x[i]) : in.bits16[begin + i];
    }
  }
  if (write(c.command, &n, sizeof n) != sizeof n) return CallResult::died;
  pollfd p{c.done, POLLIN, 0};
  const int ms = static_cast<int>(std::min(timeout_s * 1000, 2e9));
  int rc;
  while ((rc = poll(&p, 1, ms)) < 0 && errno == EINTR) {
  }
  if (rc == 0) return CallResult::hung;
  char ok = 0;
  return read(c.done, &ok, 1) == 1 ? CallResult::ok : CallResult::died;
}

void ReadResults(const Spec& s, const Child& c, uint64_t n, ChunkValues& v) {
  std::vector<float>& y = v.y;
  const char* out = static_cast<const char*>(c.buffer) + 2 * kChunk * ElementSize(s.type);
  if (s.type == Type::f64) {
    v.y64.resize(n);
    std::memcpy(v.y64.data(), out, n * 8);
    return;
  }
  y.resize(n);
  if (s.type == Type::f32) {
    std::memcpy(y.data(), out, n * 4);
  } else {
    const auto* yb = reinterpret_cast<const uint16_t*>(out);
    for (uint64_t i = 0; i < n; ++i) y[i] = FromBits(s.type, yb[i]);
  }
}

std::string Bar(double frac, int width) {
  const int full = static_cast<int>(frac * width);
  return std::string(static_cast<size_t>(full), '#') + std::string(static_cast<size_t>(width - full), '.');
}

}  // namespace

Findings RunLibrary(const Spec& s, const LibraryFunction& fn, const Inputs& in, const RunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t total = in.size();
  const uint64_t chunks = (total + kChunk - 1) / kChunk;
  const int threads = static_cast<int>(std::min<uint64_t>(
      chunks, o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency())));
  // Every child is forked before any worker thread starts: a fork while other threads run could copy a lock
  // (malloc's, stdio's) held by one of them, and the child's first call into the library would hang on it.
  std::vector<Child> children;
  for (int t = 0; t < threads; ++t) children.push_back(StartChild(s, fn.address(), children));
  std::vector<Findings> found(static_cast<size_t>(threads), NewFindings(s));
  std::atomic<uint64_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  std::mutex failure_mutex;
  struct Failure {
    uint64_t begin = 0, end = 0;
    CallResult result = CallResult::ok;
    int thread = -1;
  } failure;
  {
    std::vector<std::jthread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        ChunkValues v;
        for (uint64_t c; !stop && (c = next++) < chunks;) {
          const uint64_t begin = c * kChunk, end = std::min(total, begin + kChunk);
          const CallResult r = Call(s, children[static_cast<size_t>(t)], in, begin, end, v, o.timeout_s);
          if (r != CallResult::ok) {
            std::lock_guard lock(failure_mutex);
            if (failure.thread < 0 || begin < failure.begin) failure = {begin, end, r, t};
            stop = true;
            break;
          }
          ReadResults(s, children[static_cast<size_t>(t)], end - begin, v);
          if (s.type == Type::f64) Judge(s, v.x64, v.y64, {}, begin, found[static_cast<size_t>(t)]);
          else Judge(s, v.x, v.y, {}, begin, found[static_cast<size_t>(t)]);
          done += end - begin;
        }
      });
    }
    if (o.progress) {
      const bool tty = cli::StderrIsTerminal();
      int last_step = -1;
      while (done.load() < total && !stop) {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double frac = static_cast<double>(done.load()) / static_cast<double>(total);
        const std::string line = fmt::format("check [{}] {:5.1f}%  {}/{}  elapsed {}  ETA {}", Bar(frac, 30), 100 * frac,
                                             cli::HumanCount(done.load()), cli::HumanCount(total), cli::Duration(el),
                                             frac > 0 ? cli::Duration(el * (1 - frac) / frac) : "?");
        if (tty) {
          std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
        } else if (static_cast<int>(frac * 20) > last_step) {  // logs: one line per 5%
          last_step = static_cast<int>(frac * 20);
          std::fprintf(stderr, "%s\n", line.c_str());
        }
      }
      if (tty) std::fprintf(stderr, "\r\x1b[K");
    }
  }  // workers join here
  std::string how;
  for (int t = 0; t < threads; ++t) {
    const std::string ended = StopChild(children[static_cast<size_t>(t)], t == failure.thread);
    if (t == failure.thread) how = ended;
  }
  const auto input_at = [&](uint64_t i) -> double {
    if (s.type == Type::f64) return in.values64[i];
    return in.bit_range ? std::bit_cast<float>(static_cast<uint32_t>(in.bit_range->first + i)) : in.values[i];
  };
  if (failure.thread >= 0) {
    const std::string chunk = fmt::format("the chunk of inputs {}..{} (x = {} .. {})", failure.begin, failure.end - 1,
                                          Dec(input_at(failure.begin), s.type), Dec(input_at(failure.end - 1), s.type));
    if (failure.result == CallResult::hung) {
      throw std::runtime_error(fmt::format("'{}' did not return within {} s on {}", fn.symbol, o.timeout_s, chunk));
    }
    // Narrow the crash down to one input: halve the chunk, each half in a fresh child (one thread now, so forking
    // is safe), keeping the half that crashes.
    uint64_t lo = failure.begin, hi = failure.end;
    ChunkValues v;
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      Child c = StartChild(s, fn.address());
      const CallResult r = Call(s, c, in, lo, mid, v, o.timeout_s);
      StopChild(c, r != CallResult::ok);
      (r == CallResult::ok ? lo : hi) = mid;
    }
    throw std::runtime_error(fmt::format("'{}' crashed ({}) at x = {} ({}), input {}, in {}", fn.symbol,
                                         how.empty() ? "its process ended" : how, Hex(input_at(lo)),
                                         Dec(input_at(lo), s.type), lo, chunk));
  }
  Findings f = NewFindings(s);
  for (const Findings& part : found) f.Merge(part);
  f.coverage = in.description;
  f.true_cutoff = TrueTailCutoff(s);
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return f;
}

}  // namespace gelu::check
