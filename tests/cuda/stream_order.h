// SPDX-License-Identifier: Apache-2.0
// The checks' streams and the transfers they enqueue on them: why every fill, poison and read-back goes to the
// stream of its library call.
#ifndef GELU_TESTS_CUDA_STREAM_ORDER_H_
#define GELU_TESTS_CUDA_STREAM_ORDER_H_

#include <cuda_runtime_api.h>

#include <cstddef>

#include "tests/cuda/check_report.h"

namespace gelu::cuda_test {

// ---- Stream order.
// A check's transfers go to the stream of its library call: a cudaMemcpy or cudaMemset goes to the legacy default
// stream instead, which a cudaStreamNonBlocking stream does not wait for, so a fill could land after the kernel had
// read (or written) the buffer (issue 10: outputs still holding the poison on an H200). Host buffers are pinned
// (HostBuffer), so that cudaMemcpyAsync is asynchronous and never waits for its stream (from pageable memory the
// driver may stage the copy synchronously); the host reads or refills them only after Synchronize.

struct Stream {
  cudaStream_t s = nullptr;
  cudaError_t error = cudaSuccess;
  explicit Stream(unsigned flags = cudaStreamNonBlocking);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

bool CopyToDevice(void* dst, const void* src, size_t bytes, cudaStream_t s, Report* r);
bool CopyToHost(void* dst, const void* src, size_t bytes, cudaStream_t s, Report* r);
bool FillBytes(void* dst, int byte, size_t bytes, cudaStream_t s, Report* r);
bool Synchronize(cudaStream_t s, Report* r);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_STREAM_ORDER_H_
