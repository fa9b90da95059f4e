// SPDX-License-Identifier: Apache-2.0
// docs/exhaustive_maxima.md, the one place the exhaustive float32 maxima are written down: the exhaustive test
// (gelu_exhaustive_test.cc) formats its per-target, per-function table with FormatRow, then either compares it with
// the file's rows for the targets it swept (Differences) or, with GELU_WRITE_EXHAUSTIVE_MAXIMA=1, replaces those
// rows (Replace) and writes the file again (Render), keeping the rows of targets it did not sweep. The line naming
// the CPU a target's rows came from is kept apart from the rows and never compared. Header-only, no GoogleTest:
// exhaustive_maxima_test.cc tests it on small inputs.
#ifndef GELU_TESTS_EXHAUSTIVE_MAXIMA_H_
#define GELU_TESTS_EXHAUSTIVE_MAXIMA_H_

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gelu::exhaustive {

// What the test writes above the rows, and what Parse skips (everything but the CPU and Sources lines and the rows).
inline constexpr const char* kHeader =
    "# Exhaustive float32 maxima\n"
    "\n"
    "Generated; do not edit. `tests/gelu_exhaustive_test.cc` (`GeluExhaustiveTest.F32AllInputsAllFunctionsAllTargets`,\n"
    "CTest label `exhaustive`, run by `scripts/test.sh`) sweeps all 2^32 float32 inputs on every target it is asked\n"
    "for and compares its table with the rows below for each target it swept: a difference fails the test. After a\n"
    "change that moves a maximum, regenerate the rows of the targets this machine sweeps (the rows of other targets\n"
    "are kept) and commit the file:\n"
    "\n"
    "    GELU_WRITE_EXHAUSTIVE_MAXIMA=1 build/tests/gelu_exhaustive_test --gtest_filter='*AllTargets'\n"
    "\n"
    "Per target and function: the largest error in float32 ULP of the result against the double reference (outside\n"
    "the near-root window of a derivative), the input where it occurs (the smallest bit pattern on a tie), and for\n"
    "the derivatives the largest absolute error inside that window in units of 2^-24 (docs/ACCURACY.md defines both\n"
    "metrics and states the bounds the test holds them to). Backward rows are for grad_out = 1. The results are\n"
    "bit-deterministic per target, so the rows are exact; the CPU and Sources lines are not compared: a run whose\n"
    "rows all equal these records its CPU and the stamp of the sources it proved (`scripts/source_stamp.sh cpu`) for\n"
    "the targets it swept, and `scripts/proofs.py` states each target's proof current or stale from them.\n"
    "\n";
inline constexpr const char* kCpuPrefix = "- CPU of the ";
inline constexpr const char* kCpuInfix = " rows: ";
// The stamp of the sources a target's rows were proven on (scripts/source_stamp.sh cpu), written by a run that swept
// the target; scripts/proofs.py tells it current or stale.
inline constexpr const char* kSourcesPrefix = "- Sources of the ";
inline constexpr const char* kTableHead =
    "| target | function | max ULP | where (x) | near-root max abs err / 2^-24 |\n|---|---|---|---|---|\n";

// One row of the table. abs24 and abs_x only for derivatives.
inline std::string FormatRow(const std::string& target, const std::string& function, double ulp, float x,
                             bool derivative, double abs24, float abs_x) {
  char buf[256];
  int n = std::snprintf(buf, sizeof buf, "| %s | %s | %.4f | %a |", target.c_str(), function.c_str(), ulp,
                        static_cast<double>(x));
  if (derivative) {
    std::snprintf(buf + n, sizeof buf - n, " %.4f (x=%a) |", abs24, static_cast<double>(abs_x));
  } else {
    std::snprintf(buf + n, sizeof buf - n, " - |");
  }
  return buf;
}

struct Maxima {
  std::vector<std::string> order;                           // targets in the order of their rows
  std::map<std::string, std::vector<std::string>> rows;     // target -> its rows, in order
  std::map<std::string, std::string> cpus;                  // target -> the CPU its rows were produced on
  std::map<std::string, std::string> sources;               // target -> the stamp of the sources they were proven on
};

// The target named in a table row ("| AVX3 | ..."); "" for other lines (the header row, the separator, text).
inline std::string RowTarget(const std::string& line) {
  if (line.rfind("| ", 0) != 0) return "";
  const size_t end = line.find(" |", 2);
  if (end == std::string::npos) return "";
  const std::string t = line.substr(2, end - 2);
  return t == "target" || t.empty() || t[0] == '-' ? "" : t;
}

inline Maxima Parse(const std::string& text) {
  Maxima m;
  std::istringstream in(text);
  std::string line;
  const std::string infix = kCpuInfix;
  while (std::getline(in, line)) {
    for (const auto& [prefix, into] : {std::pair<std::string, std::map<std::string, std::string>*>{kCpuPrefix, &m.cpus},
                                       {kSourcesPrefix, &m.sources}}) {
      if (line.rfind(prefix, 0) != 0) continue;
      const size_t at = line.find(infix, prefix.size());
      if (at != std::string::npos) (*into)[line.substr(prefix.size(), at - prefix.size())] = line.substr(at + infix.size());
      line.clear();
    }
    if (line.empty()) continue;
    const std::string t = RowTarget(line);
    if (t.empty()) continue;
    if (m.rows.find(t) == m.rows.end()) m.order.push_back(t);
    m.rows[t].push_back(line);
  }
  return m;
}

// The file for m: the header, one CPU line per target that has one, the table.
inline std::string Render(const Maxima& m) {
  std::string s = kHeader;
  for (const std::string& t : m.order) {
    const auto cpu = m.cpus.find(t);
    if (cpu != m.cpus.end()) s += kCpuPrefix + t + kCpuInfix + cpu->second + "\n";
    const auto sources = m.sources.find(t);
    if (sources != m.sources.end()) s += kSourcesPrefix + t + kCpuInfix + sources->second + "\n";
  }
  s += "\n";
  s += kTableHead;
  for (const std::string& t : m.order) {
    for (const std::string& row : m.rows.at(t)) s += row + "\n";
  }
  return s;
}

// The differences between the file's rows for `target` and `rows` (what the test printed), one line each; "" when
// they are the same.
inline std::string Differences(const Maxima& m, const std::string& target, const std::vector<std::string>& rows) {
  const auto it = m.rows.find(target);
  if (it == m.rows.end()) return "no rows for " + target + " in the file\n";
  const std::vector<std::string>& have = it->second;
  std::string d;
  for (size_t i = 0; i < std::max(have.size(), rows.size()); ++i) {
    const std::string a = i < have.size() ? have[i] : "(none)", b = i < rows.size() ? rows[i] : "(none)";
    if (a != b) d += "  file: " + a + "\n  test: " + b + "\n";
  }
  return d;
}

// m with the rows, CPU and sources of `target` replaced (appended after the others if new).
inline void Replace(Maxima* m, const std::string& target, const std::vector<std::string>& rows,
                    const std::string& cpu, const std::string& sources = "") {
  if (m->rows.find(target) == m->rows.end()) m->order.push_back(target);
  m->rows[target] = rows;
  m->cpus[target] = cpu;
  if (sources.empty()) {
    m->sources.erase(target);
  } else {
    m->sources[target] = sources;
  }
}

// The file's targets that `swept` lacks, each as a line for the log: a runner that cannot sweep a target the file
// has rows for proves nothing about it, and says so ("AVX3: not swept here; its rows are from <CPU>, not proven by
// this run"); "" when every target of the file is swept.
inline std::string NotSwept(const Maxima& m, const std::vector<std::string>& swept) {
  std::string s;
  for (const std::string& t : m.order) {
    if (std::find(swept.begin(), swept.end(), t) != swept.end()) continue;
    const auto cpu = m.cpus.find(t);
    s += t + ": not swept here; its rows in docs/exhaustive_maxima.md are from " +
         (cpu == m.cpus.end() ? std::string("an unnamed CPU") : cpu->second) + ", not proven by this run\n";
  }
  return s;
}

}  // namespace gelu::exhaustive

#endif  // GELU_TESTS_EXHAUSTIVE_MAXIMA_H_
