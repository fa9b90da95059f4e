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
#include <utility>
#include <vector>

#include "gelu/gelu.hpp"
#include "src/common/functions.h"
#include "tests/support/scratch_and_child.h"
#include "tools/cli_helpers.h"
#include "tools/commands.h"
#include "tools/npy.h"

namespace {

namespace fs = std::filesystem;

using gelu::test::Result;
using gelu::test::Slurp;

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

using CliInProcess = gelu::test::ScratchDirectoryTest;

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

// --approximate is the function table's list of forms (src/common/functions.h): every name the table gives is
// accepted, as that form, by every command that takes it; nothing else is; and the help and the error messages
// list exactly those names. Everything expected here is built from the table, so a CLI that spelled the forms
// itself would fail once the two disagreed.
TEST(CliForms, TheApproximateOptionIsTheFunctionTable) {
  using gelu::Approximation;
  namespace cli = gelu::cli;
  namespace common = gelu::common;
  std::vector<std::string> names;  // the table's form names
  for (int f = 0; f < common::kNumForms; ++f) names.push_back(common::kFormNames[f]);
  std::vector<std::string> with_all = names;
  with_all.push_back("all");
  // {"a", "b", "c"} -> "a, b or c" (in words) and "{a,b,c}" (as CLI11 lists a set).
  const auto words = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : i + 1 == v.size() ? " or " : ", ") + v[i];
    return s;
  };
  const auto braces = [](const std::vector<std::string>& v) {
    std::string s = "{";
    for (size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : ",") + v[i];
    return s + "}";
  };
  const std::string list = words(names), list_all = words(with_all);

  ASSERT_EQ(cli::AllForms().size(), static_cast<size_t>(common::kNumForms));
  for (int f = 0; f < common::kNumForms; ++f) {
    const auto a = static_cast<Approximation>(f);
    SCOPED_TRACE(names[f]);
    EXPECT_EQ(cli::AllForms()[f], a);
    EXPECT_EQ(cli::FormName(a), names[f]);
    EXPECT_EQ(std::string(gelu::to_string(a)), names[f]);
    for (bool all : {false, true}) EXPECT_EQ(cli::ParseForms(names[f], all), std::vector<Approximation>{a});
    // The command line takes the name and computes that form.
    const Result r = RunGelu({"eval", "--format", "csv", "-a", names[f], "0.5"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, fmt::format("x,approximate,gelu\n0.5,{},{}\n", names[f], gelu::forward(0.5, a)));
  }
  EXPECT_EQ(cli::ParseForms("all", true), cli::AllForms());
  EXPECT_EQ(cli::FormChoices(false), names);
  EXPECT_EQ(cli::FormChoices(true), with_all);
  EXPECT_EQ(cli::FormList(false), list);
  EXPECT_EQ(cli::FormList(true), list_all);
  const std::vector<std::pair<std::string, bool>> refused = {{"erf", false}, {"erf", true}, {"all", false}};
  for (const auto& [s, all_ok] : refused) {
    try {
      cli::ParseForms(s, all_ok);
      ADD_FAILURE() << s << " was accepted";
    } catch (const cli::Failure& e) {
      EXPECT_EQ(std::string(e.what()), "--approximate must be " + (all_ok ? list_all : list) + ", not '" + s + "'");
    }
  }

  // Each command that takes --approximate: its help lists the table's names, and CLI11 refuses any other name
  // by listing them.
  const std::vector<std::pair<std::string, bool>> commands = {
      {"eval", true}, {"apply", false}, {"accuracy", true}, {"bench", true}};
  for (const auto& [command, all_ok] : commands) {
    SCOPED_TRACE(command);
    const Result help = RunGelu({command, "--help"});
    EXPECT_EQ(help.rc, 0) << help.err;
    EXPECT_NE(help.out.find(all_ok ? list_all : list), std::string::npos) << help.out;
    std::vector<std::string> args = {command, "-a", "erf"};
    if (command == "apply") args.insert(args.begin() + 1, {"x.npy", "y.npy"});
    const Result bad = RunGelu(args);
    EXPECT_GE(bad.rc, 100) << "CLI11's usage status";
    EXPECT_NE(bad.err.find("--approximate: erf not in " + braces(all_ok ? with_all : names)), std::string::npos)
        << bad.err;
    EXPECT_EQ(bad.out, "");
  }
}

// `gelu eval --list-forms`: every form of the table once, with the value the C API takes for its name (so that a
// script can pass it through ctypes) and its formula; in each format; and no numbers beside it.
TEST(CliForms, ListFormsGivesEachFormItsCApiValue) {
  namespace common = gelu::common;
  const Result csv = RunGelu({"eval", "--list-forms", "--format", "csv"});
  ASSERT_EQ(csv.rc, 0) << csv.err;
  std::vector<std::string> lines;
  for (size_t pos = 0, end; (end = csv.out.find('\n', pos)) != std::string::npos; pos = end + 1) {
    lines.push_back(csv.out.substr(pos, end - pos));
  }
  ASSERT_EQ(lines.size(), static_cast<size_t>(common::kNumForms) + 1) << csv.out;
  EXPECT_EQ(lines[0], "value,name,formula");
  std::vector<int> seen;
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t a = lines[i].find(','), b = lines[i].find(',', a + 1);
    ASSERT_NE(b, std::string::npos) << lines[i];
    const int value = std::stoi(lines[i].substr(0, a));
    const std::string name = lines[i].substr(a + 1, b - a - 1), formula = lines[i].substr(b + 1);
    gelu_approximate parsed;
    ASSERT_EQ(gelu_approximate_from_name(name.c_str(), &parsed), GELU_OK) << name;
    EXPECT_EQ(static_cast<int>(parsed), value) << name;
    ASSERT_TRUE(common::IsApproximateForm(value)) << value;
    EXPECT_EQ(formula, common::kFormFormulas[value]) << name;
    EXPECT_FALSE(formula.empty()) << name;
    seen.push_back(value);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << "a form listed twice";

  const Result json = RunGelu({"eval", "--list-forms", "--format", "json"});
  ASSERT_EQ(json.rc, 0) << json.err;
  const Result table = RunGelu({"eval", "--list-forms"});
  ASSERT_EQ(table.rc, 0) << table.err;
  EXPECT_EQ(std::count(table.out.begin(), table.out.end(), '\n'), common::kNumForms + 1) << table.out;
  for (const common::Form form : common::kForms) {
    const std::string name = gelu_approximate_name(form);
    EXPECT_NE(json.out.find(fmt::format("{{\"value\": {}, \"name\": \"{}\", \"formula\": \"{}\"}}",
                                        static_cast<int>(form), name, common::kFormFormulas[form])),
              std::string::npos)
        << json.out;
    EXPECT_NE(table.out.find(fmt::format("{:>5}  {}", static_cast<int>(form), name)), std::string::npos) << table.out;
  }

  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"eval", "--list-forms", "1"}, {"eval", "--list-forms", "--grad"}, {"eval", "--list-forms", "-a", "tanh"}}) {
    const Result bad = RunGelu(args);
    EXPECT_GE(bad.rc, 100) << "CLI11's usage status: " << args.back();
    EXPECT_NE(bad.err.find("excludes --list-forms"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.out, "");
  }
}

}  // namespace
