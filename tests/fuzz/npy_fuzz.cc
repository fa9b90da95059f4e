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
  // Exactly one storage vector is used.
  if (a.f32.size() + a.f64.size() + a.f16.size() != a.size()) std::abort();
  const Array b = gelu::npy::Parse(gelu::npy::Serialize(a));  // must not throw
  if (b.shape != a.shape || b.fortran_order != a.fortran_order || b.dtype != a.dtype || b.size() != a.size()) {
    std::abort();
  }
  const auto storage = [](const Array& x) -> const void* {
    switch (x.dtype) {
      case gelu::npy::DType::f32: return x.f32.data();
      case gelu::npy::DType::f64: return x.f64.data();
      case gelu::npy::DType::f16: return x.f16.data();
    }
    return nullptr;
  };
  if (a.size() > 0 && std::memcmp(storage(a), storage(b), a.size() * gelu::npy::ItemSize(a.dtype)) != 0) std::abort();
  return 0;
}
