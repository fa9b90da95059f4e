// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/device_buffers.h"

#include <cuda_runtime_api.h>

#include <cstdlib>

namespace gelu::cuda_test {

DeviceBuffer::DeviceBuffer(size_t bytes) {
  if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
}
DeviceBuffer::~DeviceBuffer() {
  if (p != nullptr) cudaFree(p);
}

HostBuffer::HostBuffer(size_t bytes) {
  if (cudaMallocHost(&p, bytes) == cudaSuccess) {
    pinned = true;
  } else {
    (void)cudaGetLastError();
    p = std::malloc(bytes);
  }
}
HostBuffer::~HostBuffer() {
  if (pinned) {
    cudaFreeHost(p);
  } else {
    std::free(p);
  }
}

}  // namespace gelu::cuda_test
