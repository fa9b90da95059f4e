// SPDX-License-Identifier: Apache-2.0
// Eigen's GELU behind the checker's signature, for the stratified peer runs and docs/CHECK.md: Eigen has no GELU
// of its own, so these are the two formulas as an Eigen user writes them on arrays, with Eigen's vectorized erf
// (unsupported/Eigen/SpecialFunctions) and tanh.
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <cstddef>

extern "C" void eigen_gelu_erf(const float* x, float* y, size_t n) {
  const Eigen::Map<const Eigen::ArrayXf> a(x, static_cast<Eigen::Index>(n));
  Eigen::Map<Eigen::ArrayXf> out(y, static_cast<Eigen::Index>(n));
  out = 0.5f * a * (1.0f + (a * 0.70710678f).erf());
}

extern "C" void eigen_gelu_tanh(const float* x, float* y, size_t n) {
  const Eigen::Map<const Eigen::ArrayXf> a(x, static_cast<Eigen::Index>(n));
  Eigen::Map<Eigen::ArrayXf> out(y, static_cast<Eigen::Index>(n));
  out = 0.5f * a * (1.0f + (0.7978845608f * (a + 0.044715f * a.cube())).tanh());
}
