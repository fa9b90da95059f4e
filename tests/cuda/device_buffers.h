// SPDX-License-Identifier: Apache-2.0
// Device memory and page-locked host memory for the checks, freed on scope exit.
#ifndef GELU_TESTS_CUDA_DEVICE_BUFFERS_H_
#define GELU_TESTS_CUDA_DEVICE_BUFFERS_H_

#include <cstddef>

namespace gelu::cuda_test {

struct DeviceBuffer {
  void* p = nullptr;
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  char* bytes() const { return static_cast<char*>(p); }
};

// Page-locked host memory (fast copies), or plain memory if pinning fails.
struct HostBuffer {
  void* p = nullptr;
  bool pinned = false;
  explicit HostBuffer(size_t bytes);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  char* bytes() const { return static_cast<char*>(p); }
};

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_DEVICE_BUFFERS_H_
