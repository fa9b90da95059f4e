// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/fused_checks.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "tests/cuda/device_buffers.h"
#include "tests/cuda/element_bits.h"
#include "tests/cuda/fused_host_reference.h"
#include "tests/cuda/gpu_checks.h"
#include "tests/cuda/stream_gate.h"
#include "tests/cuda/stream_order.h"

namespace gelu::cuda_test {

Report CheckFusedOnDevice(Type t, FusedOp op, common::Form form) {
  Report r;
  const size_t es = TypeSize(t), guard = 16;
  constexpr int kStale = 0x5A;
  const std::vector<std::pair<size_t, size_t>> shapes = {{1, 1},  {1, 7},    {3, 1},   {2, 5},     {17, 33},
                                                         {64, 3}, {65, 8},   {127, 9}, {130, 257}, {1000, 333},
                                                         {5, 4099}, {0, 12}, {4096, 3}, {300, 2056}};
  Stream stream;
  if (Failed(stream.error, "cudaStreamCreateWithFlags", &r)) return r;
  const cudaStream_t s = stream.s;
  uint64_t seed = 1;
  bool first = true;
  for (const auto& [rows, cols] : shapes) {
    if (rows == 0 && op != FusedOp::kBiasBackward) continue;
    FusedArrays host;
    FusedInputs(t, op, rows, cols, ++seed, &host);
    HostFused(t, op, form, &host, rows, cols);
    size_t in_n[3], out_n[2];
    for (int k = 0; k < 3; ++k) in_n[k] = FusedInputElements(op, rows, cols, k);
    for (int k = 0; k < 2; ++k) out_n[k] = FusedOutputElements(op, rows, cols, k);
    DeviceBuffer d_in[3] = {DeviceBuffer(in_n[0] * es + 16), DeviceBuffer(in_n[1] * es + 16),
                            DeviceBuffer(in_n[2] * es + 16)};
    DeviceBuffer d_out[2] = {DeviceBuffer((out_n[0] + guard) * es), DeviceBuffer((out_n[1] + guard) * es)};
    HostBuffer h_in[3] = {HostBuffer(in_n[0] * es + 16), HostBuffer(in_n[1] * es + 16), HostBuffer(in_n[2] * es + 16)};
    HostBuffer got[2] = {HostBuffer((out_n[0] + guard) * es), HostBuffer((out_n[1] + guard) * es)};
    const std::vector<char>* inputs[3] = {&host.g, &host.x, &host.b};
    for (int k = 0; k < 3; ++k) std::memcpy(h_in[k].p, inputs[k]->data(), in_n[k] * es);
    const std::string what = std::string(FusedName(op)) + "_" + TypeSuffix(t) + "/" + FormName(form) + " " +
                             std::to_string(rows) + "x" + std::to_string(cols);
    const auto enqueue = [&] {
      for (int k = 0; k < 3; ++k) {
        if (!CopyToDevice(d_in[k].p, h_in[k].p, in_n[k] * es, s, &r)) return false;
      }
      for (int k = 0; k < 2; ++k) {
        if (!FillBytes(d_out[k].p, kPoisonNan, (out_n[k] + guard) * es, s, &r)) return false;
      }
      if (!CallOk(CudaFused(t, op, static_cast<gelu_approximate>(form), d_in[0].p, d_in[1].p, d_in[2].p, d_out[0].p,
                            d_out[1].p, rows, cols, s),
                  what, &r)) {
        return false;
      }
      for (int k = 0; k < 2; ++k) {
        if (!CopyToHost(got[k].p, d_out[k].p, (out_n[k] + guard) * es, s, &r)) return false;
      }
      return true;
    };
    bool ran;
    if (first) {
      ran = enqueue() && Synchronize(s, &r);
    } else {
      // Inputs and outputs hold kStale until the gated work runs.
      std::vector<std::pair<const void*, size_t>> watched;
      for (int k = 0; k < 3; ++k) watched.push_back({d_in[k].p, in_n[k] * es});
      for (int k = 0; k < 2; ++k) watched.push_back({d_out[k].p, (out_n[k] + guard) * es});
      ran = true;
      for (const auto& [p, bytes] : watched) ran = ran && FillBytes(const_cast<void*>(p), kStale, bytes, s, &r);
      ran = ran && Synchronize(s, &r) && RunBehindGate(s, watched, kStale, what, enqueue, &r);
    }
    if (!ran) break;
    first = false;
    const std::vector<char>* want[2] = {&host.y, &host.y2};
    for (int k = 0; k < 2; ++k) {
      for (size_t i = 0; i < out_n[k] + guard; ++i) {
        const uint32_t gv = Element(t, got[k].p, i);
        const bool inside = i < out_n[k];
        const uint32_t wv = inside ? Element(t, want[k]->data(), i) : (t == common::kF32 ? 0xFFFFFFFFu : 0xFFFFu);
        if (inside ? SameResult(t, gv, wv) : gv == wv) continue;
        r.Fail(what + " output " + std::to_string(k) + " element " + std::to_string(i) + (inside ? "" : " (guard)") +
               ": device " + Hex(gv, t) + ", want " + Hex(wv, t));
      }
      r.checked += out_n[k];
    }
  }
  return r;
}

}  // namespace gelu::cuda_test
