// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/stream_gate.h"

#include <thread>

#include "tests/cuda/device_buffers.h"
#include "tests/cuda/stream_order.h"

namespace gelu::cuda_test {

bool StreamGate::Close(cudaStream_t s, Report* r) {
  // The host function owns a reference to the state: it may run after this object is gone (an early return).
  auto* ref = new std::shared_ptr<State>(state_);
  if (Failed(cudaLaunchHostFunc(s, &Wait, ref), "cudaLaunchHostFunc", r)) {
    delete ref;
    return false;
  }
  return true;
}

void CUDART_CB StreamGate::Wait(void* p) {
  const std::unique_ptr<std::shared_ptr<State>> ref(static_cast<std::shared_ptr<State>*>(p));
  const auto deadline = std::chrono::steady_clock::now() + kTimeout;
  while (!(*ref)->open.load()) {
    if (std::chrono::steady_clock::now() > deadline) {
      (*ref)->timed_out.store(true);
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

bool RunBehindGate(cudaStream_t s, const std::vector<std::pair<const void*, size_t>>& watched, int stale,
                   const std::string& what, const std::function<bool()>& enqueue, Report* r) {
  // Allocated before the gate closes and freed after it opens: cudaFreeHost waits for the device.
  Stream peek;
  if (Failed(peek.error, "cudaStreamCreateWithFlags", r)) return false;
  std::vector<std::unique_ptr<HostBuffer>> seen;
  for (const auto& range : watched) {
    seen.push_back(std::make_unique<HostBuffer>(range.second));
    if (range.second > 0 && !seen.back()->pinned) {  // a pageable read-back could wait for the gate
      r->cuda_error = "cudaMallocHost failed";
      return false;
    }
  }
  StreamGate gate;
  if (!gate.Close(s, r)) return false;
  if (!enqueue()) return false;
  bool held = cudaStreamQuery(s) == cudaErrorNotReady;
  if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();  // not an error: keep it out of the calls
  for (size_t k = 0; k < watched.size(); ++k) {
    const auto& [device, bytes] = watched[k];
    if (bytes == 0) continue;
    const char* host = seen[k]->bytes();
    if (!CopyToHost(seen[k]->p, device, bytes, peek.s, r) || !Synchronize(peek.s, r)) return false;
    for (size_t i = 0; i < bytes; ++i) held = held && static_cast<unsigned char>(host[i]) == stale;
  }
  gate.Open();
  if (!Synchronize(s, r)) return false;
  if (gate.TimedOut()) {
    r->Fail(what + ": the gate timed out: something waited for the stream while its earlier work was held back");
    return false;
  }
  if (!held) {
    r->Fail(what + ": work enqueued behind the closed gate ran before it opened (not ordered on the call's stream)");
    return false;
  }
  return true;
}

}  // namespace gelu::cuda_test
