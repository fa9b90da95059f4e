// SPDX-License-Identifier: Apache-2.0
// Which Highway targets run the float32 float core (src/common/gelu_f32_core.inc) and which the double-lane
// kernel (every lane through the double path, common::ForwardF32ViaDoublePath / BackwardF32ViaDoublePath). Both
// meet the same bounds; their last bits differ on ~0.1% of inputs, so only the float-core targets return the bits of the
// scalar path common::ForwardF32 / BackwardF32 and of the CUDA kernels. src/cpu/gelu-inl.h picks the kernel
// with this, and the tests that compare bits ask it.
#ifndef GELU_SRC_CPU_FLOAT_CORE_TARGETS_H_
#define GELU_SRC_CPU_FLOAT_CORE_TARGETS_H_

#include <cstdint>

#include "hwy/detect_targets.h"

namespace gelu::cpu {

// x86 AVX-512 and AVX2. AVX2 reads each lane's table column from a column-major copy of the tables and transposes
// (src/cpu/hwy_ops-inl.h, ColumnsOf8): a 32-entry lookup a row at a time, a gather or four permutes and three blends
// per coefficient, is slower there than the double-lane kernel (docs/EXPERIMENTS.md). SSE4 and below have no
// FMA, on which the float core's error analysis rests (the exact TwoProduct, one rounding in the last step).
// Arm: NEON and SVE, SVE2, SVE_256 and SVE2_128 at any vector length (FMA; their lookups: src/cpu/hwy_ops-inl.h,
// the rows read where used on SVE: RowsAt in src/common/gelu_f32_core.inc).
// Other architectures: never built or measured, so the proven double-lane kernel.
constexpr bool RunsFloatCore(int64_t target) {
#if HWY_ARCH_X86
  return (target & (HWY_AVX2 | HWY_AVX3 | HWY_AVX3_DL)) != 0;
#elif HWY_ARCH_ARM_A64
  return (target & (HWY_NEON | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)) != 0;
#else
  (void)target;
  return false;
#endif
}

}  // namespace gelu::cpu

#endif  // GELU_SRC_CPU_FLOAT_CORE_TARGETS_H_
