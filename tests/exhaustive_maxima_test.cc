// SPDX-License-Identifier: Apache-2.0
// The bookkeeping of docs/exhaustive_maxima.md (tests/exhaustive_maxima.h) on small inputs, and the committed file
// in the form the exhaustive test writes (so a hand edit anywhere in it shows here, in the fast tests, and a
// changed row in the exhaustive test).
#include "tests/exhaustive_maxima.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace gelu::exhaustive {
namespace {

const std::vector<std::string> kAvx3 = {FormatRow("AVX3", "forward none", 0.91314, -0x1.eeaba4p+1f, false, 0, 0),
                                        FormatRow("AVX3", "backward none", 0.7447, -0x1.409ed4p-1f, true, 0.0021,
                                                  -0x1.7c52c8p-1f)};
const std::vector<std::string> kSse4 = {FormatRow("SSE4", "forward none", 0.9, 1.5f, false, 0, 0)};

Maxima Sample() {
  Maxima m;
  Replace(&m, "AVX3", kAvx3, "CPU one");
  Replace(&m, "SSE4", kSse4, "CPU two");
  return m;
}

TEST(ExhaustiveMaxima, RowFormat) {
  EXPECT_EQ(kAvx3[0], "| AVX3 | forward none | 0.9131 | -0x1.eeaba4p+1 | - |");
  EXPECT_EQ(kAvx3[1], "| AVX3 | backward none | 0.7447 | -0x1.409ed4p-1 | 0.0021 (x=-0x1.7c52c8p-1) |");
}

TEST(ExhaustiveMaxima, RenderThenParseGivesTheRowsAndCpus) {
  const Maxima m = Parse(Render(Sample()));
  EXPECT_EQ(m.order, (std::vector<std::string>{"AVX3", "SSE4"}));
  EXPECT_EQ(m.rows.at("AVX3"), kAvx3);
  EXPECT_EQ(m.rows.at("SSE4"), kSse4);
  EXPECT_EQ(m.cpus.at("AVX3"), "CPU one");
  EXPECT_EQ(Render(m), Render(Sample()));
}

TEST(ExhaustiveMaxima, DifferencesNameTheChangedRowOnly) {
  const Maxima m = Parse(Render(Sample()));
  EXPECT_EQ(Differences(m, "AVX3", kAvx3), "");
  std::vector<std::string> changed = kAvx3;
  changed[1] = FormatRow("AVX3", "backward none", 0.7448, -0x1.409ed4p-1f, true, 0.0021, -0x1.7c52c8p-1f);
  const std::string d = Differences(m, "AVX3", changed);
  EXPECT_NE(d.find("file: " + kAvx3[1]), std::string::npos) << d;
  EXPECT_NE(d.find("test: " + changed[1]), std::string::npos) << d;
  EXPECT_EQ(d.find(kAvx3[0]), std::string::npos) << d;
  EXPECT_NE(Differences(m, "AVX3", {kAvx3[0]}), "");  // a row missing
  EXPECT_NE(Differences(m, "AVX2", kAvx3), "");       // a target missing
}

TEST(ExhaustiveMaxima, TheCpuLineIsNotCompared) {
  Maxima m = Sample();
  m.cpus["AVX3"] = "another CPU";
  EXPECT_EQ(Differences(Parse(Render(m)), "AVX3", kAvx3), "");
}

TEST(ExhaustiveMaxima, ReplaceKeepsTheOtherTargets) {
  Maxima m = Parse(Render(Sample()));
  const std::vector<std::string> avx3 = {FormatRow("AVX3", "forward none", 0.5, 2.0f, false, 0, 0)};
  Replace(&m, "AVX3", avx3, "CPU three");
  Replace(&m, "AVX2", {FormatRow("AVX2", "forward none", 0.5, 2.0f, false, 0, 0)}, "CPU three");
  const Maxima back = Parse(Render(m));
  EXPECT_EQ(back.order, (std::vector<std::string>{"AVX3", "SSE4", "AVX2"}));
  EXPECT_EQ(back.rows.at("AVX3"), avx3);
  EXPECT_EQ(back.rows.at("SSE4"), kSse4);
  EXPECT_EQ(back.cpus.at("SSE4"), "CPU two");
  EXPECT_EQ(back.cpus.at("AVX3"), "CPU three");
}

// The committed file is exactly what the exhaustive test would write from its own rows: nothing was edited by hand.
TEST(ExhaustiveMaxima, SourcesLinesRoundTripAndReplaceTheirTarget) {
  Maxima m = Sample();
  Replace(&m, "AVX3", kAvx3, "CPU three", "cpu sources 0123456789abcdef");
  const std::string text = Render(m);
  EXPECT_NE(text.find("- Sources of the AVX3 rows: cpu sources 0123456789abcdef\n"), std::string::npos) << text;
  const Maxima back = Parse(text);
  EXPECT_EQ(back.sources.at("AVX3"), "cpu sources 0123456789abcdef");
  EXPECT_EQ(back.sources.count("SSE4"), 0u);
  EXPECT_EQ(back.cpus.at("AVX3"), "CPU three");
  EXPECT_EQ(back.rows.at("AVX3"), kAvx3);
  EXPECT_EQ(Render(back), text);
}

TEST(ExhaustiveMaxima, NotSweptNamesEachTargetOfTheFileMissingWithItsCpu) {
  const Maxima m = Sample();
  EXPECT_EQ(NotSwept(m, {"AVX3", "SSE4"}), "");
  EXPECT_EQ(NotSwept(m, {"SSE4", "AVX2"}),
            "AVX3: not swept here; its rows in docs/exhaustive_maxima.md are from CPU one, not proven by this run\n");
  EXPECT_EQ(NotSwept(m, {}),
            "AVX3: not swept here; its rows in docs/exhaustive_maxima.md are from CPU one, not proven by this run\n"
            "SSE4: not swept here; its rows in docs/exhaustive_maxima.md are from CPU two, not proven by this run\n");
}

TEST(ExhaustiveMaxima, CommittedFileIsInGeneratedForm) {
  std::ifstream in(GELU_SOURCE_DIR "/docs/exhaustive_maxima.md", std::ios::binary);
  ASSERT_TRUE(in) << GELU_SOURCE_DIR "/docs/exhaustive_maxima.md missing";
  std::stringstream text;
  text << in.rdbuf();
  const Maxima m = Parse(text.str());
  EXPECT_FALSE(m.order.empty());
  for (const std::string& t : m.order) EXPECT_EQ(m.cpus.count(t), 1u) << t << " has no CPU line";
  EXPECT_EQ(Render(m), text.str()) << "docs/exhaustive_maxima.md differs from its generated form; regenerate it with "
                                      "GELU_WRITE_EXHAUSTIVE_MAXIMA=1 build/tests/gelu_exhaustive_test";
}

}  // namespace
}  // namespace gelu::exhaustive
