// SPDX-License-Identifier: Apache-2.0
// Host-side helpers shared by the CUDA translation units (gelu.cu, gelu_fused.cu): the per-thread error text,
// the argument checks (src/common/validate.h, the CPU library's rules), and the device's SM count. Internal;
// not installed.
#ifndef GELU_SRC_CUDA_CUDA_COMMON_H_
#define GELU_SRC_CUDA_CUDA_COMMON_H_

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "gelu/gelu_cuda.h"
#include "src/common/validate.h"

namespace gelu::cuda {

constexpr int kMaxDevices = 64;  // per-device caches; more devices are queried on every call

// gelu_cuda_last_error_string's text, one per host thread (one definition for every translation unit).
inline thread_local char g_last_error[256] = "";

inline gelu_status CudaFailure(const char* call, cudaError_t err) {
  std::snprintf(g_last_error, sizeof g_last_error, "%s: %s (%s)", call, cudaGetErrorString(err),
                cudaGetErrorName(err));
  return GELU_CUDA_ERROR;
}

// The argument rules, shared with the CPU library.
namespace validate = gelu::validate;

// The current device and its multiprocessor count (cached per device).
inline gelu_status CurrentDevice(int* device, int* sms) {
  static std::atomic<int> cache[kMaxDevices] = {};
  cudaError_t err = cudaGetDevice(device);
  if (err != cudaSuccess) return CudaFailure("cudaGetDevice", err);
  const bool cacheable = *device >= 0 && *device < kMaxDevices;
  if (cacheable && (*sms = cache[*device].load(std::memory_order_relaxed)) > 0) return GELU_OK;
  err = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, *device);
  if (err != cudaSuccess) return CudaFailure("cudaDeviceGetAttribute(MultiProcessorCount)", err);
  if (*sms <= 0) *sms = 1;
  if (cacheable) cache[*device].store(*sms, std::memory_order_relaxed);
  return GELU_OK;
}

inline gelu_status LaunchStatus() {
  const cudaError_t err = cudaGetLastError();
  return err == cudaSuccess ? GELU_OK : CudaFailure("kernel launch", err);
}

}  // namespace gelu::cuda

#endif  // GELU_SRC_CUDA_CUDA_COMMON_H_
