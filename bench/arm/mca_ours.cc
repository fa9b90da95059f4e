// SPDX-License-Identifier: Apache-2.0
// The library's float32 loops, one function per (form, direction), for llvm-mca (scripts/arm_mca.sh): compiled
// per Highway target exactly as src/cpu/gelu_f32.cc compiles them (the same -inl.h, foreach_target.h, flags),
// but each loop in a function of its own, where the library's kernel holds all three forms behind a switch, so
// the script can find one loop per function. Compiled to assembly only (-S), never linked.
#include <cstddef>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/arm/mca_ours.cc"  // this file, relative to the repo root
#include "hwy/foreach_target.h"                     // IWYU pragma: keep
#include "hwy/highway.h"
#include "src/cpu/gelu-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {

// One per form and direction (kForm: common::Form). count: a multiple of the vector length (the loops' own
// premise). The float-core targets (all Arm targets) run GeluF32Run (the core in place, tail lanes compacted per
// block), the others the double-lane loop.
template <common::Form kForm, bool kBackward>
HWY_NOINLINE void McaLoop(const float* g, const float* x, float* y, size_t count) {
  if constexpr (cpu::RunsFloatCore(HWY_TARGET)) {
    GeluF32Run<kForm, kBackward>(g, x, y, count);
  } else {
    GeluF32DoubleLaneLoop<kForm, kBackward>(g, x, y, count);
  }
}
template void McaLoop<common::kNone, false>(const float*, const float*, float*, size_t);
template void McaLoop<common::kTanh, false>(const float*, const float*, float*, size_t);
template void McaLoop<common::kNone, true>(const float*, const float*, float*, size_t);
template void McaLoop<common::kTanh, true>(const float*, const float*, float*, size_t);
// The double-lane loop on every target, float-core targets included, for comparison (SVE: the kernel the float
// core replaced there).
template <common::Form kForm, bool kBackward>
HWY_NOINLINE void McaDoubleLaneLoop(const float* g, const float* x, float* y, size_t count) {
  GeluF32DoubleLaneLoop<kForm, kBackward>(g, x, y, count);
}
template void McaDoubleLaneLoop<common::kNone, false>(const float*, const float*, float*, size_t);
template void McaDoubleLaneLoop<common::kTanh, false>(const float*, const float*, float*, size_t);
template void McaDoubleLaneLoop<common::kNone, true>(const float*, const float*, float*, size_t);
template void McaDoubleLaneLoop<common::kTanh, true>(const float*, const float*, float*, size_t);

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();
