// SPDX-License-Identifier: Apache-2.0
// `gelu check` run as a process on the libraries of planted_gelu.c: the library itself passes its own claims
// (src/common/functions.h) through the checker, each planted defect is named at its input, --require sets the
// exit status, recorded pairs and --write-inputs round-trip, and every bad input is one line on stderr, a non-zero
// status and nothing written. (The unknown command: tests/cli/cli_test.cc.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "src/common/functions.h"
#include "tests/support/scratch_and_child.h"

namespace {

namespace fs = std::filesystem;

using gelu::test::Result;
using gelu::test::Slurp;

std::string Lib(const std::string& plant) { return std::string(GELU_PLANTED_DIR) + "/planted_" + plant + ".so"; }

class Check : public gelu::test::ScratchDirectoryTest {
 protected:
  // Runs `gelu check ARGS`, stdout and stderr to files.
  Result Run(std::vector<std::string> args) {
    args.insert(args.begin(), {GELU_EXE, "check"});
    gelu::test::ChildOptions o;
    o.stdout_path = (dir_ / "stdout").string();
    o.stderr_path = (dir_ / "stderr").string();
    return gelu::test::RunChild(args, o);
  }
  // The bad-input contract (docs/CHECK.md): exit status 1, one line on stderr containing `needle`, nothing on
  // stdout.
  void ExpectRefused(const Result& r, const std::string& needle) {
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
};

// The number after `key` in `s`, searching from the first occurrence of `after` (a JSON path by landmarks).
double NumberAfter(const std::string& s, const std::string& after, const std::string& key) {
  const size_t a = s.find(after);
  EXPECT_NE(a, std::string::npos) << after << " in " << s;
  if (a == std::string::npos) return NAN;
  const size_t k = s.find(key, a);
  EXPECT_NE(k, std::string::npos) << key << " after " << after;
  if (k == std::string::npos) return NAN;
  std::string rest = s.substr(k + key.size());
  if (rest.rfind("\"", 0) == 0) rest = rest.substr(1);  // JsonNumber writes "inf", "nan" as strings
  return std::strtod(rest.c_str(), nullptr);
}

// A form's name (the C API's, from the function table).
std::string FormName(int form) { return gelu_approximate_name(static_cast<gelu_approximate>(form)); }

// The library's float32 functions through the checker (stratified sample), within the table's bounds: forward
// none <= 1 ULP; tanh, sigmoid <= 2 ULP of their formula; backward <= 2 ULP (near the root of f', |error| <=
// 2^-24, which is <= 1 in the checker's unit there).
TEST_F(Check, LibraryMeetsItsFloat32ClaimsThroughTheChecker) {
  for (const gelu::common::Function& f : gelu::common::kFunctions) {
    if (!f.is_form()) continue;
    const std::string form = FormName(f.form());
    const std::string sym = std::string("gelu_") + (f.backward() ? "backward" : "forward") + "_f32_" + form;
    std::vector<std::string> args = {"--lib", Lib("clean"), "--symbol", sym, "-a", form, "--json"};
    if (f.backward()) args.push_back("--backward");
    const Result r = Run(args);
    ASSERT_EQ(r.rc, 0) << sym << r.err;
    const double max = NumberAfter(r.out, "\"own\"", "\"error\": ");
    EXPECT_LE(max, f.f32_ulp) << sym;
  }
}

TEST_F(Check, LibraryIsCorrectlyRoundedIn16BitThroughTheChecker) {
  for (const char* type : {"bf16", "f16"}) {
    for (const gelu_approximate approximate : gelu::common::kForms) {
      const std::string form = FormName(approximate);
      for (const char* dir : {"forward", "backward"}) {
        const std::string sym = std::string("gelu_") + dir + "_" + type + "_" + form;
        std::vector<std::string> args = {"--lib", Lib("clean"), "--symbol", sym, "-a", form, "--dtype",
                                         type == std::string("bf16") ? "bfloat16" : "float16",
                                         "--require", "correctly-rounded"};
        if (dir == std::string("backward")) args.push_back("--backward");
        const Result r = Run(args);
        EXPECT_EQ(r.rc, 0) << sym << "\n" << r.out << r.err;
        EXPECT_NE(r.out.find("misrounded (not the correctly rounded value): 0 of 65536"), std::string::npos) << sym;
      }
    }
  }
}

// The library's float64 functions through the checker (the float64 sample, against MPFR): within the table's
// float64 bounds (near the root of f', |error| <= 2^-53, which is <= 1 in the checker's unit there).
TEST_F(Check, LibraryMeetsItsFloat64ClaimsThroughTheChecker) {
  for (const gelu::common::Function& f : gelu::common::kFunctions) {
    if (!f.is_form() || f.f64_ulp == 0) continue;
    const std::string form = FormName(f.form());
    const std::string sym = std::string("gelu_") + (f.backward() ? "backward" : "forward") + "_f64_" + form;
    std::vector<std::string> args = {"--lib", Lib("clean"), "--symbol", sym, "-a", form, "--dtype", "float64",
                                     "--json"};
    if (f.backward()) args.push_back("--backward");
    const Result r = Run(args);
    ASSERT_EQ(r.rc, 0) << sym << r.err;
    EXPECT_NE(r.out.find("\"coverage\": \"stratified float64 sample"), std::string::npos) << sym;
    EXPECT_GT(NumberAfter(r.out, "\"inputs\"", "\"inputs\": "), 100000) << sym;
    EXPECT_LE(NumberAfter(r.out, "\"own\"", "\"error\": "), std::max(f.f64_ulp, 1.0)) << sym;
    for (const char* special : {"\"+0\"", "\"-0\"", "\"+inf\"", "\"-inf\"", "\"NaN\""}) {
      EXPECT_NE(r.out.find(std::string(special) + ": {\"y\""), std::string::npos) << sym << special;
    }
    EXPECT_EQ(r.out.find("\"ok\": false"), std::string::npos) << sym;
  }
}

// float64, one result 2 ULP high at x = 2.5 (planted_f64_two_ulp): in the sample as a round value, named there as
// the max error and the one result in (2, 4] ULP (the library's own float64 maximum is 1.04 ULP); ulp4 holds.
TEST_F(Check, NamesAPlantedFloat64Error) {
  const Result r = Run({"--lib", Lib("f64_two_ulp"), "--symbol", "gelu_forward_f64_none", "--dtype", "float64",
                        "--require", "ulp4", "--json"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"max_error\": {\"error\": 2."), std::string::npos) << r.out.substr(0, 400);
  EXPECT_EQ(NumberAfter(r.out, "\"max_error\"", "\"x\": "), 2.5);
  EXPECT_EQ(NumberAfter(r.out, "\"|x| < 4\"", "\"(2,4]\": "), 1);
}

// The float32 sample holds round values (multiples of 1/8, integers, tenths): the planted crash at x = 2.5,
// which no binade sample or grid point hits, is met by the stratified run.
TEST_F(Check, StratifiedSampleHoldsRoundValues) {
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":handle_segv=0").c_str(), 1);
  const Result r = Run({"--lib", Lib("crash"), "--symbol", "gelu_forward_f32_none"});
  if (asan != nullptr) setenv("ASAN_OPTIONS", asan, 1); else unsetenv("ASAN_OPTIONS");
  ExpectRefused(r, "crashed (was killed by signal 11 (Segmentation fault)) at x = 0x1.4p+1 (2.5)");
}

// One wrong result in 2^32 (x = pi): found by the exhaustive path, here over the 2^22 bit patterns of [3, 4)
// (the full 2^32 is the same loop, minutes: docs/CHECK.md).
TEST_F(Check, NamesOneWrongInputFoundExhaustively) {
  const Result r = Run({"--lib", Lib("one_wrong"), "--symbol", "gelu_forward_f32_none", "--exhaustive", "--range",
                        "0x40400000:0x407fffff", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"max_error\": {\"error\": 15."), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("\"x_hex\": \"0x1.921fb6p+1\""), std::string::npos);
  EXPECT_EQ(NumberAfter(r.out, "\"ulp1\"", "\"failures\": "), 1);
}

TEST_F(Check, NamesPositiveZeroForNegativeZero) {
  const Result r = Run({"--lib", Lib("positive_zero"), "--symbol", "gelu_forward_f32_none", "--require", "ulp4"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.out.find("-inf -> 0 (expected -0)"), std::string::npos) << r.out;
  // The first input past the true cutoff: its result is -0 and the planted +0 is a sign error (inf).
  EXPECT_NE(r.out.find("ulp1                 FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x = -0x1.cb64eap+3"), std::string::npos) << r.out;
}

TEST_F(Check, NamesNanForMinusInfinity) {
  const Result r = Run({"--lib", Lib("nan_at_neg_inf"), "--symbol", "gelu_forward_f32_none", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"-inf\": {\"y\": \"nan\", \"expected\": -0, \"ok\": false"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"max_error\": {\"error\": \"inf\", \"x\": \"-inf\""), std::string::npos) << r.out;
}

TEST_F(Check, NamesAFlushedTail) {
  const Result r = Run({"--lib", Lib("flushed_tail"), "--symbol", "gelu_forward_f32_none", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  // The most negative nonzero result among the sample's inputs: -5.5 itself (a round value), the plant's edge.
  const double cutoff = NumberAfter(r.out, "\"tail_cutoff\"", "\"tail_cutoff\": ");
  EXPECT_GE(cutoff, -5.5);
  EXPECT_LT(cutoff, -5.499);
  EXPECT_LT(NumberAfter(r.out, "\"true_tail_cutoff\"", "\"true_tail_cutoff\": "), -14);
  EXPECT_GT(NumberAfter(r.out, "\"subnormal_results_flushed\"", "\"subnormal_results_flushed\": "), 0);
}

TEST_F(Check, NamesThreeUlpOnANarrowInterval) {
  const Result r = Run({"--lib", Lib("three_ulp"), "--symbol", "gelu_forward_f32_none", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const double max = NumberAfter(r.out, "\"own\"", "\"error\": ");
  const double x = NumberAfter(r.out, "\"own\"", "\"x\": ");
  EXPECT_GT(max, 2.5);
  EXPECT_LE(max, 3.5);
  EXPECT_GE(x, 1.5);
  EXPECT_LT(x, 1.5 + 0x1p-10);
  EXPECT_EQ(Run({"--lib", Lib("three_ulp"), "--symbol", "gelu_forward_f32_none", "--require", "ulp1"}).rc, 2);
  EXPECT_EQ(Run({"--lib", Lib("three_ulp"), "--symbol", "gelu_forward_f32_none", "--require", "ulp4"}).rc, 0);
}

TEST_F(Check, NamesOneMisroundedBfloat16Result) {
  const Result r = Run({"--lib", Lib("half_off"), "--symbol", "gelu_forward_bf16_none", "--dtype", "bfloat16",
                        "--require", "correctly-rounded"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.out.find("misrounded (not the correctly rounded value): 1 of 65536"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL (1)      x = 0x1.8p+0 (1.5)"), std::string::npos) << r.out;
}

TEST_F(Check, NamesOneMisroundedFloat16Result) {
  const Result r = Run({"--lib", Lib("f16_off"), "--symbol", "gelu_forward_f16_none", "--dtype", "float16",
                        "--require", "correctly-rounded"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.out.find("misrounded (not the correctly rounded value): 1 of 65536"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL (1)      x = 0x1.8p+0 (1.5)"), std::string::npos) << r.out;
}

// The tanh and sigmoid forms are judged against their own formulas ("own"): 5 ULP high on an interval of 2^-10,
// found there, and failing ulp4; the same library's exact form, unplanted, passes it.
TEST_F(Check, NamesFiveUlpInTheTanhAndSigmoidForms) {
  struct Plant {
    const char* lib;
    const char* form;
    double from;
  };
  for (const Plant& p : {Plant{"tanh_five_ulp", "tanh", 1.5}, Plant{"sigmoid_five_ulp", "sigmoid", -2.5}}) {
    const std::string sym = std::string("gelu_forward_f32_") + p.form;
    const Result r = Run({"--lib", Lib(p.lib), "--symbol", sym, "-a", p.form, "--json"});
    ASSERT_EQ(r.rc, 0) << sym << r.err;
    const double max = NumberAfter(r.out, "\"own\"", "\"error\": ");
    const double x = NumberAfter(r.out, "\"own\"", "\"x\": ");
    EXPECT_GT(max, 4.5) << sym;
    EXPECT_LE(max, 7.0) << sym;  // 5 plus the form's own error, at most 2
    EXPECT_GE(x, p.from) << sym;
    EXPECT_LT(x, p.from + 0x1p-10) << sym;
    EXPECT_EQ(Run({"--lib", Lib(p.lib), "--symbol", sym, "-a", p.form, "--require", "ulp4"}).rc, 2) << sym;
    EXPECT_EQ(Run({"--lib", Lib(p.lib), "--symbol", "gelu_forward_f32_none", "--require", "ulp4"}).rc, 0) << sym;
  }
}

// A backward error inside the near-root window of f' (|f'| < 2^-8 around x = -0.7518, where the checker measures
// |error| in units of 2^-24, not in ULP of the tiny f'): 2^-21 high is 8 such units, named at its input, and fails
// ulp4; a relative measure would have put millions of ULP there.
TEST_F(Check, NamesABackwardErrorInsideTheNearRootWindow) {
  const Result r = Run({"--lib", Lib("root_off"), "--symbol", "gelu_backward_f32_none", "--backward", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const double max = NumberAfter(r.out, "\"own\"", "\"error\": ");
  const double x = NumberAfter(r.out, "\"own\"", "\"x\": ");
  EXPECT_GE(max, 7.0);
  EXPECT_LE(max, 9.0);
  EXPECT_LT(std::fabs(x + 0.7518), 0x1p-8) << x;
  EXPECT_EQ(Run({"--lib", Lib("root_off"), "--symbol", "gelu_backward_f32_none", "--backward", "--require", "ulp4"}).rc,
            2);
}

// The C peers' findings that docs/CHECK.md ("Peers on this machine") and README state, each asserted from the
// checker's JSON on the stratified sample: the formula's exact or tanh form returns 0 from about x = -5.5 (the
// tail cutoff: -5.54 for the glibc formula, where the true one is -14.36; oneDNN clamps there too), NaN for -inf,
// thousands of ULP off on |x| < 4, and of the profiles only abs10eps met; oneDNN's gelu_erf returns +0 for -0.
// Debian 12's glibc 2.36, oneDNN 2.6 and Eigen 3.4 (scripts/install_deps.sh installs them).
TEST_F(Check, PeersFindingsHold) {
  struct Peer {
    std::string lib;
    const char* symbol;
    const char* form;
    double cutoff;           // the most negative x with a nonzero result, as CHECK.md's table gives it
    bool plus_zero_for_minus_zero;
  };
  std::vector<Peer> peers = {{GELU_CHECK_PEERS_LIB, "naive_gelu_erf", "none", -5.542, false}};
#if defined(GELU_CHECK_PEERS_ONEDNN)
  peers.push_back({GELU_CHECK_PEERS_LIB, "onednn_gelu_erf", "none", -5.543, true});
  peers.push_back({GELU_CHECK_PEERS_LIB, "onednn_gelu_tanh", "tanh", -5.158, false});
#endif
#if defined(GELU_CHECK_PEERS_EIGEN_LIB)
  peers.push_back({GELU_CHECK_PEERS_EIGEN_LIB, "eigen_gelu_erf", "none", -5.656, false});
  peers.push_back({GELU_CHECK_PEERS_EIGEN_LIB, "eigen_gelu_tanh", "tanh", -4.839, false});
#endif
  for (const Peer& p : peers) {
    const Result r = Run({"--lib", p.lib, "--symbol", p.symbol, "-a", p.form, "--json"});
    ASSERT_EQ(r.rc, 0) << p.symbol << r.err;
    EXPECT_NEAR(NumberAfter(r.out, "\"tail_cutoff\"", "\"tail_cutoff\": "), p.cutoff, 0.0015) << p.symbol;
    EXPECT_NE(r.out.find("\"-inf\": {\"y\": \"nan\""), std::string::npos) << p.symbol;
    EXPECT_NE(r.out.find(p.plus_zero_for_minus_zero ? "\"-0\": {\"y\": 0," : "\"-0\": {\"y\": -0,"), std::string::npos)
        << p.symbol;
    EXPECT_GT(NumberAfter(r.out, "\"|x| < 4\"", "\"error\": "), 1000.0) << p.symbol;
    EXPECT_NE(r.out.find("\"ulp4\": {\"pass\": false"), std::string::npos) << p.symbol;
    EXPECT_NE(r.out.find("\"abs10eps\": {\"pass\": true"), std::string::npos) << p.symbol;
  }
}

TEST_F(Check, NamesTheInputOfACrash) {
  // Under AddressSanitizer (scripts/test.sh's second pass) ASan's SEGV handler would turn the crash into a report
  // and exit status 1: let the signal end the child as it does in a plain build.
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":handle_segv=0").c_str(), 1);
  const Result r = Run({"--lib", Lib("crash"), "--symbol", "gelu_forward_f32_none", "--exhaustive", "--range",
                        "0x40000000:0x403fffff", "--plot", (dir_ / "p.svg").string()});
  if (asan != nullptr) setenv("ASAN_OPTIONS", asan, 1); else unsetenv("ASAN_OPTIONS");
  ExpectRefused(r, "crashed (was killed by signal 11 (Segmentation fault)) at x = 0x1.4p+1 (2.5)");
  EXPECT_FALSE(fs::exists(dir_ / "p.svg"));
}

TEST_F(Check, NamesTheChunkOfAHang) {
  // x = 2 (a binade start: in the stratified sample) never returns; --timeout 1 s ends the wait and the child.
  const Result r = Run({"--lib", Lib("hang"), "--symbol", "gelu_forward_f32_none", "--timeout", "1"});
  ExpectRefused(r, "'gelu_forward_f32_none' did not return within 1 s on the chunk of inputs ");
}

TEST_F(Check, RecordedPairsAndWriteInputsRoundTrip) {
  // float16: all 65,536 inputs written, run through `gelu apply`, judged as pairs.
  const std::string x = (dir_ / "x.npy").string(), y = (dir_ / "y.npy").string();
  ASSERT_EQ(Run({"--write-inputs", x, "--dtype", "float16"}).rc, 0);
  const std::string apply = std::string(GELU_EXE) + " apply " + x + " " + y;
  ASSERT_EQ(std::system(apply.c_str()), 0);
  const Result r = Run({"--x", x, "--y", y, "--require", "correctly-rounded", "--plot", (dir_ / "p.svg").string()});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("forward none float16, 65536 inputs"), std::string::npos) << r.out;
  EXPECT_EQ(Slurp(dir_ / "p.svg").rfind("<svg", 0), 0u);
}

TEST_F(Check, RecordedFloat64PairsRoundTrip) {
  // The float64 sample written, run through `gelu apply` (float64 in, float64 out), judged as pairs: the
  // library's float64 bound (<= 2 ULP), every input judged.
  const std::string x = (dir_ / "x.npy").string(), y = (dir_ / "y.npy").string();
  const Result w = Run({"--write-inputs", x, "--dtype", "float64"});
  ASSERT_EQ(w.rc, 0) << w.err;
  const std::string apply = std::string(GELU_EXE) + " apply " + x + " " + y + " -a tanh";
  ASSERT_EQ(std::system(apply.c_str()), 0);
  const Result r = Run({"--x", x, "--y", y, "-a", "tanh", "--json"});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"function\": \"forward tanh float64\""), std::string::npos) << r.out.substr(0, 300);
  EXPECT_GT(NumberAfter(r.out, "\"inputs\"", "\"inputs\": "), 100000);
  EXPECT_LE(NumberAfter(r.out, "\"own\"", "\"error\": "), 2);
  // Judged as the sigmoid form instead, the same results are far off: the form is what is judged.
  EXPECT_EQ(Run({"--x", x, "--y", y, "-a", "sigmoid", "--require", "ulp4"}).rc, 2);
  // Backward with grad_out = x (subnormal ones included: the near-root window is decided by f'(x), not by
  // dx / grad_out, which underflows), judged with --dy: within the bound.
  const std::string dx = (dir_ / "dx.npy").string();
  ASSERT_EQ(std::system((std::string(GELU_EXE) + " apply " + x + " " + dx + " --backward " + x).c_str()), 0);
  const Result b = Run({"--x", x, "--y", dx, "--dy", x, "--backward", "--require", "ulp4"});
  EXPECT_EQ(b.rc, 0) << b.out << b.err;
  ExpectRefused(Run({"--x", x, "--y", y, "--dtype", "float32"}), "holds float64, not float32");
  ExpectRefused(Run({"--lib", Lib("clean"), "--symbol", "gelu_forward_f64_none", "--dtype", "float64",
                     "--exhaustive"}), "--exhaustive and --range are for float32");
}

TEST_F(Check, RecordedBackwardPairsWithAGradient) {
  // float16 backward with grad_out = x (any values): dx = grad_out * f'(x) from `gelu apply --backward`, judged
  // with --dy against grad_out * f'(x) in double: within 1 ULP (the C API's claim: 0.5 + 2^-18 ULP).
  const std::string x = (dir_ / "x.npy").string(), dx = (dir_ / "dx.npy").string();
  ASSERT_EQ(Run({"--write-inputs", x, "--dtype", "float16"}).rc, 0);
  const std::string apply = std::string(GELU_EXE) + " apply " + x + " " + dx + " --backward " + x;
  ASSERT_EQ(std::system(apply.c_str()), 0);
  const Result r = Run({"--x", x, "--y", dx, "--dy", x, "--backward", "--require", "ulp1"});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("backward none float16, 65536 inputs"), std::string::npos) << r.out;
  // The same results judged as if grad_out were 1 are far off: the gradient is used.
  EXPECT_EQ(Run({"--x", x, "--y", dx, "--backward", "--require", "ulp1"}).rc, 2);
}

TEST_F(Check, RefusesBadInput) {
  ExpectRefused(Run({"--lib", Lib("nope"), "--symbol", "f"}), "cannot load '");
  ExpectRefused(Run({"--lib", Lib("clean"), "--symbol", "nope"}), "no symbol 'nope' in '");
  ExpectRefused(Run({"--lib", Lib("clean"), "--symbol", "gelu_forward_f32_none", "--require", "ulp2"}),
                "unknown profile 'ulp2'");
  const std::string x = (dir_ / "x.npy").string(), y = (dir_ / "y.npy").string(), s = (dir_ / "s.npy").string();
  ASSERT_EQ(Run({"--write-inputs", x, "--dtype", "float16"}).rc, 0);
  ASSERT_EQ(Run({"--write-inputs", s}).rc, 0);  // float32: the stratified sample, another shape
  ExpectRefused(Run({"--x", x, "--y", s, "--plot", (dir_ / "p.svg").string()}), "must have the same shape");
  EXPECT_FALSE(fs::exists(dir_ / "p.svg"));
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }";
  header.resize(117, ' ');
  std::ofstream(y, std::ios::binary) << std::string("\x93NUMPY\x01\x00\x76\x00", 10) << header << '\n'
                                     << std::string(4, '\0');
  const Result ints = Run({"--x", y, "--y", y});
  ExpectRefused(ints, "int32");
  EXPECT_EQ(ints.err.rfind("gelu check: ", 0), 0u) << ints.err;  // the command running, not another
  EXPECT_EQ(ints.err.find("apply"), std::string::npos) << ints.err;
}

}  // namespace
