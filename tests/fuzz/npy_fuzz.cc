// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the .npy reader (tools/npy.cc), the one parser in gelu that reads untrusted bytes.
// Built with clang -fsanitize=fuzzer,address,undefined by tests/fuzz/run_fuzz.sh; built with any compiler
// together with replay_main.cc, it replays the corpus as a ctest (npy_fuzz_corpus_replay).
//
// Beyond "no crash, no leak, no undefined behaviour, no exception but npy::Error", it checks what a parse
// promises: the element count equals the product of the shape, and writing the array and parsing it again
// gives back the same shape, order, dtype and bits.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#include "tools/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gelu::npy::Array;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  Array a;
  try {
    a = gelu::npy::Parse(bytes);
  } catch (const gelu::npy::Error&) {
    return 0;  // refused with a message: the expected outcome for most inputs
  }
  uint64_t n = 1;
  for (uint64_t d : a.shape) n *= d;  // cannot overflow: Parse checked n * itemsize against the input size
  if (n != a.size()) std::abort();
  if ((a.dtype == gelu::npy::DType::f32 ? a.f64.size() : a.f32.size()) != 0) std::abort();
  const Array b = gelu::npy::Parse(gelu::npy::Serialize(a));  // must not throw
  if (b.shape != a.shape || b.fortran_order != a.fortran_order || b.dtype != a.dtype || b.size() != a.size()) {
    std::abort();
  }
  const void* pa = a.dtype == gelu::npy::DType::f32 ? static_cast<const void*>(a.f32.data()) : a.f64.data();
  const void* pb = b.dtype == gelu::npy::DType::f32 ? static_cast<const void*>(b.f32.data()) : b.f64.data();
  const size_t item = a.dtype == gelu::npy::DType::f32 ? 4 : 8;
  if (a.size() > 0 && std::memcmp(pa, pb, a.size() * item) != 0) std::abort();
  return 0;
}
