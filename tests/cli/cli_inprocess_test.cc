// SPDX-License-Identifier: Apache-2.0
// The `gelu` commands called in-process through gelu_cli_lib (RunCommandLine, as main calls it): the same
// parsing, output and error reporting as the process-level tests in cli_test.cc, plus what only a test inside
// the process can arrange, such as a full disk (RLIMIT_FSIZE) for `apply`.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gelu/gelu.hpp"
#include "tools/commands.h"
#include "tools/npy.h"

namespace {

namespace fs = std::filesystem;

struct Result {
  int rc = -1;
  std::string out, err;
};

Result RunGelu(std::vector<std::string> args) {
  args.insert(args.begin(), "gelu");
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  Result r;
  r.rc = gelu::cli::RunCommandLine(args);
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

std::string Slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class CliInProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = (fs::temp_directory_path() / "gelu-cli-inprocess-XXXXXX").string();
    ASSERT_NE(mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::vector<std::string> Listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

TEST_F(CliInProcess, EvalPrintsTheLibrarysValuesIncludingNegativeArguments) {
  const Result r = RunGelu({"eval", "--format", "csv", "-a", "tanh", "-1.5", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string expected = fmt::format("x,approximate,gelu\n-1.5,tanh,{}\n2,tanh,{}\n",
                                           gelu::forward(-1.5, gelu::Approximation::tanh),
                                           gelu::forward(2.0, gelu::Approximation::tanh));
  EXPECT_EQ(r.out, expected);
  EXPECT_EQ(r.err, "");
}

TEST_F(CliInProcess, UsageAndCommandErrors) {
  Result r = RunGelu({"eval", "--approximate", "erf", "1"});
  EXPECT_GE(r.rc, 100) << "CLI11's usage status";
  EXPECT_NE(r.err.find("erf"), std::string::npos) << r.err;
  r = RunGelu({"eval", "1", "abc"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "gelu eval: argument 2: 'abc' is not a float64 number\n");
  EXPECT_EQ(r.out, "");
  r = RunGelu({"accuracy", "--exhaustive", "--range", "12"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "gelu accuracy: --range must be LO:HI, e.g. 0x3f800000:0x3fffffff, not '12'\n");
}

TEST_F(CliInProcess, ApplyRefusesAnEndlessInputAtOnce) {
  const fs::path out = dir_ / "y.npy";
  const Result r = RunGelu({"apply", "/dev/zero", out.string()});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("gelu apply: '/dev/zero': not a .npy file"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// A full disk (here: the file size limit, which fails write(2) with EFBIG as ENOSPC would) fails cleanly: the
// input is intact, in place too, and no partial output or temporary file is left.
TEST_F(CliInProcess, ApplyOnAFullDiskLeavesInputIntactAndNoPartialOutput) {
  gelu::npy::Array x;
  x.dtype = gelu::npy::DType::f32;
  x.shape = {100'000};
  x.f32.assign(100'000, 1.5f);
  const fs::path in = dir_ / "x.npy";
  gelu::npy::Write(in, x);
  const std::string before = Slurp(in);

  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const rlimit small{64 * 1024, old.rlim_max};
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGXFSZ, &ignore, &previous), 0);  // else the signal ends the process before write fails
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const Result to_other = RunGelu({"apply", in.string(), (dir_ / "y.npy").string()});
  const Result in_place = RunGelu({"apply", in.string(), in.string(), "-a", "sigmoid"});
  setrlimit(RLIMIT_FSIZE, &old);
  sigaction(SIGXFSZ, &previous, nullptr);

  for (const Result& r : {to_other, in_place}) {
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.err.find("write failed: File too large"), std::string::npos) << r.err;
  }
  EXPECT_EQ(Slurp(in), before);
  EXPECT_EQ(Listing(), std::vector<std::string>{"x.npy"});
}

}  // namespace
