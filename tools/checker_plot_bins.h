// SPDX-License-Identifier: Apache-2.0
// The bins of x of `gelu check --plot` (tools/checker.h, Findings::plot_max): the judging fills them, the report
// draws them. For the checker's files.
#ifndef GELU_TOOLS_CHECKER_PLOT_BINS_H_
#define GELU_TOOLS_CHECKER_PLOT_BINS_H_

#include <algorithm>
#include <bit>
#include <cstdint>

namespace gelu::check {

// The plot's bins of x: 16 per octave over 2^-24 <= |x| < 2^8 on each side, |x| below that in the middle bin.
inline constexpr int kPlotLowExp = -24, kPlotHighExp = 8, kPlotPerOctave = 16;
inline constexpr int kPlotSide = (kPlotHighExp - kPlotLowExp) * kPlotPerOctave;
inline int PlotBin(float x) {
  // From the bits (a log2 per input would cost as much as the reference): the exponent and the top 4 fraction bits.
  const uint32_t b = std::bit_cast<uint32_t>(x) & 0x7fffffffu;
  const int e = static_cast<int>(b >> 23) - 127;
  if (e < kPlotLowExp) return kPlotSide;
  const int k = std::min(kPlotSide - 1, (e - kPlotLowExp) * kPlotPerOctave + static_cast<int>((b >> 19) & 15u));
  return x < 0 ? kPlotSide - 1 - k : kPlotSide + 1 + k;
}

}  // namespace gelu::check

#endif  // GELU_TOOLS_CHECKER_PLOT_BINS_H_
