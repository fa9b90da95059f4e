// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/stream_order.h"

namespace gelu::cuda_test {

Stream::Stream(unsigned flags) { error = cudaStreamCreateWithFlags(&s, flags); }
Stream::~Stream() {
  if (error == cudaSuccess) cudaStreamDestroy(s);
}

bool CopyToDevice(void* dst, const void* src, size_t bytes, cudaStream_t s, Report* r) {
  return !Failed(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync to device", r);
}
bool CopyToHost(void* dst, const void* src, size_t bytes, cudaStream_t s, Report* r) {
  return !Failed(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync to host", r);
}
bool FillBytes(void* dst, int byte, size_t bytes, cudaStream_t s, Report* r) {
  return !Failed(cudaMemsetAsync(dst, byte, bytes, s), "cudaMemsetAsync", r);
}
bool Synchronize(cudaStream_t s, Report* r) {
  return !Failed(cudaStreamSynchronize(s), "cudaStreamSynchronize", r);
}

}  // namespace gelu::cuda_test
