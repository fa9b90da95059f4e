// SPDX-License-Identifier: Apache-2.0
// Runs the built `gelu` executable (GELU_EXE) as a process and checks each subcommand: results against the
// library and the reference, output formats, and every bad input the issue lists (a precise message on stderr,
// a non-zero exit status, nothing partial written).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/gelu.hpp"
#include "src/common/functions.h"
#include "src/reference/reference.h"
#include "tools/cleanup_on_signal.h"
#include "tests/support/scratch_and_child.h"
#include "tools/npy.h"

namespace {

namespace fs = std::filesystem;
using gelu::npy::Array;
using gelu::npy::DType;

using gelu::test::ChildOptions;
using gelu::test::Result;
using gelu::test::Slurp;
using gelu::test::Stdout;

class Cli : public gelu::test::ScratchDirectoryTest {
 protected:
  void SetUp() override {
    ScratchDirectoryTest::SetUp();
    fs::create_directory(dir_ / "io");
  }

  // Runs gelu with `args`, `input` on stdin, and extra environment entries ("NAME=value").
  Result Run(const std::vector<std::string>& args, const std::string& input = "",
             const std::vector<std::string>& env = {}) {
    std::ofstream(dir_ / "io" / "stdin", std::ios::binary) << input;
    return RunRedirected(args, (dir_ / "io" / "stdin").string(), Stdout::kFile, env);
  }

  // Runs gelu with `args`, stdin opened from `stdin_path`, stdout as `stdout_to`.
  Result RunRedirected(const std::vector<std::string>& args, const std::string& stdin_path, Stdout stdout_to,
                       const std::vector<std::string>& env = {}) {
    return Wait(Start(args, stdin_path, stdout_to, env));
  }

  // How gelu runs here: stdout and stderr to files under io/; the signals it handles at their default actions
  // and none blocked, whatever this test inherited: the signal tests rely on it.
  ChildOptions Options(const std::string& stdin_path, Stdout stdout_to, const std::vector<std::string>& env) const {
    ChildOptions o;
    o.stdin_path = stdin_path;
    o.stdout_path = (dir_ / "io" / "stdout").string();
    o.stderr_path = (dir_ / "io" / "stderr").string();
    o.stdout_to = stdout_to;
    o.env = env;
    o.default_signals.assign(std::begin(gelu::kEndingSignals), std::end(gelu::kEndingSignals));
    o.default_signals.push_back(SIGCHLD);
    return o;
  }

  // Starts gelu (RunRedirected without the wait); -1 if it cannot be started.
  pid_t Start(const std::vector<std::string>& args, const std::string& stdin_path, Stdout stdout_to,
              const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv = {GELU_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    return gelu::test::StartChild(argv, Options(stdin_path, stdout_to, env));
  }

  // Waits for a started gelu: its status (128 + the signal if one ended it), stdout and stderr.
  Result Wait(pid_t pid) { return gelu::test::WaitChild(pid, Options("", Stdout::kFile, {})); }

  // The bad-input contract: non-zero status, one line on stderr containing `needle`, nothing on stdout.
  void ExpectFailure(const Result& r, const std::string& needle) {
    EXPECT_NE(r.rc, 0) << r.out;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
    EXPECT_TRUE(r.out.empty()) << "stdout: " << r.out;
  }

  std::string P(const std::string& name) const { return (dir_ / name).string(); }

  // A stand-in for the plotting interpreter: a shell script, run as `python SCRIPT --curves ... --outdir OUT`,
  // that writes into the --outdir it is given (as scripts/plot_gelu.py does) what `draw` says.
  std::string FakePython(const std::string& name, const std::string& draw) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n"
                        "while [ $# -gt 0 ]; do [ \"$1\" = --outdir ] && out=$2; shift; done\n"
                        "mkdir -p \"$out\"\n"
                     << draw;
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }

  // Every entry of `d` (hidden ones too): a regular file by its bytes, anything else as "(not a file)".
  std::map<std::string, std::string> Snapshot(const fs::path& d) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::directory_iterator(d)) {
      files[e.path().filename().string()] = e.is_regular_file() && !e.is_symlink() ? Slurp(e.path()) : "(not a file)";
    }
    return files;
  }

  // `d` holds exactly the entries of `before` (Snapshot), each with the same bytes: named, with sizes, not dumped.
  void ExpectUnchanged(const fs::path& d, const std::map<std::string, std::string>& before) {
    const std::map<std::string, std::string> now = Snapshot(d);
    const auto names = [](const std::map<std::string, std::string>& m) {
      std::vector<std::string> v;
      for (const auto& [name, bytes] : m) v.push_back(name);
      return v;
    };
    EXPECT_EQ(names(now), names(before));
    for (const auto& [name, bytes] : before) {
      const auto it = now.find(name);
      if (it != now.end()) {
        EXPECT_TRUE(it->second == bytes) << name << " changed: " << bytes.size() << " bytes before, "
                                         << it->second.size() << " now";
      }
    }
  }
};

std::vector<std::vector<std::string>> Csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::istringstream l(line);
    for (std::string cell; std::getline(l, cell, ',');) row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

// The names of the forms, from the function table (src/common/functions.h).
const std::vector<const char*> kForms(gelu::common::kFormNames, gelu::common::kFormNames + gelu::common::kNumForms);

// The form the CLI printed or was given, by the function table's names (src/common/functions.h).
gelu::reference::Form Form(const std::string& s) {
  for (int f = 0; f < gelu::common::kNumForms; ++f) {
    if (s == gelu::common::kFormNames[f]) return static_cast<gelu::reference::Form>(f);
  }
  ADD_FAILURE() << "'" << s << "' is no form of the function table";
  return gelu::common::kNone;
}

// ---------------------------------------------------------------------------------------------- eval

TEST_F(Cli, EvalCsvMatchesReferenceEveryForm) {
  const Result r = Run({"eval", "--format", "csv", "--grad", "-a", "all", "-3", "-0.7518", "0", "0.5", "4"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto rows = Csv(r.out);
  ASSERT_EQ(rows.size(), 1u + 5 * gelu::common::kNumForms);  // five numbers, every form
  EXPECT_EQ(rows[0], (std::vector<std::string>{"x", "approximate", "gelu", "grad"}));
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 4u);
    const double x = std::stod(rows[i][0]), y = std::stod(rows[i][2]), g = std::stod(rows[i][3]);
    const double ry = gelu::reference::Forward(x, Form(rows[i][1]));
    const double rg = gelu::reference::Derivative(x, Form(rows[i][1]));
    EXPECT_NEAR(y, ry, 1e-15 * std::max(1.0, std::fabs(ry))) << rows[i][1] << " x=" << x;
    EXPECT_NEAR(g, rg, 1e-15) << rows[i][1] << " x=" << x;
  }
}

TEST_F(Cli, EvalFloat32PrintsTheLibrarysBits) {
  const Result r = Run({"eval", "--format", "csv", "--dtype", "float32", "1", "-5.5", "-10"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto rows = Csv(r.out);
  ASSERT_EQ(rows.size(), 4u);
  for (size_t i = 1; i < rows.size(); ++i) {
    const float x = std::stof(rows[i][0]);
    EXPECT_EQ(std::bit_cast<uint32_t>(std::strtof(rows[i][2].c_str(), nullptr)),
              std::bit_cast<uint32_t>(gelu::forward(x)))
        << rows[i][2];
  }
  EXPECT_NE(rows[3][2], "0");  // the tail is not flushed: GELU(-10) ~ -7.6e-23
}

TEST_F(Cli, EvalTableAndSpecialTokens) {
  const Result r = Run({"eval", "-inf", "+inf", "nan", "0x1p-2", "-0", "1e-3"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("gelu(x)"), std::string::npos);
  EXPECT_NE(r.out.find("-inf  none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" inf  none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0.25  none"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 7) << r.out;
}

TEST_F(Cli, EvalReadsStdin) {
  const Result r = Run({"eval", "--format", "csv"}, "1 2\n  -3\t4\n\n5\n");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto rows = Csv(r.out);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[3][0], "-3");
  EXPECT_EQ(rows[5][0], "5");
}

TEST_F(Cli, EvalJson) {
  const Result r = Run({"eval", "--format", "json", "--grad", "-a", "tanh", "--", "-1", "nan"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.front(), '[');
  EXPECT_NE(r.out.find("{\"x\": -1, \"approximate\": \"tanh\", \"gelu\": -0.15"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"x\": \"nan\", \"approximate\": \"tanh\", \"gelu\": \"nan\", \"grad\": \"nan\"}"),
            std::string::npos)
      << r.out;
}

TEST_F(Cli, EvalNonNumericStdinTokenNamesLineAndToken) {
  ExpectFailure(Run({"eval"}, "1 2\n3 abc 4\n"), "gelu eval: stdin line 2, token 2: 'abc' is not a float64 number");
  ExpectFailure(Run({"eval", "--dtype", "float32"}, "1e39\n"), "stdin line 1, token 1: '1e39' is out of range for float32");
  ExpectFailure(Run({"eval"}, "1 1e-400"), "stdin line 1, token 2: '1e-400' is out of range for float64");
  ExpectFailure(Run({"eval"}, "\n\n 1,5\n"), "stdin line 3, token 1: '1,5'");
}

// A token is shown quoted, non-printable bytes as \xNN: a NUL does not cut the message, an escape sequence does
// not reach the terminal, a long token is cut at 40 characters.
TEST_F(Cli, EvalBadTokenShownEscaped) {
  ExpectFailure(Run({"eval"}, std::string("1\0 2\n", 5)), "stdin line 1, token 1: '1\\x00' is not a float64 number");
  ExpectFailure(Run({"eval"}, "\x1b[31mred\n"), "token 1: '\\x1b[31mred' is not a float64 number");
  ExpectFailure(Run({"eval", std::string(50, '7') + "x"}), "argument 1: '" + std::string(40, '7') + "...' is not");
}

TEST_F(Cli, EvalNonNumericArgument) {
  ExpectFailure(Run({"eval", "1", "1..2"}), "gelu eval: argument 2: '1..2' is not a float64 number");
  ExpectFailure(Run({"eval", "--", "--5"}), "argument 1: '--5'");
}

TEST_F(Cli, EvalEmptyStdinPrintsHeaderOnly) {
  const Result r = Run({"eval", "--format", "csv"}, "  \n");
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, "x,approximate,gelu\n");
}

// A failed write to stdout is a failure, not a success with the output lost; a stdin that cannot be read is not
// an empty input.
TEST_F(Cli, UnwritableStdoutAndUnreadableStdinFail) {
  const std::string in = P("io/stdin");
  std::ofstream(in) << "";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"eval", "1", "2"}, {"--help"}, {"bench", "--help"}}) {
    const Result full = RunRedirected(args, in, Stdout::kFull);
    EXPECT_EQ(full.rc, 1) << args[0];
    EXPECT_NE(full.err.find("cannot write standard output: No space left on device"), std::string::npos)
        << full.err;
    const Result closed = RunRedirected(args, in, Stdout::kClosed);
    EXPECT_EQ(closed.rc, 1) << args[0];
    EXPECT_NE(closed.err.find("cannot write standard output"), std::string::npos) << closed.err;
  }
  ExpectFailure(RunRedirected({"eval"}, dir_.string(), Stdout::kFile), "gelu eval: cannot read stdin: Is a directory");
}

TEST_F(Cli, HelpAndUsageErrors) {
  for (const char* sub : {"eval", "apply", "bench", "accuracy", "plot", "report", "check"}) {
    const Result r = Run({sub, "--help"});
    EXPECT_EQ(r.rc, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub;
  }
  const Result help = Run({"--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("Usage: gelu [OPTIONS] SUBCOMMAND"), std::string::npos) << help.out;
  EXPECT_TRUE(help.err.empty()) << help.err;
  EXPECT_EQ(Run({"--version"}).out.substr(0, 2), "0.");
  // Usage errors: non-zero status, the reason on stderr, nothing on stdout.
  for (const auto& [args, reason] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{}, "A subcommand is required"},
           {{"frobnicate"},
            "gelu: unknown command 'frobnicate'; the commands are eval, apply, bench, accuracy, plot, report, check"},
           {{"apply", "only-one-arg.npy"}, "OUT is required"}}) {
    const Result r = Run(args);
    EXPECT_NE(r.rc, 0) << reason;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  const Result bad = Run({"eval", "--approximate", "erf", "1"});
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.err.find("--approximate"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty()) << bad.out;
}

// --------------------------------------------------------------------------------------------- apply

Array MakeArray(DType t, std::vector<uint64_t> shape, uint64_t seed) {
  Array a;
  a.dtype = t;
  a.shape = std::move(shape);
  size_t n = 1;
  for (uint64_t d : a.shape) n *= d;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0, 3);
  const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -13.5, 6.0, 1e-30};
  for (size_t i = 0; i < n; ++i) {
    const double v = i < 8 ? specials[i] : normal(rng);
    if (t == DType::f32) a.f32.push_back(static_cast<float>(v));
    if (t == DType::f64) a.f64.push_back(v);
  }
  return a;
}

template <class T>
std::vector<uint64_t> Bits(const std::vector<T>& v) {
  std::vector<uint64_t> b;
  for (T x : v) {
    if constexpr (sizeof(T) == 4) {
      b.push_back(std::bit_cast<uint32_t>(x));
    } else {
      b.push_back(std::bit_cast<uint64_t>(x));
    }
  }
  return b;
}

TEST_F(Cli, ApplyForwardEveryFormAndDtypeMatchesLibraryBits) {
  for (DType t : {DType::f32, DType::f64}) {
    const Array x = MakeArray(t, {3, 5, 7}, 1);
    gelu::npy::Write(P("x.npy"), x);
    for (const char* form : kForms) {
      const Result r = Run({"apply", P("x.npy"), P("y.npy"), "--approximate", form});
      ASSERT_EQ(r.rc, 0) << r.err;
      EXPECT_TRUE(r.out.empty() && r.err.empty());
      const Array y = gelu::npy::Read(P("y.npy"));
      EXPECT_EQ(y.dtype, t);
      EXPECT_EQ(y.shape, x.shape);
      const auto a = static_cast<gelu::Approximation>(Form(form));
      if (t == DType::f32) {
        std::vector<float> want(x.f32.size());
        gelu::forward(x.f32, want, a);
        EXPECT_EQ(Bits(y.f32), Bits(want)) << form;
      } else {
        std::vector<double> want(x.f64.size());
        gelu::forward(x.f64, want, a);
        EXPECT_EQ(Bits(y.f64), Bits(want)) << form;
      }
    }
  }
}

TEST_F(Cli, ApplyBackwardMatchesLibraryBits) {
  const Array x = MakeArray(DType::f32, {64}, 2), g = MakeArray(DType::f32, {64}, 3);
  gelu::npy::Write(P("x.npy"), x);
  gelu::npy::Write(P("g.npy"), g);
  const Result r = Run({"apply", P("x.npy"), P("dx.npy"), "--backward", P("g.npy"), "-a", "tanh"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::vector<float> want(64);
  gelu::backward(g.f32, x.f32, want, gelu::Approximation::tanh);
  EXPECT_EQ(Bits(gelu::npy::Read(P("dx.npy")).f32), Bits(want));
  // OUT may be GRAD itself.
  ASSERT_EQ(Run({"apply", P("x.npy"), P("g.npy"), "--backward", P("g.npy"), "-a", "tanh"}).rc, 0);
  EXPECT_EQ(Bits(gelu::npy::Read(P("g.npy")).f32), Bits(want));
}

TEST_F(Cli, ApplyFloat16MatchesLibraryBits) {
  // Every one of the 65,536 binary16 patterns, forward and backward (grad_out = 1.0 = 0x3c00), in a (256, 256) array.
  Array x;
  x.dtype = DType::f16;
  x.shape = {256, 256};
  for (uint32_t b = 0; b < 65536; ++b) x.f16.push_back(static_cast<uint16_t>(b));
  Array one = x;
  one.f16.assign(65536, 0x3c00);
  gelu::npy::Write(P("h.npy"), x);
  gelu::npy::Write(P("one.npy"), one);
  for (const char* form : kForms) {
    const auto a = static_cast<gelu_approximate>(Form(form));
    std::vector<uint16_t> want(65536), want_grad(65536);
    ASSERT_EQ(gelu_forward_f16(x.f16.data(), want.data(), want.size(), a), GELU_OK);
    ASSERT_EQ(gelu_backward_f16(one.f16.data(), x.f16.data(), want_grad.data(), want.size(), a), GELU_OK);
    Result r = Run({"apply", P("h.npy"), P("y.npy"), "-a", form});
    ASSERT_EQ(r.rc, 0) << r.err;
    const Array y = gelu::npy::Read(P("y.npy"));
    EXPECT_EQ(y.dtype, DType::f16);
    EXPECT_EQ(y.shape, x.shape);
    EXPECT_EQ(y.f16, want) << form;
    r = Run({"apply", P("h.npy"), P("g.npy"), "-a", form, "--backward", P("one.npy")});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(gelu::npy::Read(P("g.npy")).f16, want_grad) << form;
  }
}

TEST_F(Cli, ApplyInPlaceAndThreadCountsAgree) {
  const Array x = MakeArray(DType::f64, {300000}, 4);  // large enough to be split over threads
  gelu::npy::Write(P("a.npy"), x);
  gelu::npy::Write(P("b.npy"), x);
  ASSERT_EQ(Run({"apply", P("a.npy"), P("a.npy"), "--threads", "1"}).rc, 0);
  ASSERT_EQ(Run({"apply", P("b.npy"), P("b.npy"), "--threads", "2"}).rc, 0);
  const Array a = gelu::npy::Read(P("a.npy")), b = gelu::npy::Read(P("b.npy"));
  EXPECT_EQ(Bits(a.f64), Bits(b.f64));
  std::vector<double> want(x.f64.size());
  gelu::forward(x.f64, want);
  EXPECT_EQ(Bits(a.f64), Bits(want));
  EXPECT_EQ(Listing(dir_), (std::vector<std::string>{"a.npy", "b.npy", "io"}));  // no temporaries left
}

TEST_F(Cli, ApplyZeroSizeAndZeroDimensional) {
  gelu::npy::Write(P("e.npy"), MakeArray(DType::f32, {3, 0}, 5));
  ASSERT_EQ(Run({"apply", P("e.npy"), P("e_out.npy")}).rc, 0);
  const Array e = gelu::npy::Read(P("e_out.npy"));
  EXPECT_EQ(e.shape, (std::vector<uint64_t>{3, 0}));
  EXPECT_EQ(e.size(), 0u);
  Array s;
  s.dtype = DType::f64;
  s.f64 = {1.0};
  gelu::npy::Write(P("s.npy"), s);
  ASSERT_EQ(Run({"apply", P("s.npy"), P("s_out.npy")}).rc, 0);
  const Array so = gelu::npy::Read(P("s_out.npy"));
  EXPECT_TRUE(so.shape.empty());
  EXPECT_EQ(so.f64, std::vector<double>{gelu::forward(1.0)});
}

TEST_F(Cli, ApplyBigEndianAndFortranOrder) {
  // '>f4' written by hand; shape (2, 3) in Fortran order.
  std::string header = "{'descr': '>f4', 'fortran_order': True, 'shape': (2, 3), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  const std::vector<float> v = {-2, -1, -0.5f, 0.5f, 1, 2};
  for (float f : v) {
    const uint32_t u = __builtin_bswap32(std::bit_cast<uint32_t>(f));
    file.append(reinterpret_cast<const char*>(&u), 4);
  }
  std::ofstream(P("be.npy"), std::ios::binary) << file;
  ASSERT_EQ(Run({"apply", P("be.npy"), P("le.npy")}).rc, 0);
  const Array y = gelu::npy::Read(P("le.npy"));
  EXPECT_TRUE(y.fortran_order);
  EXPECT_EQ(y.shape, (std::vector<uint64_t>{2, 3}));
  ASSERT_EQ(y.f32.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(y.f32[i], gelu::forward(v[i])) << i;
  EXPECT_NE(Slurp(P("le.npy")).find("'descr': '<f4'"), std::string::npos);
}

TEST_F(Cli, ApplyBadInputsLeaveOutputUntouched) {
  const std::string sentinel = "previous contents of OUT";
  const auto check = [&](const std::vector<std::string>& args, const std::string& needle) {
    std::ofstream(P("out.npy"), std::ios::binary) << sentinel;
    ExpectFailure(Run(args), needle);
    EXPECT_EQ(Slurp(P("out.npy")), sentinel) << needle;
  };
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(P(name), std::ios::binary) << bytes;
  };
  const std::string out = P("out.npy");
  check({"apply", P("missing.npy"), out}, "gelu apply: cannot open '" + P("missing.npy") + "': No such file or directory");
  check({"apply", dir_.string(), out}, "is a directory");
  write("text.npy", "x,y\n1,2\n");
  check({"apply", P("text.npy"), out}, "not a .npy file");
  // Refused from their first bytes: an endless stream, and a 64 GiB (sparse) file that is not .npy.
  check({"apply", "/dev/zero", out}, "gelu apply: '/dev/zero': not a .npy file");
  write("huge.csv", "x,y\n1,2\n");
  fs::resize_file(P("huge.csv"), uint64_t{64} << 30);
  check({"apply", P("huge.csv"), out}, "not a .npy file");
  fs::remove(P("huge.csv"));
  const std::vector<std::byte> good = gelu::npy::Serialize(MakeArray(DType::f32, {4}, 6));
  const std::string g(reinterpret_cast<const char*>(good.data()), good.size());
  write("trunc_header.npy", g.substr(0, 50));
  check({"apply", P("trunc_header.npy"), out}, "truncated header");
  write("trunc_data.npy", g.substr(0, g.size() - 3));
  check({"apply", P("trunc_data.npy"), out}, "truncated data: shape (4,) of float32 needs 16 bytes but 13");
  write("lying.npy", g + "extra");
  check({"apply", P("lying.npy"), out}, "header lies about the size");
  std::string big = g;
  big.replace(big.find("(4,)"), 4, "(9,)");
  write("lying2.npy", big);
  check({"apply", P("lying2.npy"), out}, "truncated data: shape (9,)");
  for (auto [descr, needle] : {std::pair{"<i4", "(int32)"}, {"|O", "(Python object)"}, {"<c8", "(complex64)"},
                               {"<u4", "(uint32)"}, {"|b1", "(bool)"}}) {
    std::string bad = g;
    bad.replace(bad.find("<f4"), 3, descr);
    if (std::string(descr).size() == 2) bad.insert(bad.find("'fortran_order'"), " ");  // keep header length
    write("dtype.npy", bad);
    check({"apply", P("dtype.npy"), out}, needle);
  }
  std::string structured = "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }";
  structured.append(128 - 10 - structured.size() - 1, ' ');
  write("structured.npy", g.substr(0, 10) + structured + "\n" + g.substr(128));
  check({"apply", P("structured.npy"), out}, "structured");
  // Nothing but the inputs, OUT and the helper directory: no temporary file survived a failure.
  for (const std::string& name : Listing(dir_)) EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
}

TEST_F(Cli, ApplyOutputDirectoryProblems) {
  gelu::npy::Write(P("x.npy"), MakeArray(DType::f32, {4}, 7));
  ExpectFailure(Run({"apply", P("x.npy"), P("no/such/dir/y.npy")}), "output directory '" + P("no/such/dir") + "'");
  std::ofstream(P("file")) << "x";
  ExpectFailure(Run({"apply", P("x.npy"), P("file/y.npy")}), "is not a directory");
  fs::create_directory(dir_ / "sub");
  ExpectFailure(Run({"apply", P("x.npy"), P("sub")}), "is a directory");
  // Unwritable: root ignores permission bits, so as root use sysfs, where no one may create files.
  std::string target = P("ro/y.npy");
  if (::geteuid() == 0) {
    target = "/sys/gelu-cli-test.npy";
  } else {
    fs::create_directory(dir_ / "ro");
    fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  }
  ExpectFailure(Run({"apply", P("x.npy"), target}), "Permission denied");
  EXPECT_FALSE(fs::exists(target));
  std::error_code ec;
  fs::permissions(dir_ / "ro", fs::perms::owner_all, ec);
  EXPECT_TRUE(fs::is_empty(dir_ / "sub"));
}

// OUT is replaced by a rename: never a device, FIFO or socket (as root `gelu apply x.npy /dev/null` would replace
// the device node); a symbolic link is followed and the file it names replaced.
TEST_F(Cli, ApplyOutputSpecialFilesAndLinks) {
  gelu::npy::Write(P("x.npy"), MakeArray(DType::f32, {4}, 7));
  ASSERT_EQ(::mkfifo(P("fifo").c_str(), 0644), 0);
  ExpectFailure(Run({"apply", P("x.npy"), P("fifo")}), "it exists and is not a regular file");
  EXPECT_TRUE(fs::is_fifo(P("fifo")));
  // /dev/null: refused before anything is created in /dev (the check does not depend on permissions).
  ExpectFailure(Run({"apply", P("x.npy"), "/dev/null"}), "'/dev/null': it exists and is not a regular file");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  std::ofstream(P("target.npy")) << "old";
  fs::create_directory(dir_ / "links");
  fs::create_symlink(P("target.npy"), dir_ / "links" / "y.npy");
  ASSERT_EQ(Run({"apply", P("x.npy"), P("links/y.npy")}).rc, 0);
  EXPECT_TRUE(fs::is_symlink(dir_ / "links" / "y.npy"));
  ASSERT_EQ(Run({"apply", P("x.npy"), P("direct.npy")}).rc, 0);
  EXPECT_EQ(Slurp(P("target.npy")), Slurp(P("direct.npy")));
  EXPECT_EQ(Listing(dir_ / "links"), std::vector<std::string>{"y.npy"});  // no temporary file in the link's directory
  // An OUT name of 254 bytes, legal, longer than the temporary name's room.
  const std::string long_name = std::string(250, 'y') + ".npy";
  ASSERT_EQ(Run({"apply", P("x.npy"), P(long_name)}).rc, 0);
  EXPECT_EQ(Slurp(P(long_name)), Slurp(P("direct.npy")));
  fs::create_symlink(P("missing.npy"), dir_ / "dangling.npy");
  ExpectFailure(Run({"apply", P("x.npy"), P("dangling.npy")}), "a symbolic link whose target cannot be resolved");
  EXPECT_FALSE(fs::exists(P("missing.npy")));
}

// Past a file-size limit (ulimit -f) the write fails with EFBIG and is reported like any failed write, OUT
// untouched and no temporary file left (not SIGXFSZ killing gelu mid-write). The limit is inherited from this
// process, which ignores SIGXFSZ meanwhile and writes nothing large.
TEST_F(Cli, ApplyPastTheFileSizeLimit) {
  gelu::npy::Write(P("x.npy"), MakeArray(DType::f32, {1 << 16}, 8));
  std::ofstream(P("out.npy")) << "previous";
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  struct rlimit small = old;
  small.rlim_cur = 64 << 10;  // 64 KiB: OUT needs 256 KiB
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Result r = Run({"apply", P("x.npy"), P("out.npy")});
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  ExpectFailure(r, "write failed: File too large");
  EXPECT_EQ(Slurp(P("out.npy")), "previous");
  for (const std::string& name : Listing(dir_)) EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
}

// SIGTERM (or Ctrl-C) while OUT's temporary file is being written removes it: the process ends by the signal, and
// neither OUT nor a hidden partial file is left. Deterministic: gelu is stopped (SIGSTOP) as soon as the temporary
// file appears and, if it still exists then, is mid-write; the signal is sent while it is stopped and acts on
// SIGCONT. (The write of 64 MiB takes tens of milliseconds, the watch reacts within ~100 us; a run that had
// already renamed is retried.)
TEST_F(Cli, ApplySignalledMidWriteLeavesNothing) {
  fs::create_directory(dir_ / "in");
  fs::create_directory(dir_ / "out");
  gelu::npy::Write(P("in/x.npy"), MakeArray(DType::f32, {uint64_t{1} << 24}, 9));
  std::ofstream(P("io/stdin")).close();
  const auto temporary = [&] {
    for (const auto& e : fs::directory_iterator(dir_ / "out")) {
      if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
    }
    return false;
  };
  for (int sig : {SIGTERM, SIGINT}) {
    bool tested = false;
    for (int attempt = 0; attempt < 5 && !tested; ++attempt) {
      fs::remove_all(dir_ / "out");
      fs::create_directory(dir_ / "out");
      const pid_t pid = Start({"apply", P("in/x.npy"), P("out/y.npy")}, P("io/stdin"), Stdout::kFile);
      ASSERT_GT(pid, 0);
      bool seen = false;
      for (int i = 0; i < 300000 && !seen; ++i) {  // up to ~30 s to read and compute
        seen = temporary();
        if (!seen) ::usleep(100);
      }
      ASSERT_TRUE(seen) << "no temporary file appeared";
      ASSERT_EQ(::kill(pid, SIGSTOP), 0);
      ::usleep(10000);  // let the stop take effect
      tested = temporary();  // still there: stopped before the rename
      if (tested) ASSERT_EQ(::kill(pid, sig), 0);
      ASSERT_EQ(::kill(pid, SIGCONT), 0);
      const Result r = Wait(pid);
      if (!tested) continue;
      EXPECT_EQ(r.rc, 128 + sig) << r.err;
      EXPECT_TRUE(fs::is_empty(dir_ / "out")) << "left behind: " << Listing(dir_ / "out")[0];
    }
    EXPECT_TRUE(tested) << "every run renamed before it could be stopped";
  }
}

TEST_F(Cli, ApplyGradMismatches) {
  gelu::npy::Write(P("x.npy"), MakeArray(DType::f32, {2, 3}, 8));
  gelu::npy::Write(P("g_shape.npy"), MakeArray(DType::f32, {3, 2}, 9));
  gelu::npy::Write(P("g_dtype.npy"), MakeArray(DType::f64, {2, 3}, 9));
  Array f = MakeArray(DType::f32, {2, 3}, 9);
  f.fortran_order = true;
  gelu::npy::Write(P("g_order.npy"), f);
  ExpectFailure(Run({"apply", P("x.npy"), P("y.npy"), "--backward", P("g_shape.npy")}),
                "has shape (3, 2) but IN '" + P("x.npy") + "' has shape (2, 3)");
  ExpectFailure(Run({"apply", P("x.npy"), P("y.npy"), "--backward", P("g_dtype.npy")}), "is float64 but IN");
  ExpectFailure(Run({"apply", P("x.npy"), P("y.npy"), "--backward", P("g_order.npy")}), "Fortran order");
  ExpectFailure(Run({"apply", P("x.npy"), P("y.npy"), "--backward", P("missing.npy")}), "cannot open");
  EXPECT_FALSE(fs::exists(P("y.npy")));
  ExpectFailure(Run({"apply", P("x.npy"), P("y.npy"), "--threads", "-1"}), "--threads must be >= 0");
  const Result all = Run({"apply", P("x.npy"), P("y.npy"), "--approximate", "all"});  // a usage error (CLI11)
  EXPECT_NE(all.rc, 0);
  std::string forms;  // CLI11's set of the choices: {none,tanh,sigmoid}
  for (int f = 0; f < gelu::common::kNumForms; ++f) forms += (f ? "," : "") + std::string(gelu::common::kFormNames[f]);
  EXPECT_NE(all.err.find("--approximate: all not in {" + forms + "}"), std::string::npos) << all.err;
  EXPECT_TRUE(all.out.empty()) << all.out;
  EXPECT_FALSE(fs::exists(P("y.npy")));
}

TEST_F(Cli, ApplyVerbose) {
  gelu::npy::Write(P("x.npy"), MakeArray(DType::f64, {2, 2}, 10));
  const Result r = Run({"apply", "-v", P("x.npy"), P("y.npy")});
  ASSERT_EQ(r.rc, 0);
  EXPECT_NE(r.err.find("float64 (2, 2) C order, 4 elements, forward none"), std::string::npos) << r.err;
}

// ------------------------------------------------------------------------------------------ accuracy

TEST_F(Cli, AccuracySampleHoldsTheClaimsAndShowsTheNaiveTail) {
  const Result r = Run({"accuracy", "--format", "csv"});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const auto rows = Csv(r.out);
  ASSERT_EQ(rows.size(), 1u + 4 * gelu::common::kNumForms);  // forward and backward, ours and naive, every form
  ASSERT_EQ(rows[0][0], "function");
  for (size_t i = 1; i < rows.size(); ++i) {
    const bool naive = rows[i][1] == "naive";
    EXPECT_EQ(rows[i].back(), naive ? "-" : "PASS") << rows[i][0];
    EXPECT_GT(std::stoull(rows[i][2]), 2000000u);
    if (!naive) EXPECT_LE(std::stod(rows[i][3]), rows[i][0] == "forward none" ? 1.0 : 2.0) << rows[i][0];
  }
  // The textbook 0.5f*x*(1+erff(x/sqrt2)) returns 0 in the negative tail: millions of ULP.
  ASSERT_EQ(rows[2][0], "forward none");
  ASSERT_EQ(rows[2][1], "naive");
  EXPECT_GT(std::stod(rows[2][3]), 1e6);
}

TEST_F(Cli, AccuracyTableAndJson) {
  const Result t = Run({"accuracy", "-a", "sigmoid"});
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("forward sigmoid"), std::string::npos);
  EXPECT_NE(t.out.find("every claim holds (PASS)"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("forward none"), std::string::npos);
  const Result j = Run({"accuracy", "-a", "none", "--format", "json"});
  ASSERT_EQ(j.rc, 0) << j.err;
  EXPECT_NE(j.out.find("\"pass\": true"), std::string::npos);
  EXPECT_NE(j.out.find("\"function\": \"backward none\", \"implementation\": \"gelu\""), std::string::npos);
}

TEST_F(Cli, AccuracyExhaustiveOverARangeAroundTheRoot) {
  // bits 0xbf400000 = -0.75: 2^17 consecutive floats below it cover the root of f' (-0.7518).
  const Result r = Run({"accuracy", "--exhaustive", "--range", "0xbf400000:0xbf41ffff", "--format", "csv"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("100.0%"), std::string::npos) << r.err;  // progress lines (not a terminal: one per 5%)
  const auto rows = Csv(r.out);
  ASSERT_EQ(rows.size(), 1u + 4 * gelu::common::kNumForms);
  EXPECT_EQ(rows[1][2], "131072");
  const size_t backward_none = 1 + 2 * gelu::common::kNumForms;  // after every form's forward rows
  ASSERT_EQ(rows[backward_none][0], "backward none");
  EXPECT_GT(std::stod(rows[backward_none][8]), 0.0);  // near-root absolute error measured
  EXPECT_LE(std::stod(rows[backward_none][8]), 0x1p-24);
}

TEST_F(Cli, AccuracyBadArguments) {
  ExpectFailure(Run({"accuracy", "--exhaustive", "--range", "16:32", "--threads", "-2"}), "--threads must be >= 0");
  ExpectFailure(Run({"accuracy", "--exhaustive", "--range", "12"}), "--range must be LO:HI");
  ExpectFailure(Run({"accuracy", "--exhaustive", "--range", "0x10:zz"}), "--range must be LO:HI");
  ExpectFailure(Run({"accuracy", "--exhaustive", "--range", "9:3"}), "LO <= HI");
  ExpectFailure(Run({"accuracy", "--range", "1:3"}), "--range needs --exhaustive");
}

// --------------------------------------------------------------------------------------------- bench

TEST_F(Cli, BenchCsvHasEveryCase) {
  const Result r = Run({"bench", "--sizes", "4096", "--threads", "1", "--repeats", "1", "--dtype", "float32",
                        "--format", "csv"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto rows = Csv(r.out);
  ASSERT_EQ(rows.size(), 1u + 3 + 2 * gelu::common::kNumForms);  // copy, naive forward and backward, every form
  EXPECT_EQ(rows[1][0], "copy");
  EXPECT_EQ(rows[2][0], "naive forward");
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][3], "4096");
    EXPECT_GT(std::stod(rows[i][6]), 0.0) << rows[i][0];  // Gelem/s
    EXPECT_GT(std::stod(rows[i][7]), 0.0) << rows[i][0];  // GB/s
  }
  EXPECT_EQ(rows[1][8], "1.000");  // copy vs copy
}

TEST_F(Cli, BenchTableAndJson) {
  const Result t = Run({"bench", "--sizes", "1000", "--threads", "1", "--repeats", "1", "-a", "tanh"});
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("forward         tanh"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("Method: "), std::string::npos);
  const Result j = Run({"bench", "--sizes", "1000", "--threads", "1", "2", "--repeats", "1", "--dtype", "float64",
                        "-a", "sigmoid", "--format", "json"});
  ASSERT_EQ(j.rc, 0) << j.err;
  size_t rows = 0;
  for (size_t p = 0; (p = j.out.find("\"function\"", p)) != std::string::npos; ++p) ++rows;
  EXPECT_EQ(rows, 2u * 5u);
}

TEST_F(Cli, BenchBadArguments) {
  ExpectFailure(Run({"bench", "--sizes", "0"}), "size 0 out of range [1, 2^32]");
  ExpectFailure(Run({"bench", "--sizes", "-5"}), "size -5 out of range [1, 2^32]");
  ExpectFailure(Run({"bench", "--sizes", "4294967297"}), "size 4294967297 out of range");
  for (const char* repeats : {"0", "-1"}) {
    const Result r = Run({"bench", "--sizes", "100", "--repeats", repeats});
    EXPECT_EQ(r.rc, 105) << repeats;  // CLI11's ValidationError
    EXPECT_NE(r.err.find("--repeats: Value " + std::string(repeats) + " not in range 1"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  ExpectFailure(Run({"bench", "--sizes", "100", "--threads", "0"}), "--threads values must be >= 1");
}

// ---------------------------------------------------------------------------------------- plot, report

TEST_F(Cli, PlotWritesPngAndSvg) {
  const Result r = Run({"plot", "-o", P("figs")});
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* name : {"gelu_vs_relu", "gelu_approx_error"}) {
    const std::string png = Slurp(dir_ / "figs" / (std::string(name) + ".png"));
    const std::string svg = Slurp(dir_ / "figs" / (std::string(name) + ".svg"));
    EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n") << name;
    EXPECT_GT(png.size(), 20000u) << name;
    EXPECT_NE(svg.find("<svg"), std::string::npos) << name;
    EXPECT_NE(r.out.find(std::string(name) + ".svg"), std::string::npos);
  }
  EXPECT_NE(Slurp(dir_ / "figs" / "gelu_vs_relu.svg").find("Leaky ReLU (slope 0.1)"), std::string::npos);
  EXPECT_EQ(Listing(dir_ / "figs").size(), 4u);
}

TEST_F(Cli, PlotWithoutPythonOrMatplotlib) {
  ExpectFailure(Run({"plot", "-o", P("figs"), "--python", "/nonexistent/python3"}),
                "cannot run '/nonexistent/python3': No such file or directory; gelu plot needs Python 3 with matplotlib");
  // A matplotlib that cannot be imported, first on PYTHONPATH.
  fs::create_directories(dir_ / "fake" / "matplotlib");
  std::ofstream(dir_ / "fake" / "matplotlib" / "__init__.py") << "raise ImportError('simulated')\n";
  const Result r = Run({"plot", "-o", P("figs")}, "", {"PYTHONPATH=" + P("fake")});
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("matplotlib is not installed"), std::string::npos) << r.err;  // the script's line
  EXPECT_NE(r.err.find("matplotlib is missing"), std::string::npos) << r.err;        // gelu's line
  EXPECT_FALSE(fs::exists(dir_ / "figs" / "gelu_vs_relu.png"));
}

// $GELU_PYTHON is the default interpreter of plot and report (the wheel's `gelu` entry point sets it); --python wins.
TEST_F(Cli, PlotAndReportTakeTheirPythonFromGeluPython) {
  for (const char* sub : {"plot", "report"}) {
    const Result help = Run({sub, "--help"}, "", {"GELU_PYTHON=/opt/some/python"});
    EXPECT_NE(help.out.find("--python TEXT=/opt/some/python"), std::string::npos) << sub << help.out;
  }
  ExpectFailure(Run({"plot", "-o", P("figs")}, "", {"GELU_PYTHON=/nonexistent/gelu-python"}),
                "cannot run '/nonexistent/gelu-python': No such file or directory");
  const Result r = Run({"plot", "-o", P("figs"), "--python", "/nonexistent/python3"}, "",
                       {"GELU_PYTHON=/nonexistent/gelu-python"});
  EXPECT_NE(r.err.find("cannot run '/nonexistent/python3'"), std::string::npos) << r.err;
}

TEST_F(Cli, PlotBadOutputDirectory) {
  std::ofstream(P("file")) << "x";
  ExpectFailure(Run({"plot", "-o", P("file")}), "cannot create output directory");
  ExpectFailure(Run({"plot", "-o", P("figs"), "--leaky-slope", "2"}), "--leaky-slope must be in (0, 1)");
  ExpectFailure(Run({"plot", "-o", P("figs"), "--leaky-slope", "nan"}), "--leaky-slope must be in (0, 1)");
}

// A plotting script that fails part way, or that leaves a figure out, changes nothing in OUTDIR: the figures are
// drawn into a temporary directory and replace OUTDIR's only once all of them exist. The stand-in interpreter
// writes into the --outdir it is given, as scripts/plot_gelu.py does.
TEST_F(Cli, PlotThatFailsChangesNothing) {
  const std::vector<std::string> figures = {"gelu_approx_error.png", "gelu_approx_error.svg", "gelu_vs_relu.png",
                                            "gelu_vs_relu.svg"};
  fs::create_directories(dir_ / "figs");
  for (const std::string& f : figures) std::ofstream(dir_ / "figs" / f) << "old " << f;
  const auto fake_python = [&](const std::string& name, const std::string& draw) { return FakePython(name, draw); };
  const auto unchanged = [&] {
    EXPECT_EQ(Listing(dir_ / "figs"), figures);  // no temporary left either
    for (const std::string& f : figures) EXPECT_EQ(Slurp(dir_ / "figs" / f), "old " + f);
  };
  // The first figure written, then the script fails.
  const std::string failing = fake_python("failing", "echo partial > \"$out/gelu_vs_relu.png\"\nexit 1\n");
  ExpectFailure(Run({"plot", "-o", P("figs"), "--python", failing}), "failed with exit status 1");
  unchanged();
  // Exit status 0, one figure missing.
  const std::string partial = fake_python(
      "partial", "for f in gelu_vs_relu.png gelu_vs_relu.svg gelu_approx_error.png; do echo new > \"$out/$f\"; done\n");
  ExpectFailure(Run({"plot", "-o", P("figs"), "--python", partial}),
                "the script did not write gelu_approx_error.svg (nothing in '" + P("figs") + "' was changed)");
  unchanged();
  // A directory where a figure goes is refused, not replaced.
  fs::remove(dir_ / "figs" / "gelu_vs_relu.svg");
  fs::create_directory(dir_ / "figs" / "gelu_vs_relu.svg");
  const std::string complete = fake_python(
      "complete", "for f in gelu_vs_relu.png gelu_vs_relu.svg gelu_approx_error.png gelu_approx_error.svg; do "
                  "echo new > \"$out/$f\"; done\n");
  ExpectFailure(Run({"plot", "-o", P("figs"), "--python", complete}),
                "cannot write '" + P("figs") + "/gelu_vs_relu.svg': it is a directory");
  EXPECT_TRUE(fs::is_directory(dir_ / "figs" / "gelu_vs_relu.svg"));
  for (const std::string& f : figures) {  // refused before any figure was replaced, even those listed before it
    if (f != "gelu_vs_relu.svg") EXPECT_EQ(Slurp(dir_ / "figs" / f), "old " + f) << f;
  }
  // And the same script with the way clear replaces every figure.
  fs::remove(dir_ / "figs" / "gelu_vs_relu.svg");
  const Result r = Run({"plot", "-o", P("figs"), "--python", complete});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(Listing(dir_ / "figs"), figures);
  for (const std::string& f : figures) EXPECT_EQ(Slurp(dir_ / "figs" / f), "new\n") << f;
}

// SIGTERM (kill) or SIGINT (Ctrl-C) while the script draws stops the script and removes the temporary directory
// it draws into: gelu ends by the signal, nothing is left in TMPDIR, OUTDIR is untouched, and the script is gone
// (killed and reaped, not left running or a zombie). The stand-in interpreter writes one figure, says it started
// (its pid, renamed into place whole) and sleeps; the signal goes to gelu only, as `kill` sends it.
TEST_F(Cli, PlotSignalledWhileDrawingLeavesNothing) {
  const fs::path script = dir_ / "sleeping";
  std::ofstream(script) << "#!/bin/sh\n"
                           "while [ $# -gt 0 ]; do [ \"$1\" = --outdir ] && out=$2; shift; done\n"
                           "mkdir -p \"$out\" && echo partial > \"$out/gelu_vs_relu.png\"\n"
                           "echo $$ > \"" << (dir_ / "started.tmp").string() << "\"\n"
                           "mv \"" << (dir_ / "started.tmp").string() << "\" \"" << (dir_ / "started").string()
                        << "\"\n"
                           "exec sleep 60\n";
  fs::permissions(script, fs::perms::owner_all);
  std::ofstream(P("io/stdin")).close();
  for (int sig : {SIGTERM, SIGINT}) {
    fs::remove_all(dir_ / "tmp");
    fs::create_directory(dir_ / "tmp");
    fs::remove(dir_ / "started");
    pid_t pid = Start({"plot", "-o", P("figs"), "--python", script.string()}, P("io/stdin"), Stdout::kFile,
                      {"TMPDIR=" + P("tmp")});
    ASSERT_GT(pid, 0);
    pid_t child = 0;
    // Whatever fails below, neither gelu nor the script is left running (the script only while it is the sleep).
    const auto sleeping = [](pid_t p) { return p > 0 && Slurp("/proc/" + std::to_string(p) + "/comm") == "sleep\n"; };
    struct Reaper {
      std::function<void()> f;
      ~Reaper() { f(); }
    } reaper{[&] {
      if (pid > 0) ::kill(pid, SIGKILL), ::waitpid(pid, nullptr, 0);
      if (sleeping(child)) ::kill(child, SIGKILL);
    }};
    for (int i = 0; i < 3000 && !fs::exists(dir_ / "started"); ++i) ::usleep(10000);  // up to 30 s
    ASSERT_TRUE(fs::exists(dir_ / "started")) << "the script did not start";
    ASSERT_FALSE(fs::is_empty(dir_ / "tmp"));  // the temporary directory, with the script's figure in it
    child = std::stoi(Slurp(dir_ / "started"));
    ASSERT_EQ(::kill(pid, sig), 0);
    const Result r = Wait(pid);
    pid = 0;
    EXPECT_EQ(r.rc, 128 + sig) << r.err;
    EXPECT_TRUE(fs::is_empty(dir_ / "tmp")) << "left behind: " << Listing(dir_ / "tmp")[0];
    EXPECT_FALSE(fs::exists(dir_ / "figs" / "gelu_vs_relu.png"));
    EXPECT_FALSE(sleeping(child)) << "the script (pid " << child << ") outlived gelu";
  }
}

TEST_F(Cli, ReportStatesTheCorrectFactsAndWritesEverything) {
  const Result r = Run({"report", "-o", P("report"), "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.err;
  // x* = -0.7517915246935644..., f(x*) = -0.1699712074799036... (mpmath, 30 digits)
  const size_t at = r.out.find("x* = ");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NEAR(std::stod(r.out.substr(at + 5, 14)), -0.7517915247, 1e-10);
  const size_t fat = r.out.find("f(x*) = ");
  ASSERT_NE(fat, std::string::npos);
  EXPECT_NEAR(std::stod(r.out.substr(fat + 8, 14)), -0.1699712075, 1e-9);
  EXPECT_NE(r.out.find("f(0) = 0, f'(0) = Phi(0) = 0.5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the gradient IS zero at x*"), std::string::npos);
  EXPECT_NE(r.out.find("f(x) - x -> 0 as x -> +inf and f(x) -> 0 as x -> -inf"), std::string::npos);
  EXPECT_NE(r.out.find("every claim holds (PASS)"), std::string::npos);
  EXPECT_NE(r.out.find("forward none"), std::string::npos);
  EXPECT_NE(r.out.find("x copy)"), std::string::npos);  // the quick benchmark's summary
  for (const char* f : {"report.md", "gelu_vs_relu.png", "gelu_vs_relu.svg", "gelu_approx_error.png",
                        "gelu_approx_error.svg"}) {
    EXPECT_TRUE(fs::is_regular_file(dir_ / "report" / f)) << f;
  }
  const std::string md = Slurp(dir_ / "report" / "report.md");
  EXPECT_NE(md.find("## Facts"), std::string::npos);
  EXPECT_NE(md.find("![GELU vs ReLU vs Leaky ReLU](gelu_vs_relu.png)"), std::string::npos);
}

// A run that fails after the report's sections, in its figure step, leaves the previous report in DIR as it was:
// report.md and every figure byte for byte, nothing added (no temporary file), nothing left in TMPDIR; one line
// on stderr, a non-zero status, and no "Report written" or figure list on stdout (the sections before the
// failure are printed as each finishes). Here the plotting script draws one figure and fails.
TEST_F(Cli, ReportWhoseScriptFailsKeepsThePreviousReport) {
  const Result first = Run({"report", "-o", P("rep"), "--no-progress"});
  ASSERT_EQ(first.rc, 0) << first.err;
  const std::map<std::string, std::string> before = Snapshot(dir_ / "rep");
  ASSERT_EQ(before.size(), 5u);
  fs::create_directory(dir_ / "tmp");
  const std::string failing = FakePython("failing", "echo partial > \"$out/gelu_vs_relu.png\"\nexit 1\n");
  const Result r = Run({"report", "-o", P("rep"), "--no-progress", "--python", failing}, "", {"TMPDIR=" + P("tmp")});
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(r.err.starts_with("gelu report: '" + failing + " ")) << r.err;
  EXPECT_TRUE(r.err.ends_with("/plot_gelu.py' failed with exit status 1\n")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.out.find("== Speed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("== Figures"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Report written"), std::string::npos) << r.out;
  ExpectUnchanged(dir_ / "rep", before);
  EXPECT_TRUE(fs::is_empty(dir_ / "tmp"));
}

// The same when writing the new files fails part way: the script draws every figure, the last one (8 MiB) past a
// file-size limit of 4 MiB that the script lifts for itself (ulimit -S, the soft limit) but gelu keeps. Writing
// that figure fails with EFBIG after the three before it were written; none of them, nor report.md, replaces the
// previous report's file.
TEST_F(Cli, ReportWhoseFigureCannotBeWrittenKeepsThePreviousReport) {
  const Result first = Run({"report", "-o", P("rep"), "--no-progress"});
  ASSERT_EQ(first.rc, 0) << first.err;
  const std::map<std::string, std::string> before = Snapshot(dir_ / "rep");
  ASSERT_EQ(before.size(), 5u);
  fs::create_directory(dir_ / "tmp");
  const std::string large = FakePython(
      "large", "ulimit -S -f unlimited\n"
               "for f in gelu_vs_relu.png gelu_vs_relu.svg gelu_approx_error.png; do echo new > \"$out/$f\"; done\n"
               "head -c 8388608 /dev/zero > \"$out/gelu_approx_error.svg\"\n");
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  struct rlimit small = old;
  small.rlim_cur = 4 << 20;
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Result r = Run({"report", "-o", P("rep"), "--no-progress", "--python", large}, "", {"TMPDIR=" + P("tmp")});
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(r.rc, 0);
  EXPECT_EQ(r.err,
            "gelu report: cannot write '" + P("rep") + "/gelu_approx_error.svg': write failed: File too large\n");
  EXPECT_EQ(r.out.find("== Figures"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Report written"), std::string::npos) << r.out;
  ExpectUnchanged(dir_ / "rep", before);
  EXPECT_TRUE(fs::is_empty(dir_ / "tmp"));
  // And with the limit gone the same script replaces every file of the report.
  const Result again = Run({"report", "-o", P("rep"), "--no-progress", "--python", large});
  ASSERT_EQ(again.rc, 0) << again.err;
  const std::map<std::string, std::string> after = Snapshot(dir_ / "rep");
  ASSERT_EQ(after.size(), 5u);
  EXPECT_EQ(after.at("gelu_vs_relu.png"), "new\n");
  EXPECT_EQ(after.at("gelu_approx_error.svg"), std::string(8 << 20, '\0'));
  EXPECT_NE(after.at("report.md"), before.at("report.md"));  // the timings differ from run to run
}

// A destination that cannot be replaced (a directory where report.md goes) is refused before the first section:
// nothing on stdout, the figures there untouched.
TEST_F(Cli, ReportRefusesADestinationBeforeAnySection) {
  fs::create_directories(dir_ / "rep" / "report.md");
  for (const char* f : {"gelu_vs_relu.png", "gelu_vs_relu.svg", "gelu_approx_error.png", "gelu_approx_error.svg"}) {
    std::ofstream(dir_ / "rep" / f) << "old " << f;
  }
  const std::map<std::string, std::string> before = Snapshot(dir_ / "rep");
  ExpectFailure(Run({"report", "-o", P("rep"), "--no-progress"}),
                "cannot write '" + P("rep") + "/report.md': it is a directory");
  ExpectUnchanged(dir_ / "rep", before);
}

TEST_F(Cli, ReportBadOutputDirectory) {
  std::ofstream(P("file")) << "x";
  ExpectFailure(Run({"report", "-o", P("file/sub")}), "cannot create output directory");
}

// A bad --python fails before the first section is printed (ExpectFailure: nothing on stdout).
TEST_F(Cli, ReportWithoutPythonPrintsNothing) {
  ExpectFailure(Run({"report", "-o", P("rep"), "--python", "/nonexistent/python3"}),
                "cannot run '/nonexistent/python3': No such file or directory");
  EXPECT_FALSE(fs::exists(dir_ / "rep" / "report.md"));
}

}  // namespace
