// SPDX-License-Identifier: Apache-2.0
// The CPU and CUDA entry points refuse the same argument sets (both check with src/common/validate.h). Every
// fused and elementwise entry point of both libraries is called with every combination of a few pointers (null,
// the same array, one element apart, far apart), sizes (0, small, a byte count that overflows) and forms
// (valid, unknown). Where the CPU refuses, CUDA must refuse too, before any CUDA call, so this runs without a GPU.
// Where the CPU computes, CUDA must accept: with a GPU it computes on the same (managed) memory; without one it
// gets past validation and fails at its first CUDA call (GELU_CUDA_ERROR, never GELU_INVALID_ARGUMENT).
// The one rule only CUDA has: pointers aligned to the element size (device loads), checked on its own.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "gelu/gelu.h"
#include "gelu/gelu_cuda.h"

namespace {

constexpr size_t kBufferElements = 1024;

// Memory both sides can use: managed memory where a GPU is present, else plain host memory (CUDA then never
// reaches a pointer: it refuses, or fails at its first CUDA call).
class SharedBuffer {
 public:
  SharedBuffer() {
    int count = 0;
    gpu_ = cudaGetDeviceCount(&count) == cudaSuccess && count > 0 &&
           cudaMallocManaged(&data_, kBufferElements * 8) == cudaSuccess;
    if (!gpu_) {
      cudaGetLastError();  // clear the error of the failed query
      data_ = std::calloc(kBufferElements, 8);
    }
  }
  ~SharedBuffer() {
    if (gpu_) {
      cudaFree(data_);
    } else {
      std::free(data_);
    }
  }
  bool gpu() const { return gpu_; }
  char* bytes() const { return static_cast<char*>(data_); }

 private:
  bool gpu_ = false;
  void* data_ = nullptr;
};

// One entry point of both libraries: up to five pointers and two sizes (n, or rows and cols).
struct EntryPoint {
  std::string name;
  int pointers;
  int sizes;
  std::function<gelu_status(const std::array<void*, 5>&, size_t, size_t, gelu_approximate)> cpu, cuda;
};

template <class T>
std::vector<EntryPoint> EntryPoints(const char* type,
                                    gelu_status (*cpu_fwd)(const T*, T*, size_t, gelu_approximate),
                                    gelu_status (*cuda_fwd)(const T*, T*, size_t, gelu_approximate, void*),
                                    gelu_status (*cpu_bwd)(const T*, const T*, T*, size_t, gelu_approximate),
                                    gelu_status (*cuda_bwd)(const T*, const T*, T*, size_t, gelu_approximate, void*),
                                    auto cpu_bias_fwd, auto cuda_bias_fwd, auto cpu_bias_bwd, auto cuda_bias_bwd,
                                    auto cpu_geglu_fwd, auto cuda_geglu_fwd, auto cpu_geglu_bwd, auto cuda_geglu_bwd,
                                    auto cpu_rows_fwd, auto cuda_rows_fwd, auto cpu_rows_bwd, auto cuda_rows_bwd) {
  using P = const std::array<void*, 5>&;
  const auto t = [](void* p) { return static_cast<T*>(p); };
  const std::string s = type;
  return {
      {"forward_" + s, 2, 1, [=](P p, size_t n, size_t, gelu_approximate a) { return cpu_fwd(t(p[0]), t(p[1]), n, a); },
       [=](P p, size_t n, size_t, gelu_approximate a) { return cuda_fwd(t(p[0]), t(p[1]), n, a, nullptr); }},
      {"backward_" + s, 3, 1,
       [=](P p, size_t n, size_t, gelu_approximate a) { return cpu_bwd(t(p[0]), t(p[1]), t(p[2]), n, a); },
       [=](P p, size_t n, size_t, gelu_approximate a) { return cuda_bwd(t(p[0]), t(p[1]), t(p[2]), n, a, nullptr); }},
      {"bias_forward_" + s, 3, 2,
       [=](P p, size_t r, size_t c, gelu_approximate a) { return cpu_bias_fwd(t(p[0]), t(p[1]), t(p[2]), r, c, a); },
       [=](P p, size_t r, size_t c, gelu_approximate a) {
         return cuda_bias_fwd(t(p[0]), t(p[1]), t(p[2]), r, c, a, nullptr);
       }},
      {"bias_backward_" + s, 5, 2,
       [=](P p, size_t r, size_t c, gelu_approximate a) {
         return cpu_bias_bwd(t(p[0]), t(p[1]), t(p[2]), t(p[3]), t(p[4]), r, c, a);
       },
       [=](P p, size_t r, size_t c, gelu_approximate a) {
         return cuda_bias_bwd(t(p[0]), t(p[1]), t(p[2]), t(p[3]), t(p[4]), r, c, a, nullptr);
       }},
      {"geglu_forward_" + s, 3, 1,
       [=](P p, size_t n, size_t, gelu_approximate a) { return cpu_geglu_fwd(t(p[0]), t(p[1]), t(p[2]), n, a); },
       [=](P p, size_t n, size_t, gelu_approximate a) {
         return cuda_geglu_fwd(t(p[0]), t(p[1]), t(p[2]), n, a, nullptr);
       }},
      {"geglu_backward_" + s, 5, 1,
       [=](P p, size_t n, size_t, gelu_approximate a) {
         return cpu_geglu_bwd(t(p[0]), t(p[1]), t(p[2]), t(p[3]), t(p[4]), n, a);
       },
       [=](P p, size_t n, size_t, gelu_approximate a) {
         return cuda_geglu_bwd(t(p[0]), t(p[1]), t(p[2]), t(p[3]), t(p[4]), n, a, nullptr);
       }},
      {"geglu_rows_forward_" + s, 2, 2,
       [=](P p, size_t r, size_t c, gelu_approximate a) { return cpu_rows_fwd(t(p[0]), t(p[1]), r, c, a); },
       [=](P p, size_t r, size_t c, gelu_approximate a) { return cuda_rows_fwd(t(p[0]), t(p[1]), r, c, a, nullptr); }},
      {"geglu_rows_backward_" + s, 3, 2,
       [=](P p, size_t r, size_t c, gelu_approximate a) { return cpu_rows_bwd(t(p[0]), t(p[1]), t(p[2]), r, c, a); },
       [=](P p, size_t r, size_t c, gelu_approximate a) {
         return cuda_rows_bwd(t(p[0]), t(p[1]), t(p[2]), r, c, a, nullptr);
       }},
  };
}

#define GELU_ENTRY_POINTS(T, s)                                                                                   \
  EntryPoints<T>(#s, gelu_forward_##s, gelu_cuda_forward_##s, gelu_backward_##s, gelu_cuda_backward_##s,         \
                 gelu_bias_forward_##s, gelu_cuda_bias_forward_##s, gelu_bias_backward_##s,                       \
                 gelu_cuda_bias_backward_##s, gelu_geglu_forward_##s, gelu_cuda_geglu_forward_##s,                \
                 gelu_geglu_backward_##s, gelu_cuda_geglu_backward_##s, gelu_geglu_rows_forward_##s,              \
                 gelu_cuda_geglu_rows_forward_##s, gelu_geglu_rows_backward_##s, gelu_cuda_geglu_rows_backward_##s)

std::vector<EntryPoint> AllEntryPoints() {
  std::vector<EntryPoint> all = GELU_ENTRY_POINTS(float, f32);
  const std::vector<EntryPoint> bf16 = GELU_ENTRY_POINTS(uint16_t, bf16), f16 = GELU_ENTRY_POINTS(uint16_t, f16);
  all.insert(all.end(), bf16.begin(), bf16.end());
  all.insert(all.end(), f16.begin(), f16.end());
  return all;
}

size_t ElementSize(const EntryPoint& e) { return e.name.ends_with("f32") ? 4 : 2; }

TEST(SameRefusals, CpuAndCudaRefuseTheSameArgumentSets) {
  SharedBuffer buffer;
  size_t checked = 0, refused = 0, computed = 0;
  for (const EntryPoint& e : AllEntryPoints()) {
    const size_t element = ElementSize(e);
    // null, an array, the same array one element on (partial overlap), one 64 elements on (disjoint here).
    const std::array<void*, 4> choices = {nullptr, buffer.bytes(), buffer.bytes() + element,
                                          buffer.bytes() + 64 * element};
    // 0, small, and one whose byte count overflows size_t.
    const std::array<size_t, 4> sizes = {0, 1, 3, SIZE_MAX / element + 1};
    for (gelu_approximate form : {GELU_APPROXIMATE_TANH, static_cast<gelu_approximate>(7)}) {
      for (size_t combo = 0; combo < (size_t{1} << (2 * e.pointers)); ++combo) {
        std::array<void*, 5> p{};
        for (int i = 0; i < e.pointers; ++i) p[i] = choices[(combo >> (2 * i)) & 3];
        for (size_t s1 : sizes) {
          for (size_t s2 : e.sizes == 2 ? sizes : std::array<size_t, 4>{0, 0, 0, 0}) {
            if (e.sizes == 1 && s2 != 0) continue;
            const gelu_status cpu = e.cpu(p, s1, s2, form);
            const gelu_status cuda = e.cuda(p, s1, s2, form);
            ++checked;
            const std::string what = e.name + " combo " + std::to_string(combo) + " sizes " + std::to_string(s1) +
                                     "," + std::to_string(s2) + " form " + std::to_string(form);
            ASSERT_NE(cpu, GELU_CUDA_ERROR) << what;
            if (cpu == GELU_INVALID_ARGUMENT) {
              ++refused;
              ASSERT_EQ(cuda, GELU_INVALID_ARGUMENT) << what;
            } else if (buffer.gpu()) {
              ASSERT_EQ(cuda, GELU_OK) << what << ": " << gelu_cuda_last_error_string();
              // Before the CPU's next call touches the same managed memory.
              ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
              computed += s1 * (e.sizes == 2 ? s2 : 1) > 0;
            } else {
              // Valid: past validation, CUDA fails at its first call without a device (or has nothing to do).
              ASSERT_NE(cuda, GELU_INVALID_ARGUMENT) << what;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000u);
  EXPECT_GT(refused, checked / 4);
  EXPECT_LT(refused, checked);
  std::printf("%zu argument sets, %zu refused by both, %zu computed on the GPU too\n", checked, refused, computed);
}

// Near the top of the address space an end address p + bytes wraps to a small number: the overlap test must
// not (these pointers are never dereferenced: partial overlap is refused first).
TEST(SameRefusals, PartialOverlapAtTheTopOfTheAddressSpace) {
  for (const EntryPoint& e : AllEntryPoints()) {
    if (e.name.starts_with("bias") || e.name.starts_with("geglu_rows")) continue;  // more than one layout
    const size_t element = ElementSize(e);
    const uintptr_t top = UINTPTR_MAX - 64 * element + 1;  // 64 elements end exactly at 2^64
    std::array<void*, 5> p{};
    for (int i = 0; i < e.pointers; ++i) p[i] = reinterpret_cast<void*>(top);
    p[e.pointers - 1] = reinterpret_cast<void*>(top + element);  // the output, one element on
    EXPECT_EQ(e.cpu(p, 64, 0, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT) << e.name;
    EXPECT_EQ(e.cuda(p, 64, 0, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT) << e.name;
  }
}

// CUDA's own rule: every pointer aligned to the element size (the CPU library loads unaligned and accepts).
TEST(SameRefusals, CudaRefusesMisalignedPointers) {
  SharedBuffer buffer;
  for (const EntryPoint& e : AllEntryPoints()) {
    for (int bad = 0; bad < e.pointers; ++bad) {
      std::array<void*, 5> p{};
      for (int i = 0; i < e.pointers; ++i) p[i] = buffer.bytes() + 128 * i * 8;
      p[bad] = static_cast<char*>(p[bad]) + 1;
      EXPECT_EQ(e.cuda(p, 3, 3, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT) << e.name << " pointer " << bad;
    }
  }
}

}  // namespace
