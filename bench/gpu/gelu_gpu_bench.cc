// SPDX-License-Identifier: Apache-2.0
// GPU benchmark of gelu_cuda beside a device-to-device copy of the same bytes (the memory limit), for
// bench/gpu/check.sh. Host code only (the kernels are in libgelu_cuda); built with nvcc or any C++ compiler
// against the CUDA runtime.
//
// Method: n elements (default 2^28: 1 GiB per float32 array, 512 MiB per bf16 array, each far larger than the
// 50-60 MB L2 of an H100/H200, so every pass streams from DRAM), each call timed alone with CUDA events after 3
// warm-up calls, median of --reps (default 25). Inputs x of two distributions (--dists): "normal", N(0,1)-like
// (transformer pre-activations; |x| <= 3.46, so every lane stays in the float core), and "uniform", U[-10, 10]
// (60 % of lanes outside the core: the identity range, the sigmoid ring, the float tail); grad_out N(0,1)-like.
// Bytes counted: n * element size per array read or written (forward: x read, y written; backward: grad_out and
// x read, grad_in written); the copy moves one array (read + written). GB/s = 1e9 bytes per second.
//
// Usage: gelu_gpu_bench [--n N] [--reps R] [--types f32,bf16] [--dists normal,uniform] [--csv FILE]
// Output: a table, and with --csv one line per row: kernel,type,ms,gbps,pct_copy,gelem_s,dist
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gelu/gelu_cuda.h"
#include "src/common/functions.h"

namespace {

#define CHECK_CUDA(call)                                                                        \
  do {                                                                                          \
    const cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

// Approximately N(0, 1): the sum of four uniforms on [-sqrt(3), sqrt(3)] (variance 1), from a counter hash, so
// that every run and the PyTorch script's inputs have the same distribution.
uint64_t Mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
float Normalish(uint64_t i) {
  const uint64_t h = Mix(i);
  float s = 0;
  for (int k = 0; k < 4; ++k) s += static_cast<float>((h >> (16 * k)) & 0xFFFF) * (1.0f / 65536.0f) - 0.5f;
  return s * 1.7320508f;  // 4 uniforms on [-1/2, 1/2] have variance 1/3; times sqrt(3) gives 1
}
// U[-10, 10], from the same hash.
float Uniform10(uint64_t i) { return static_cast<float>(Mix(i) >> 40) * (20.0f / 16777216.0f) - 10.0f; }
uint16_t Bf16Bits(float f) {  // round to nearest even (finite inputs only here)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

void FillHost(std::vector<char>& host, size_t n, bool bf16, uint64_t seed, bool uniform) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t i = n * t / threads; i < n * (t + 1) / threads; ++i) {
        const uint64_t k = seed * 0x100000000ull + i;
        const float v = uniform ? Uniform10(k) : Normalish(k);
        if (bf16) {
          const uint16_t b = Bf16Bits(v);
          std::memcpy(host.data() + 2 * i, &b, 2);
        } else {
          std::memcpy(host.data() + 4 * i, &v, 4);
        }
      }
    });
  }
  for (auto& th : pool) th.join();
}

template <class F>
double MedianMs(F&& call, int reps) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) call();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    CHECK_CUDA(cudaEventRecord(a));
    call();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float t = 0;
    CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CHECK_CUDA(cudaEventDestroy(a));
  CHECK_CUDA(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void Ok(gelu_status s, const char* what) {
  if (s != GELU_OK) {
    std::fprintf(stderr, "%s returned %d: %s\n", what, static_cast<int>(s), gelu_cuda_last_error_string());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = size_t{1} << 28;
  int reps = 25;
  const char* csv_path = nullptr;
  std::string types = "f32,bf16", dists = "normal,uniform";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) {
      n = std::strtoull(argv[++i], nullptr, 0);
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--types") && i + 1 < argc) {
      types = argv[++i];
    } else if (!std::strcmp(argv[i], "--dists") && i + 1 < argc) {
      dists = argv[++i];
    } else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--n N] [--reps R] [--types f32,bf16] [--dists normal,uniform] [--csv FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("gelu_gpu_bench: no CUDA device; nothing measured\n");
    return 77;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, L2 %d MiB; n = %zu elements, median of %d runs\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, n, reps);
  FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
  if (csv) std::fprintf(csv, "kernel,type,ms,gbps,pct_copy,gelem_s,dist\n");
  std::printf("%-18s %-5s %-7s %9s %9s %8s %9s\n", "kernel", "type", "dist", "ms", "GB/s", "% copy", "Gelem/s");

  for (int case_index = 0; case_index < 4; ++case_index) {
    const bool bf16 = case_index >= 2, uniform = case_index % 2 == 1;
    const size_t es = bf16 ? 2 : 4, bytes = n * es;
    const char* type = bf16 ? "bf16" : "f32";
    const char* dist = uniform ? "uniform" : "normal";
    if (types.find(type) == std::string::npos || dists.find(dist) == std::string::npos) continue;
    void *x, *g, *y;
    CHECK_CUDA(cudaMalloc(&x, bytes));
    CHECK_CUDA(cudaMalloc(&g, bytes));
    CHECK_CUDA(cudaMalloc(&y, bytes));
    // Fills, copies, calls and events all use the legacy default stream (nullptr): ordered among themselves.
    std::vector<char> host(bytes);
    FillHost(host, n, bf16, 1, uniform);
    CHECK_CUDA(cudaMemcpy(x, host.data(), bytes, cudaMemcpyHostToDevice));
    FillHost(host, n, bf16, 2, false);
    CHECK_CUDA(cudaMemcpy(g, host.data(), bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(y, 0xA5, bytes));  // never time untouched or zero pages

    const double copy_ms = MedianMs([&] { CHECK_CUDA(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice)); }, reps);
    const double copy_gbps = 2.0 * bytes / (copy_ms * 1e6);
    auto row = [&](const std::string& kernel, double ms, int arrays) {
      const double gbps = arrays * static_cast<double>(bytes) / (ms * 1e6);
      const double pct = 100.0 * gbps / copy_gbps, gelem = n / (ms * 1e6);
      std::printf("%-18s %-5s %-7s %9.4f %9.1f %7.1f%% %9.1f\n", kernel.c_str(), type, dist, ms, gbps, pct, gelem);
      if (csv) std::fprintf(csv, "%s,%s,%.6f,%.2f,%.2f,%.3f,%s\n", kernel.c_str(), type, ms, gbps, pct, gelem, dist);
    };
    row("copy", copy_ms, 2);
    for (const gelu::common::Form form : gelu::common::kForms) {
      const gelu_approximate a = form;
      const double ms = MedianMs([&] {
        if (bf16) {
          Ok(gelu_cuda_forward_bf16(static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), n, a, nullptr), "forward");
        } else {
          Ok(gelu_cuda_forward_f32(static_cast<const float*>(x), static_cast<float*>(y), n, a, nullptr), "forward");
        }
      }, reps);
      row(std::string("forward/") + gelu::common::kFormNames[form], ms, 2);
    }
    for (const gelu::common::Form form : gelu::common::kForms) {
      const gelu_approximate a = form;
      const double ms = MedianMs([&] {
        if (bf16) {
          Ok(gelu_cuda_backward_bf16(static_cast<const uint16_t*>(g), static_cast<const uint16_t*>(x),
                                     static_cast<uint16_t*>(y), n, a, nullptr), "backward");
        } else {
          Ok(gelu_cuda_backward_f32(static_cast<const float*>(g), static_cast<const float*>(x), static_cast<float*>(y),
                                    n, a, nullptr), "backward");
        }
      }, reps);
      row(std::string("backward/") + gelu::common::kFormNames[form], ms, 3);
    }
    CHECK_CUDA(cudaFree(x));
    CHECK_CUDA(cudaFree(g));
    CHECK_CUDA(cudaFree(y));
  }
  if (csv) std::fclose(csv);
  return 0;
}
