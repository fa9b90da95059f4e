// SPDX-License-Identifier: Apache-2.0
// Cost per element by input class, one thread: how much more an array of one kind of input (deep negative tail,
// huge, tiny, subnormal, inf, NaN, random bits, special grad_out) costs than N(0,1), for the float32 functions
// (every form) and the bf16/fp16 ones, on the best Highway target and on AVX2 forced. Lanes off the float core's
// main path take slower ones (GeluF32BlockTails, FallbackLanesF32 in a profile), which N(0,1) and U[-10,10]
// (gelu_benchmark) hardly reach; an array full of such lanes runs at those paths' rate.
//
// Each class is 64 Ki elements drawn over its whole range (fixed-seed mt19937_64; uniform in value, log-uniform in
// magnitude where a range spans many binades). The 16-bit inputs are the float32 ones rounded to nearest even (so
// fp16 saturates to inf from 65520 up and flushes tiny values to 0: the program prints how many), except the classes
// defined by bit patterns (subnormals, inf, NaN, all patterns), which take the 16-bit type's own patterns.
// Timing: R repetitions (argument 1, default 15) after one warm-up, each calling every class x function once, in
// turn, so that drift on a shared machine hits every cell alike; each timed call (std::chrono::steady_clock) right
// after an untimed one on the same arrays, so that they are in cache; the median per cell.
// Each cell prints its median over the same function's median on N(0,1); the first row is that in ns per element.
// docs/BENCHMARKS.md ("Cost by input class") has the output.
//   build/bench/cost_by_class [R]
//   GELU_BENCH_BASELINE=<earlier build>/libgelu.so build/bench/cost_by_class [R]
// With GELU_BENCH_BASELINE, every cell is timed for that library too (bench/baseline_library.h), right beside
// this build's, and a second table per target gives the baseline's time over this build's: a same-process A/B on
// every class, N(0,1) and U[-10,10] included (an A/A: the baseline a copy of this build's libgelu.so).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/baseline_library.h"
#include "gelu/gelu.h"
#include "hwy/targets.h"
#include "src/common/functions.h"

namespace {

constexpr size_t kN = size_t{1} << 16;  // 64 Ki: every array of a call fits in L2
using Rng = std::mt19937_64;

// float32 to bf16 / fp16 bits, rounded to nearest even; NaN stays a quiet NaN with its sign and top payload bits.
uint32_t ToBf16(float v) {
  const uint32_t b = std::bit_cast<uint32_t>(v);
  if ((b & 0x7fffffffu) > 0x7f800000u) return (b >> 16) | 0x40u;
  return (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;  // a carry out of the mantissa bumps the exponent, up to inf
}
uint32_t ToF16(float v) {
  const uint32_t b = std::bit_cast<uint32_t>(v), sign = (b >> 16) & 0x8000u, mag = b & 0x7fffffffu;
  if (mag > 0x7f800000u) return sign | 0x7e00u | ((mag >> 13) & 0x3ffu);
  if (mag >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 (65504 + half its ULP) and inf: inf
  // Below 2^-14: multiples of 2^-24 (subnormals, 0, or 0x400 = 2^-14); the scaling is exact, nearbyint rounds even.
  if (mag < 0x38800000u) return sign | static_cast<uint32_t>(std::nearbyint(std::fabs(v) * 0x1p24f));
  const uint32_t r = mag - (112u << 23);  // rebias the exponent from 127 to 15
  return sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13);
}
uint32_t ToF32(float v) { return std::bit_cast<uint32_t>(v); }

// A storage type's bit fields, so that the classes defined by bit patterns draw each type's own.
struct Format {
  uint32_t sign, exponent, quiet, mantissa, all;
  uint32_t (*round)(float);
};
constexpr Format kF32{0x80000000u, 0x7f800000u, 0x400000u, 0x7fffffu, 0xffffffffu, ToF32};
constexpr Format kHalfFormats[2] = {{0x8000u, 0x7f80u, 0x40u, 0x7fu, 0xffffu, ToBf16},    // bf16
                                    {0x8000u, 0x7c00u, 0x200u, 0x3ffu, 0xffffu, ToF16}};  // fp16

// Uniform in [lo, hi) (hi itself only for kMax, the largest float); the bound a rounding to float would reach is
// stepped back from, so that a class's label holds for every element.
constexpr float kMax = 3.40282347e38f;
float Below(double v, double lo, double hi) {
  const float f = static_cast<float>(std::clamp(v, lo, hi));
  return f < hi || hi == kMax ? f : std::nextafter(static_cast<float>(hi), 0.0f);
}
float Uniform(Rng& r, double lo, double hi) { return Below(std::uniform_real_distribution<double>(lo, hi)(r), lo, hi); }
// Log-uniform in [lo, hi): every binade as likely as any other.
float LogUniform(Rng& r, double lo, double hi) {
  return Below(std::exp2(std::uniform_real_distribution<double>(std::log2(lo), std::log2(hi))(r)), lo, hi);
}
float Normal(Rng& r) { return std::normal_distribution<float>(0.0f, 1.0f)(r); }
float Sign(Rng& r) { return (r() & 1) ? -1.0f : 1.0f; }
uint32_t SignBit(Rng& r, const Format& f) { return (r() & 1) ? f.sign : 0; }
uint32_t Subnormal(Rng& r, const Format& f) { return 1 + static_cast<uint32_t>(r() % f.mantissa); }

using Draw = uint32_t (*)(Rng&, const Format&);  // one input's bits in format f
struct InputClass {
  const char* name;
  bool by_bits;                  // drawn as bit patterns of each format (not a float32 value rounded)
  Draw x;
  Draw grad_out = nullptr;       // nullptr: 1; else the class is for the backward only
};
const InputClass kClasses[] = {
    {"N(0,1)", false, [](Rng& r, const Format& f) { return f.round(Normal(r)); }},  // must stay first: the base
    {"U[-10,10]", false, [](Rng& r, const Format& f) { return f.round(Uniform(r, -10, 10)); }},
    // Zeros among normal data (ReLU outputs, dropout, padding): every block then may hold tiny lanes.
    {"N(0,1), a quarter +0", false, [](Rng& r, const Format& f) { return r() % 4 == 0 ? 0u : f.round(Normal(r)); }},
    {"-|x| in [4,6)", false, [](Rng& r, const Format& f) { return f.round(-Uniform(r, 4, 6)); }},
    {"-|x| in [6,9)", false, [](Rng& r, const Format& f) { return f.round(-Uniform(r, 6, 9)); }},
    {"-|x| in [9,13)", false, [](Rng& r, const Format& f) { return f.round(-Uniform(r, 9, 13)); }},
    {"-|x| in [13,16)", false, [](Rng& r, const Format& f) { return f.round(-Uniform(r, 13, 16)); }},
    {"-|x| in [16,64)", false, [](Rng& r, const Format& f) { return f.round(-Uniform(r, 16, 64)); }},
    {"-|x| in [64,max]", false, [](Rng& r, const Format& f) { return f.round(-LogUniform(r, 64, kMax)); }},
    {"x in [4,16)", false, [](Rng& r, const Format& f) { return f.round(Uniform(r, 4, 16)); }},
    {"x in [16,max]", false, [](Rng& r, const Format& f) { return f.round(LogUniform(r, 16, kMax)); }},
    {"|x| in [2^-40,2^-10)", false,
     [](Rng& r, const Format& f) { return f.round(Sign(r) * LogUniform(r, 0x1p-40, 0x1p-10)); }},
    {"tiny normal |x|", false,  // [2^-126, 2^-40)
     [](Rng& r, const Format& f) { return f.round(Sign(r) * LogUniform(r, 0x1p-126, 0x1p-40)); }},
    {"subnormal x>0", true, [](Rng& r, const Format& f) { return Subnormal(r, f); }},
    {"subnormal x<0", true, [](Rng& r, const Format& f) { return f.sign | Subnormal(r, f); }},
    {"+inf", true, [](Rng&, const Format& f) { return f.exponent; }},
    {"-inf", true, [](Rng&, const Format& f) { return f.sign | f.exponent; }},
    {"NaN", true,  // quiet, random sign and payload
     [](Rng& r, const Format& f) {
       return SignBit(r, f) | f.exponent | f.quiet | (static_cast<uint32_t>(r()) & f.mantissa);
     }},
    {"all bit patterns", true, [](Rng& r, const Format& f) { return static_cast<uint32_t>(r()) & f.all; }},
    {"grad_out subnormal", false, [](Rng& r, const Format& f) { return f.round(Normal(r)); },
     [](Rng& r, const Format& f) { return SignBit(r, f) | Subnormal(r, f); }},
    {"grad_out zero", false, [](Rng& r, const Format& f) { return f.round(Normal(r)); },
     [](Rng& r, const Format& f) { return SignBit(r, f); }},
};
constexpr size_t kNumClasses = std::size(kClasses);

enum class Type { kF32, kBf16, kF16 };
struct Function {
  std::string name;  // a column's heading, 8 characters at most
  Type type;
  bool backward;
  gelu_approximate form;
};
// The float32 columns: every form of the function table, forward then backward ("fwd none", ..., "bwd sigm").
std::vector<Function> F32Functions() {
  std::vector<Function> fs;
  for (const bool backward : {false, true}) {
    for (const gelu_approximate form : gelu::common::kForms) {
      fs.push_back({std::string(backward ? "bwd " : "fwd ") + std::string(gelu::common::kFormNames[form]).substr(0, 4),
                    Type::kF32, backward, form});
    }
  }
  return fs;
}
// The 16-bit columns (the exact form only, to keep the table narrow): add entries here for more.
const Function kHalfFunctions[] = {{"bf16 fwd", Type::kBf16, false, GELU_APPROXIMATE_NONE},
                                   {"bf16 bwd", Type::kBf16, true, GELU_APPROXIMATE_NONE},
                                   {"fp16 fwd", Type::kF16, false, GELU_APPROXIMATE_NONE},
                                   {"fp16 bwd", Type::kF16, true, GELU_APPROXIMATE_NONE}};

// One class's inputs in every type; grad_out arrays only for the classes that set it (the rest share ones).
struct Inputs {
  std::vector<float> x32, g32;
  std::vector<uint16_t> x16[2], g16[2];  // [0] bf16, [1] fp16
};
template <class T>
std::vector<T> Fill(Draw draw, const Format& f, size_t index) {
  Rng rng(0x9e3779b97f4a7c15u + index);  // the same seed for every format: 16-bit values are the float32 ones rounded
  std::vector<T> v(kN);
  for (T& e : v) {
    const uint32_t bits = draw(rng, f);
    if constexpr (sizeof(T) == 4) e = std::bit_cast<float>(bits); else e = static_cast<uint16_t>(bits);
  }
  return v;
}

struct Outputs {
  std::vector<float> y32 = std::vector<float>(kN), ones32 = std::vector<float>(kN, 1.0f);
  std::vector<uint16_t> y16 = std::vector<uint16_t>(kN), ones16[2] = {std::vector<uint16_t>(kN, 0x3f80u),
                                                                      std::vector<uint16_t>(kN, 0x3c00u)};
};

using gelu::bench::Library;

gelu_status Call(const Library& lib, const Function& f, const Inputs& in, Outputs& out) {
  if (f.type == Type::kF32) {
    const float* g = in.g32.empty() ? out.ones32.data() : in.g32.data();
    return f.backward ? lib.backward_f32(g, in.x32.data(), out.y32.data(), kN, f.form)
                      : lib.forward_f32(in.x32.data(), out.y32.data(), kN, f.form);
  }
  const int h = f.type == Type::kBf16 ? 0 : 1;
  const uint16_t* x = in.x16[h].data();
  const uint16_t* g = in.g16[h].empty() ? out.ones16[h].data() : in.g16[h].data();
  if (h == 0) return f.backward ? lib.backward_bf16(g, x, out.y16.data(), kN, f.form)
                                : lib.forward_bf16(x, out.y16.data(), kN, f.form);
  return f.backward ? lib.backward_f16(g, x, out.y16.data(), kN, f.form)
                    : lib.forward_f16(x, out.y16.data(), kN, f.form);
}

// Any status but GELU_OK ends the program before a table is printed: no partial figures.
void CheckedCall(const Library& lib, const Function& f, size_t c, const Inputs& in, Outputs& out) {
  if (const gelu_status s = Call(lib, f, in, out); s != GELU_OK) {
    std::fprintf(stderr, "cost_by_class: %s on %s returned %s\n", f.name.c_str(), kClasses[c].name,
                 gelu_status_string(s));
    std::exit(1);
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Every class x function, interleaved, on the dispatch target now chosen: the seconds of each timed call per cell
// (none for a forward function on a grad_out class), of this build and, with a baseline, of the baseline's, each
// cell's two right after each other (which goes first alternates with the repetition).
using Seconds = std::vector<std::vector<std::vector<double>>>;
struct Measured {
  Seconds ours, base;
};
Measured Measure(int reps, const std::vector<Function>& fs, const std::vector<Inputs>& inputs, const Library* base) {
  Outputs out;
  Measured m{Seconds(kNumClasses, std::vector<std::vector<double>>(fs.size())), {}};
  if (base != nullptr) m.base = m.ours;
  for (int rep = -1; rep < reps; ++rep) {  // rep -1: warm-up (also builds the 16-bit lookup tables)
    for (size_t c = 0; c < kNumClasses; ++c) {
      for (size_t f = 0; f < fs.size(); ++f) {
        if (kClasses[c].grad_out != nullptr && !fs[f].backward) continue;
        const auto time = [&](const Library& lib, Seconds& seconds) {
          // An untimed call first: the arrays were last touched a whole repetition (megabytes) ago, and the cell
          // should time the kernel on its class, not the reload from L3 (the same for every class).
          CheckedCall(lib, fs[f], c, inputs[c], out);
          const auto t0 = std::chrono::steady_clock::now();
          CheckedCall(lib, fs[f], c, inputs[c], out);
          const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          if (rep >= 0) seconds[c][f].push_back(t);
        };
        if (base != nullptr && rep % 2 != 0) time(*base, m.base);
        time(gelu::bench::Ours(), m.ours);
        if (base != nullptr && rep % 2 == 0) time(*base, m.base);
      }
    }
  }
  return m;
}

// A class name for a Markdown table cell: its '|' (as in |x|) escaped, which Markdown renders as '|'.
std::string Escaped(const char* name) {
  std::string s;
  for (const char* p = name; *p != '\0'; ++p) s += *p == '|' ? std::string("\\|") : std::string(1, *p);
  return s;
}

// One Markdown table: the N(0,1) row in ns per element, every other row over the same function's N(0,1) cost.
void PrintTable(const std::string& target, const std::vector<Function>& fs, const Seconds& s) {
  std::printf("\n%s: first row the N(0,1) cost in ns per element; the rest that function's cost on the class over "
              "its cost on N(0,1)\n\n| %-24s |", target.c_str(), "class");
  for (const Function& f : fs) std::printf(" %8s |", f.name.c_str());
  std::printf("\n|--------------------------|");
  for (size_t f = 0; f < fs.size(); ++f) std::printf("---------:|");
  std::printf("\n| %-24s |", "N(0,1) ns/element");
  for (size_t f = 0; f < fs.size(); ++f) std::printf(" %8.3f |", Median(s[0][f]) / kN * 1e9);
  for (size_t c = 1; c < kNumClasses; ++c) {
    std::printf("\n| %-24s |", Escaped(kClasses[c].name).c_str());
    for (size_t f = 0; f < fs.size(); ++f) {
      if (s[c][f].empty()) std::printf(" %8s |", "-");
      else std::printf(" %8.2f |", Median(s[c][f]) / Median(s[0][f]));
    }
  }
  std::printf("\n");
}

// The A/B table: per cell the baseline's median time over this build's (> 1: this build is faster).
void PrintAgainstBaseline(const std::string& target, const std::vector<Function>& fs, const Measured& m) {
  std::printf("\n%s: the baseline's time over this build's, same class and function (> 1: this build is faster)"
              "\n\n| %-24s |", target.c_str(), "class");
  for (const Function& f : fs) std::printf(" %8s |", f.name.c_str());
  std::printf("\n|--------------------------|");
  for (size_t f = 0; f < fs.size(); ++f) std::printf("---------:|");
  for (size_t c = 0; c < kNumClasses; ++c) {
    std::printf("\n| %-24s |", Escaped(kClasses[c].name).c_str());
    for (size_t f = 0; f < fs.size(); ++f) {
      if (m.ours[c][f].empty()) std::printf(" %8s |", "-");
      else std::printf(" %8.3f |", Median(m.base[c][f]) / Median(m.ours[c][f]));
    }
  }
  std::printf("\n");
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}
std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  return in >> a >> b >> c ? a + " " + b + " " + c : "unknown";
}

// Where rounding to a 16-bit type changed a class's values' kind: finite inputs that became inf, nonzero ones 0.
void PrintRoundingNotes(const std::vector<Inputs>& inputs) {
  std::printf("\n16-bit inputs: the float32 ones rounded to nearest even (the classes of bit patterns, subnormal to "
              "all bit patterns, take each type's own); where rounding changed their kind:\n\n");
  for (size_t c = 0; c < kNumClasses; ++c) {
    if (kClasses[c].by_bits) continue;
    for (int h = 0; h < 2; ++h) {
      const uint32_t exponent = kHalfFormats[h].exponent;
      size_t to_inf = 0, to_zero = 0;
      for (size_t i = 0; i < kN; ++i) {
        const uint32_t mag = inputs[c].x16[h][i] & 0x7fffu;
        to_inf += std::isfinite(inputs[c].x32[i]) && mag == exponent;
        to_zero += inputs[c].x32[i] != 0.0f && mag == 0;
      }
      if (to_inf + to_zero == 0) continue;
      std::printf("- %s %s:", h == 0 ? "bf16" : "fp16", kClasses[c].name);
      if (to_inf) std::printf(" %zu (%.2f%%) became +-inf", to_inf, 100.0 * to_inf / kN);
      if (to_zero) std::printf(" %zu (%.2f%%) became +-0", to_zero, 100.0 * to_zero / kN);
      std::printf("\n");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  long parsed = 15;
  char* end = nullptr;
  if (argc == 2) parsed = std::strtol(argv[1], &end, 10);
  if (argc > 2 || parsed < 1 || parsed > 1000000 || (end != nullptr && (end == argv[1] || *end != '\0'))) {
    std::fprintf(stderr, "usage: cost_by_class [R]  (R: repetitions timed per cell, 1 to 1000000; default 15)\n");
    return 2;
  }
  const int reps = static_cast<int>(parsed);
  const std::string load = LoadAverage();  // before our own work adds to it
  const Library* base = gelu::bench::Baseline("cost_by_class");
  gelu_set_num_threads(1);
  if (base != nullptr) base->set_num_threads(1);
  std::vector<Inputs> inputs(kNumClasses);
  for (size_t c = 0; c < kNumClasses; ++c) {
    const InputClass& k = kClasses[c];
    inputs[c].x32 = Fill<float>(k.x, kF32, c);
    for (int h = 0; h < 2; ++h) inputs[c].x16[h] = Fill<uint16_t>(k.x, kHalfFormats[h], c);
    if (k.grad_out == nullptr) continue;
    inputs[c].g32 = Fill<float>(k.grad_out, kF32, c + 1000);  // another seed: grad_out independent of x
    for (int h = 0; h < 2; ++h) inputs[c].g16[h] = Fill<uint16_t>(k.grad_out, kHalfFormats[h], c + 1000);
  }
  std::vector<Function> fs = F32Functions();
  fs.insert(fs.end(), std::begin(kHalfFunctions), std::end(kHalfFunctions));

  // The best target is what the library dispatches to unforced; AVX2 is forced (when the CPU has it and it is not
  // already the best) through Highway's process-wide chosen target, which the library's dispatch reads. Both are
  // measured before anything is printed, so that a failure leaves no partial table.
  const std::string best = gelu_simd_target();
  const bool has_avx2 = (hwy::SupportedTargets() & HWY_AVX2) != 0, run_avx2 = has_avx2 && best != "AVX2";
  const Measured best_seconds = Measure(reps, fs, inputs, base);
  Measured avx2_seconds;
  if (run_avx2) {
    hwy::SetSupportedTargetsForTest(HWY_AVX2);
    if (std::strcmp(gelu_simd_target(), "AVX2") != 0) {
      std::fprintf(stderr, "cost_by_class: AVX2 forced, but the library reports %s\n", gelu_simd_target());
      return 1;
    }
    avx2_seconds = Measure(reps, fs, inputs, base);
    hwy::SetSupportedTargetsForTest(0);
  }
  std::printf("cost_by_class: targets %s (best)%s; %zu elements per array, 1 thread, median of %d interleaved "
              "repetitions after 1 warm-up; CPU %s; load average %s at start\n",
              best.c_str(),
              run_avx2 ? ", AVX2 (forced)" : (has_avx2 ? "" : "; AVX2 skipped: not supported by this CPU"),
              kN, reps, CpuModel().c_str(), load.c_str());
  if (base != nullptr) std::printf("baseline (GELU_BENCH_BASELINE): %s\n", std::getenv("GELU_BENCH_BASELINE"));
  PrintTable(best + " (best supported)", fs, best_seconds.ours);
  if (run_avx2) PrintTable("AVX2 (forced)", fs, avx2_seconds.ours);
  if (base != nullptr) {
    PrintAgainstBaseline(best + " (best supported)", fs, best_seconds);
    if (run_avx2) PrintAgainstBaseline("AVX2 (forced)", fs, avx2_seconds);
  }
  PrintRoundingNotes(inputs);
  return 0;
}
