// SPDX-License-Identifier: Apache-2.0
// The gate that makes stream order observable: work enqueued behind it is held back, as on a busy stream, and
// what ran before it opened shows.
#ifndef GELU_TESTS_CUDA_STREAM_GATE_H_
#define GELU_TESTS_CUDA_STREAM_GATE_H_

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/cuda/check_report.h"

namespace gelu::cuda_test {

// A closed gate holds back everything enqueued on a stream after it, as a long kernel on a busy stream would, but
// for as long as the test wants: a host function on the stream that waits until Open(). Nothing may wait for the
// stream while the gate is closed (a copy from pageable memory, a synchronising call, loading a kernel lazily), or
// it would wait for ever: the gate opens itself after kTimeout instead, and TimedOut() says so.
class StreamGate {
 public:
  static constexpr std::chrono::seconds kTimeout{20};
  bool Close(cudaStream_t s, Report* r);
  void Open() { state_->open.store(true); }
  bool TimedOut() const { return state_->timed_out.load(); }
  ~StreamGate() { Open(); }

 private:
  struct State {
    std::atomic<bool> open{false}, timed_out{false};
  };
  static void CUDART_CB Wait(void* p);
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

// Runs enqueue() (fills, the library call, read-backs: all asynchronous, on s) behind a closed gate. While the
// gate is closed, the device ranges in `watched` must still hold the byte `stale` everywhere (read on a separate
// stream): a fill that does not wait for s, or a call that launches on another stream, would have changed them.
// Then opens the gate and waits for s. False (with the reason in r) on any failure.
bool RunBehindGate(cudaStream_t s, const std::vector<std::pair<const void*, size_t>>& watched, int stale,
                   const std::string& what, const std::function<bool()>& enqueue, Report* r);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_STREAM_GATE_H_
