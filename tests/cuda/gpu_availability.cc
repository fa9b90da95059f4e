// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/gpu_availability.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gelu::cuda_test {

std::string GpuUnavailableReason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err);
  if (count == 0) return "no CUDA device";
  return "";
}

std::string SkipIsFailure() {
  const char* env = std::getenv("GELU_REQUIRE_GPU");
  if (env != nullptr && std::strcmp(env, "1") == 0) return "GELU_REQUIRE_GPU=1 is set";
  int count = 0;
  const bool present = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  (void)cudaGetLastError();  // a failed query leaves nothing behind for the next check
  if (present) return "a CUDA device is present (cudaGetDeviceCount = " + std::to_string(count) + ")";
  return "";
}

std::string DeviceDescription() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return "unknown";
  char buf[640];  // prop.name is up to 256 characters
  std::snprintf(buf, sizeof buf, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, prop.l2CacheSize >> 20);
  return buf;
}

}  // namespace gelu::cuda_test
