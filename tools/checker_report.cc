// SPDX-License-Identifier: Apache-2.0
// The checker's report (tools/checker.h): the findings as a table, JSON or Markdown, and the SVG plot of the error
// against x.
#include "tools/checker.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tools/checker_plot_bins.h"
#include "tools/checker_types.h"
#include "tools/cli_helpers.h"

namespace gelu::check {
namespace {

std::string PlaceText(const Place& p, Type t) {
  if (p.index == UINT64_MAX) return "-";
  return fmt::format("{:.4g} at x = {} ({}): y = {}, reference {}", p.error, Hex(p.x), Dec(p.x, t), Dec(p.y, t),
                     Dec(p.r, t));
}
std::string ErrorText(double e) { return e == kInf ? "inf" : fmt::format("{:.4g}", e); }

std::string JsonPlace(const Place& p) {
  if (p.index == UINT64_MAX) return "null";
  return fmt::format("{{\"error\": {}, \"x\": {}, \"x_hex\": \"{}\", \"y\": {}, \"reference\": {}, \"index\": {}}}",
                     cli::JsonNumber(p.error), cli::JsonNumber(p.x), Hex(p.x), cli::JsonNumber(p.y),
                     cli::JsonNumber(p.r), p.index);
}

std::string JsonJudgement(const Judgement& j) {
  std::string s = fmt::format("{{\"max_error\": {}, \"regions\": {{", JsonPlace(j.worst));
  for (int k = 0; k < kNumRegions; ++k) {
    s += fmt::format("{}\"{}\": {{\"worst\": {}, \"histogram\": {{", k ? ", " : "", kRegionNames[k],
                     JsonPlace(j.region_worst[k]));
    for (int b = 0; b < kNumBins; ++b) s += fmt::format("{}\"{}\": {}", b ? ", " : "", kBinNames[b], j.histogram[k][b]);
    s += "}}";
  }
  s += fmt::format("}}, \"misrounded\": {}, \"profiles\": {{", j.profile_failures[kCorrectlyRounded]);
  for (int p = 0; p < kNumProfiles; ++p) {
    s += fmt::format("{}\"{}\": {{\"pass\": {}, \"failures\": {}, \"first\": {}}}", p ? ", " : "", kProfileNames[p],
                     j.Meets(static_cast<Profile>(p)) ? "true" : "false", j.profile_failures[p],
                     JsonPlace(j.profile_first[p]));
  }
  return s + "}}";
}

std::string CutoffText(double v, Type t) {
  return std::isnan(v) ? "none" : fmt::format("{} ({})", Hex(v), Dec(v, t));
}

}  // namespace

std::string FormatFindings(const Findings& f, ReportFormat format) {
  const bool same = f.spec.form == Approximation::none;
  const TypeInfo& info = Info(f.spec.type);
  if (format == ReportFormat::json) {
    std::string s = fmt::format(
        "{{\n  \"function\": \"{}\", \"inputs\": {}, \"coverage\": {}, \"seconds\": {:.3f},\n  \"own\": {},\n"
        "  \"exact\": {},\n  \"specials\": {{",
        Describe(f.spec), f.inputs, cli::JsonString(f.coverage), f.seconds, JsonJudgement(f.own),
        JsonJudgement(f.exact));
    for (int k = 0; k < kNumSpecials; ++k) {
      const Special& sp = f.specials[k];
      s += fmt::format("{}\"{}\": {}", k ? ", " : "", kSpecialNames[k],
                       sp.seen ? fmt::format("{{\"y\": {}, \"expected\": {}, \"ok\": {}, \"y_negative\": {}}}",
                                             cli::JsonNumber(sp.y), cli::JsonNumber(sp.expected), sp.ok() ? "true" : "false",
                                             std::signbit(sp.y) ? "true" : "false")
                               : "null");
    }
    s += fmt::format(
        "}},\n  \"tail_cutoff\": {}, \"tail_cutoff_expected\": {}, \"true_tail_cutoff\": {},\n"
        "  \"subnormal_results_expected\": {}, \"subnormal_results_flushed\": {}, \"subnormal_inputs\": {}, "
        "\"subnormal_inputs_zeroed\": {}\n}}\n",
        cli::JsonNumber(f.cutoff), cli::JsonNumber(f.cutoff_expected), cli::JsonNumber(f.true_cutoff),
        f.subnormal_expected, f.subnormal_flushed, f.subnormal_inputs, f.subnormal_inputs_zeroed);
    return s;
  }
  const bool md = format == ReportFormat::markdown;
  std::string s;
  const auto row = [&](std::vector<std::string> cells, const std::vector<int>& widths) {
    if (md) {
      std::string line = "|";
      for (auto& c : cells) line += " " + c + " |";
      return line + "\n";
    }
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) line += fmt::format("{:<{}} ", cells[i], i < widths.size() ? widths[i] : 0);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  const auto rule = [&](size_t n) {
    if (!md) return std::string();
    std::string line = "|";
    for (size_t i = 0; i < n; ++i) line += "---|";
    return line + "\n";
  };
  s += fmt::format("{}gelu check: {}, {} inputs ({}) in {}\n\n", md ? "### " : "", Describe(f.spec), f.inputs,
                   f.coverage, cli::Duration(f.seconds));
  s += fmt::format("Error in ULP of {} (in the near-root window of a derivative: |error| / 2^-{}); "
                   "NaN, inf or zero-sign mismatch = inf.\n\n",
                   gelu_dtype_name(f.spec.type), info.precision);
  s += row({"against", "max error and where"}, {24});
  s += rule(2);
  s += row({"the form's formula", PlaceText(f.own.worst, f.spec.type)}, {24});
  if (!same) s += row({"the exact GELU", PlaceText(f.exact.worst, f.spec.type)}, {24});
  s += "\n";
  std::vector<std::string> head = {"region (own formula)", "max"};
  for (const char* b : kBinNames) head.push_back(b);
  std::vector<int> w = {22, 10};
  for (int b = 0; b < kNumBins; ++b) w.push_back(b == kNumBins - 1 ? 12 : 10);
  s += row(head, w);
  s += rule(head.size());
  for (int k = 0; k < kNumRegions; ++k) {
    const Place& p = f.own.region_worst[k];
    std::vector<std::string> cells = {kRegionNames[k], p.index == UINT64_MAX ? "-" : ErrorText(p.error)};
    for (int b = 0; b < kNumBins; ++b) cells.push_back(fmt::format("{}", f.own.histogram[k][b]));
    s += row(cells, w);
  }
  s += "\n";
  s += fmt::format("tail cutoff (most negative x with a nonzero result): {}; expected over these inputs: {}; true: {}\n",
                   CutoffText(f.cutoff, f.spec.type), CutoffText(f.cutoff_expected, f.spec.type),
                   CutoffText(f.true_cutoff, f.spec.type));
  std::string specials;
  for (int k = 0; k < kNumSpecials; ++k) {
    const Special& sp = f.specials[k];
    if (!sp.seen) continue;
    specials += fmt::format("{}{} -> {} ({}{})", specials.empty() ? "" : ", ", kSpecialNames[k], sp.y,
                            sp.ok() ? "ok" : "expected ", sp.ok() ? "" : fmt::format("{}", sp.expected));
  }
  s += "special values: " + (specials.empty() ? std::string("none among the inputs") : specials) + "\n";
  s += fmt::format("flush to zero: {} of {} subnormal results given as 0; {} of {} subnormal inputs with a nonzero "
                   "result gave 0\n",
                   f.subnormal_flushed, f.subnormal_expected, f.subnormal_inputs_zeroed, f.subnormal_inputs);
  s += fmt::format("misrounded (not the correctly rounded value): {} of {}\n\n", f.own.profile_failures[kCorrectlyRounded],
                   f.inputs);
  s += row({"profile", "own formula", same ? "" : "exact GELU", "first failure (own formula)"}, {20, 12, same ? 0 : 12});
  s += rule(4);
  for (int p = 0; p < kNumProfiles; ++p) {
    const auto verdict = [&](const Judgement& j) {
      return j.Meets(static_cast<Profile>(p)) ? std::string("PASS")
                                              : fmt::format("FAIL ({})", j.profile_failures[p]);
    };
    const Place& first = f.own.profile_first[p];
    s += row({kProfileNames[p], verdict(f.own), same ? "" : verdict(f.exact),
              first.index == UINT64_MAX ? "-" : fmt::format("x = {} ({}): y = {}, reference {}", Hex(first.x),
                                                            Dec(first.x, f.spec.type), Dec(first.y, f.spec.type),
                                                            Dec(first.r, f.spec.type))},
             {20, 12, same ? 0 : 12});
  }
  return s;
}

std::string PlotSvg(const Findings& f) {
  constexpr int kW = 900, kH = 420, kL = 60, kB = 40, kT = 30;
  const int n = static_cast<int>(f.plot_max.size());
  // y: log10 of the error, from 1e-3 to 1e6 ULP; 0 and below at the bottom.
  const auto ypix = [&](double e) {
    const double l = std::clamp(std::log10(std::max(e, 1e-3)), -3.0, 6.0);
    return kT + (kH - kT - kB) * (6.0 - l) / 9.0;
  };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"18\">{}: max ULP error (own formula) against x, symmetric log x</text>\n",
      kW, kH, kL, Describe(f.spec));
  for (int l = -3; l <= 6; ++l) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/><text x=\"4\" y=\"{:.1f}\">1e{}</text>\n",
                     kL, kW - 10, ypix(std::pow(10.0, l)), ypix(std::pow(10.0, l)), ypix(std::pow(10.0, l)) + 4, l);
  }
  const auto xpix = [&](int i) { return kL + (kW - 10 - kL) * (i + 0.5) / n; };
  for (int e = kPlotLowExp; e <= kPlotHighExp; e += 8) {
    for (int sign : {-1, 1}) {
      const int i = sign < 0 ? kPlotSide - 1 - (e - kPlotLowExp) * kPlotPerOctave : kPlotSide + 1 + (e - kPlotLowExp) * kPlotPerOctave;
      if (i < 0 || i >= n) continue;
      s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}2^{}</text>\n", xpix(i), kH - 20,
                       sign < 0 ? "-" : "", e);
    }
  }
  s += "<polyline fill=\"none\" stroke=\"#c33\" points=\"";
  for (int i = 0; i < n; ++i) s += fmt::format("{:.1f},{:.1f} ", xpix(i), ypix(f.plot_max[static_cast<size_t>(i)]));
  s += "\"/>\n</svg>\n";
  return s;
}

}  // namespace gelu::check
