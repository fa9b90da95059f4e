// SPDX-License-Identifier: Apache-2.0
// The inputs of the checks: every input of a function (the exhaustive sweeps), and random inputs.
#ifndef GELU_TESTS_CUDA_CHECK_INPUTS_H_
#define GELU_TESTS_CUDA_CHECK_INPUTS_H_

#include <cstddef>
#include <cstdint>

#include "tests/cuda/cuda_functions.h"

namespace gelu::cuda_test {

// Every input: float32, all 2^32 bit patterns of x (grad_out, for backward, a fixed pseudo-random mix of
// arbitrary bit patterns and values in [0.5, 2) of either sign); bf16/fp16 forward, all 65,536 x (twice: see
// CheckExhaustive in gpu_checks.cc); bf16/fp16 backward, all 2^32 (grad_out, x) pairs.
inline uint32_t Mix(uint64_t i) {  // splitmix64's finaliser, low 32 bits
  uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>(z ^ (z >> 31));
}
inline uint32_t GradBitsF32(uint64_t i) {
  const uint32_t h = Mix(i);
  if (h & 1) return Mix(i ^ 0x5555);                       // any bit pattern: tiny, huge, inf, NaN
  return (h & 0x80000000u) | (0x3F000000u + (h >> 8 & 0xFFFFFF));  // [0.5, 2) with a random sign
}

// The float32 inputs of element i (x = i's bit pattern) for i in [begin, begin + n); g may be null (forward).
void FillExhaustiveF32(uint64_t begin, size_t n, void* g, void* x);

// Random inputs of type t: mostly values of spread ~3 (a sum of three uniforms on [-3, 3]), one in eight an
// arbitrary bit pattern (tiny, huge, inf, NaN). A counter hash, so any range fills in parallel.
void RandomFill(Type t, void* p, size_t n, uint64_t seed);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_CHECK_INPUTS_H_
