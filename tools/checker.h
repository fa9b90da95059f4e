// SPDX-License-Identifier: Apache-2.0
// The checker behind `gelu check` (tools/check.cc) and Python's gelu.check: judges anyone's GELU (one form,
// forward or backward, float32, bfloat16 or float16) against the double-precision reference
// (src/reference/reference.h), float64 against MPFR at 120 bits (src/reference/mpfr_oracle.h, the oracle of the library's
// own float64 claim, tests/f64/gelu_f64_test.cc; builds without MPFR refuse float64), both as the form's own formula and as the true exact GELU, and reports max ULP
// and where, an error histogram per region, the tail cutoff, special values, flush-to-zero, misrounded results
// and which tolerance profiles hold. The implementation under test is a C function in a shared library (run in
// child processes, so a crash or a hang is reported with its input) or results recorded by an engine (pairs of
// arrays). docs/CHECK.md.
#ifndef GELU_TOOLS_CHECKER_H_
#define GELU_TOOLS_CHECKER_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gelu/gelu.hpp"
#include "src/common/functions.h"  // common::Type

namespace gelu::check {

using Type = common::Type;          // gelu.h's gelu_dtype (src/common/functions.h)
Type ParseType(const std::string&);  // throws std::invalid_argument with the choices
// Whether this build judges float64 (it needs MPFR, found at configure time); ParseType refuses float64 otherwise.
bool HasFloat64();
struct TypeInfo {
  int precision;     // bits, implicit one included: 24, 8, 11, 53
  int min_exponent;  // frexp exponent of the smallest normal number: -125, -125, -13, -1021
  double eps;        // 2^(1 - precision)
  double torch_rtol, torch_atol;  // torch.testing.assert_close's defaults for the dtype
};
const TypeInfo& Info(Type t);
// The value of a 16-bit pattern (exact in float32) and a double rounded once to the type (float32: a cast).
float FromBits(Type t, uint16_t bits);
float RoundTo(Type t, double v);
bool IsRepresentable(Type t, float v);  // v is a value of the type (NaN: yes)

struct Spec {
  Approximation form = Approximation::none;
  bool backward = false;
  Type type = common::kF32;
};
std::string Describe(const Spec& s);  // "forward tanh float32"

// ---- Inputs ----
// All 65,536 values of a 16-bit type, in bit-pattern order (as floats, exact).
std::vector<float> AllHalfInputs(Type t);
// The stratified sample: every binade of both signs (64 values each, ends included), the subnormals, 2^16 points on
// [-10, 10], each threshold (the true tail cutoff, the root of f', the near-root window's ends, where f(x) = x
// starts, +-FLT_MIN, +-4) +- 64 ULP, and the specials (+-0, +-inf, NaN, +-FLT_MAX, +-smallest subnormal).
// Round values too (RoundValues). Sorted by bit pattern, no duplicates; float32 only (16-bit types take all
// their values).
std::vector<float> StratifiedInputsF32(const Spec& s);
// Values people type, which a sample of bit patterns misses: every multiple of 1/8 on [-16, 16] (integers,
// halves, quarters, eighths), the integers on [-100, 100], the tenths k/10 on [-10, 10] (rounded), +-100, +-1000.
std::vector<double> RoundValues();
// The float64 sample (docs/CHECK.md gives its makeup and size): every binade of both signs (17 values each, ends
// included; subnormals as binade 0), 2^15 points on [-10, 10], the round values, each threshold (as for float32)
// +- 16 ULP, the specials (+-0, +-inf, NaN, +-DBL_MAX, +-smallest subnormal) and 2^14 random bit
// patterns (fixed seed). Sorted by bit pattern, no duplicates.
std::vector<double> StratifiedInputsF64(const Spec& s);
// The most negative x of the type whose correctly rounded result is nonzero (bisection on the reference, which is
// monotonic there): the true tail cutoff.
double TrueTailCutoff(const Spec& s);

// ---- Judging ----
// Regions of the report; an input falls into every region it belongs to.
enum Region { kCore, kNegativeTail, kPositiveTail, kSubnormalResult, kNearRoot, kNumRegions };
inline constexpr const char* kRegionNames[kNumRegions] = {"|x| < 4", "x <= -4", "x >= 4", "subnormal result",
                                                          "near f' root"};
// Error histogram bins (in ULP of the type; absolute / 2^-precision in the near-root window of a derivative).
inline constexpr int kNumBins = 9;
inline constexpr const char* kBinNames[kNumBins] = {"0",        "(0,0.5]",    "(0.5,1]",  "(1,2]",        "(2,4]",
                                                    "(4,16]",   "(16,256]",   ">256",     "NaN/inf/sign"};
// Profiles: the tolerance a user may require (--require). Names as spelled on the command line.
enum Profile { kUlp1, kUlp4, kTorch, kAbs10Eps, kCorrectlyRounded, kNumProfiles };
inline constexpr const char* kProfileNames[kNumProfiles] = {"ulp1", "ulp4", "torch", "abs10eps",
                                                            "correctly-rounded"};
inline constexpr const char* kProfileHelp[kNumProfiles] = {
    "every result within 1 ULP (NaN, inf and the sign of zero exact)", "every result within 4 ULP",
    "torch.testing.assert_close's default rtol and atol for the dtype", "absolute error <= 10 eps on [-10, 10]",
    "every result the correctly rounded value"};

struct Place {
  double error = 0;  // in the metric above
  double x = 0, y = 0;  // values of the checked type
  double r = 0;      // the reference
  uint64_t index = UINT64_MAX;  // the input's position (ties go to the first)
};

// What one run found against one reference (the form's own formula, or the exact GELU).
struct Judgement {
  Place worst;  // max error (NaN mismatches count as +inf: they are in the last bin and fail every profile)
  std::array<Place, kNumRegions> region_worst{};
  std::array<std::array<uint64_t, kNumBins>, kNumRegions> histogram{};
  std::array<uint64_t, kNumProfiles> profile_failures{};
  std::array<Place, kNumProfiles> profile_first{};  // the first input that fails each profile
  bool Meets(Profile p) const { return profile_failures[p] == 0; }
  void Merge(const Judgement& o);
};

struct Special {
  double x = 0, y = 0, expected = 0;
  bool seen = false;
  bool ok() const;
};
inline constexpr int kNumSpecials = 5;
inline constexpr const char* kSpecialNames[kNumSpecials] = {"+0", "-0", "+inf", "-inf", "NaN"};

struct Findings {
  Spec spec;
  uint64_t inputs = 0;
  std::string coverage;  // which inputs, in words
  double seconds = 0;
  Judgement own, exact;  // against the form's formula, against the exact GELU (the same for form none)
  std::array<Special, kNumSpecials> specials{};
  // The most negative finite x with a nonzero result among the inputs seen, and where the correctly rounded
  // result is nonzero among the same inputs; NaN when none. true_cutoff: over all inputs of the type.
  double cutoff = NAN, cutoff_expected = NAN, true_cutoff = NAN;
  uint64_t subnormal_expected = 0, subnormal_flushed = 0;  // results expected subnormal (|r| >= the smallest
                                                           // subnormal), and given as 0
  uint64_t subnormal_inputs = 0, subnormal_inputs_zeroed = 0;  // subnormal x with a nonzero expected result, y = 0
  // ULP error (own formula) against x for --plot: the max over bins of x (symmetric log scale).
  std::vector<double> plot_max;
  void Merge(const Findings& o);
};

// Judges results y (and for backward the grad_out dy; empty: 1) at inputs x; index0 is x[0]'s position in the
// whole run. Thread-compatible: one Findings per thread, merged.
void Judge(const Spec& s, std::span<const float> x, std::span<const float> y, std::span<const float> dy,
           uint64_t index0, Findings& f);
// The same for float64 (against MPFR: a few microseconds per input and reference).
void Judge(const Spec& s, std::span<const double> x, std::span<const double> y, std::span<const double> dy,
           uint64_t index0, Findings& f);
// Judge over all threads (chunks judged apart and merged in order): for pairs and Python's results.
void JudgeAll(const Spec& s, std::span<const double> x, std::span<const double> y, std::span<const double> dy,
              Findings& f);
Findings NewFindings(const Spec& s);

// A profile's name ("ulp4", or "exact:ulp4" for the judgement against the exact GELU) -> (profile, exact).
// Throws std::invalid_argument naming the choices.
std::pair<Profile, bool> ParseProfile(const std::string& name);
std::string ProfileChoices();
bool Meets(const Findings& f, const std::string& profile);

enum class ReportFormat { table, json, markdown };
std::string FormatFindings(const Findings& f, ReportFormat format);
// An SVG of the ULP error against x (symmetric log x axis, log error axis).
std::string PlotSvg(const Findings& f);

// ---- The implementation under test ----
// A C function of a shared library, with one of the documented signatures:
//   void f(const T* x, T* y, size_t n)                   (forward)
//   void f(const T* dy, const T* x, T* dx, size_t n)     (backward; dy = 1 here)
// T = float, double (float64), or uint16_t holding the 16-bit pattern. Loads it now (throws std::runtime_error "cannot load
// 'PATH': ..." / "no symbol 'NAME' in 'PATH'"); Run then calls it in child processes.
class LibraryFunction {
 public:
  LibraryFunction(const std::string& path, const std::string& symbol);
  void* address() const { return address_; }
  std::string path, symbol;

 private:
  void* address_ = nullptr;
};

struct RunOptions {
  int threads = 0;          // 0: all hardware threads
  bool progress = false;    // progress bar with ETA on stderr
  double timeout_s = 60;    // a call longer than this is a hang
};
// Input sets for a library run: either explicit values, or a range of float32 bit patterns [lo, hi].
struct Inputs {
  std::vector<float> values;
  std::vector<double> values64;  // float64 (then `values` is empty)
  std::vector<uint16_t> bits16;  // 16-bit types: the patterns of `values` (NaN payloads kept)
  std::optional<std::pair<uint64_t, uint64_t>> bit_range;
  std::string description;
  uint64_t size() const {
    return bit_range ? bit_range->second - bit_range->first + 1 : std::max(values.size(), values64.size());
  }
};
// Calls the function on every input (chunks, one child process per thread) and judges the results. A crash or
// hang throws std::runtime_error naming the input (a crash is narrowed down to the one input) and the chunk.
Findings RunLibrary(const Spec& s, const LibraryFunction& fn, const Inputs& in, const RunOptions& o);

}  // namespace gelu::check

#endif  // GELU_TOOLS_CHECKER_H_
