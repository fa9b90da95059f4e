// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/gpu_checks.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "src/cuda/gelu_ops.h"
#include "tests/cuda/check_inputs.h"
#include "tests/cuda/device_buffers.h"
#include "tests/cuda/element_bits.h"
#include "tests/cuda/host_reference.h"
#include "tests/cuda/stream_gate.h"
#include "tests/cuda/stream_order.h"

namespace gelu::cuda_test {

Report CheckStream(const Function& f, uint64_t total, size_t chunk,
                   const std::function<void(uint64_t, size_t, void*, void*)>& fill,
                   const CallRunner& run, const AlsoEval& also,
                   const char* also_name) {
  Report r;
  const size_t es = TypeSize(f.type), bytes = chunk * es;
  Stream stream;
  if (Failed(stream.error, "cudaStreamCreateWithFlags", &r)) return r;
  DeviceBuffer dx(bytes), dg(f.backward ? bytes : 16), dy(bytes);
  HostBuffer hx(bytes), hg(f.backward ? bytes : 16), hy(bytes), want(bytes);
  if (dx.p == nullptr || dg.p == nullptr || dy.p == nullptr || hx.p == nullptr || hg.p == nullptr ||
      hy.p == nullptr || want.p == nullptr) {
    r.cuda_error = "allocation of " + std::to_string(bytes) + "-byte buffers failed";
    return r;
  }
  void* g_host = f.backward ? hg.p : nullptr;
  for (uint64_t begin = 0; begin < total; begin += chunk) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk, total - begin));
    ParallelFor(n, [&](size_t b, size_t e) {
      fill(begin + b, e - b, g_host == nullptr ? nullptr : hg.bytes() + b * es, hx.bytes() + b * es);
    });
    // Fill, call and read back in stream order; the host touches hx, hg and hy again only after Synchronize.
    if (!CopyToDevice(dx.p, hx.p, n * es, stream.s, &r) ||
        (f.backward && !CopyToDevice(dg.p, hg.p, n * es, stream.s, &r)) ||
        !FillBytes(dy.p, kPoisonFinite, n * es, stream.s, &r) ||
        !run([&] { return CallOk(Call(f, dg.p, dx.p, dy.p, n, stream.s), "gelu_cuda call", &r); }) ||
        !CopyToHost(hy.p, dy.p, n * es, stream.s, &r) || !Synchronize(stream.s, &r)) {
      return r;
    }
    ParallelFor(n, [&](size_t b, size_t e) { HostEval(f, g_host, hx.p, want.p, b, e); });
    Compare(f, g_host, hx.p, hy.p, want.p, n, begin, &r);
    if (also) {
      also(g_host, hx.p, want.p, n);
      Compare(f, g_host, hx.p, hy.p, want.p, n, begin, &r, also_name);
      r.checked -= n;  // the same elements, compared twice
    }
  }
  return r;
}

Report CheckExhaustive(const Function& f, size_t chunk, const AlsoEval& also,
                       const char* also_name) {
  if (f.type == common::kF32) {
    return CheckStream(f, uint64_t{1} << 32, chunk, FillExhaustiveF32, RunInline, also, also_name);
  }
  const auto fill16 = [](uint64_t begin, size_t n, void* g, void* x) {
    auto* xs = static_cast<uint16_t*>(x);
    auto* gs = static_cast<uint16_t*>(g);
    for (size_t i = 0; i < n; ++i) {
      xs[i] = static_cast<uint16_t>(begin + i);
      if (gs != nullptr) gs[i] = static_cast<uint16_t>((begin + i) >> 16);
    }
  };
  if (f.backward) return CheckStream(f, uint64_t{1} << 32, chunk, fill16, RunInline, also, also_name);
  // Forward: the 65,536 inputs in one call (n >= 2^16: the kernels' lookup-table path, src/cuda/gelu.cu) and
  // again in calls of 2^15 (below the table threshold: every element computed). 131,072 results in all.
  Report r = CheckStream(f, uint64_t{1} << 16, size_t{1} << 16, fill16, RunInline, also, also_name);
  const Report direct = CheckStream(f, uint64_t{1} << 16, size_t{1} << 15, fill16, RunInline, also, also_name);
  r.checked += direct.checked;
  r.mismatches += direct.mismatches;
  r.failures += direct.failures;
  if (r.cuda_error.empty()) r.cuda_error = direct.cuda_error;
  return r;
}

Report CheckSizesAndOffsets(const Function& f, uint64_t seed) {
  Report r;
  constexpr size_t kGuard = 40;
  const size_t es = TypeSize(f.type);
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 40; ++n) sizes.push_back(n);
  for (size_t n : {63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4097, 65535, 65537,
                   (1 << 20) + 3, 3000017}) {
    sizes.push_back(n);
  }
  struct Offsets {
    size_t x, g, y;
    int in_place;  // 0: separate output; 1: y == x; 2: y == grad_out
  };
  std::vector<Offsets> offsets = {{0, 0, 0, 0}, {1, 3, 2, 0}, {3, 3, 3, 1}, {1, 1, 1, 0}, {5, 5, 5, 0},
                                  {7, 7, 7, 0}, {2, 0, 1, 0}, {1, 3, 0, 0}, {4, 4, 0, 0}, {0, 0, 0, 1},
                                  {6, 2, 2, 1}};
  if (f.backward) offsets.push_back({5, 1, 1, 2}), offsets.push_back({0, 0, 0, 2});
  // Half the cases run on a non-blocking stream, half on the legacy default stream (nullptr); each case's
  // transfers go to the stream its call uses.
  Stream stream;
  if (Failed(stream.error, "cudaStreamCreateWithFlags", &r)) return r;
  const size_t max_cap = sizes.back() + 2 * kGuard + 16;
  DeviceBuffer dx(max_cap * es), dg(max_cap * es), dy(max_cap * es);
  HostBuffer hx(max_cap * es), hg(max_cap * es), hy(max_cap * es), got(max_cap * es);
  std::vector<char> want(max_cap * es);
  if (dx.p == nullptr || dg.p == nullptr || dy.p == nullptr || hx.p == nullptr || hg.p == nullptr ||
      hy.p == nullptr || got.p == nullptr) {
    r.cuda_error = "allocation failed";
    return r;
  }
  uint64_t case_index = 0;
  for (size_t n : sizes) {
    const size_t cap = n + 2 * kGuard + 16;  // elements used (and checked) in each buffer for this size
    const size_t cases = n > 70000 ? 3 : offsets.size();
    for (size_t oc = 0; oc < cases; ++oc) {
      const Offsets& o = offsets[oc];
      ++case_index;
      const cudaStream_t s = case_index % 2 == 0 ? stream.s : nullptr;
      RandomFill(f.type, hx.p, cap, seed * 1000003 + case_index);
      RandomFill(f.type, hg.p, cap, seed * 1000033 + case_index);
      const int poison = case_index % 3 == 0 ? kPoisonFinite : kPoisonNan;
      std::memset(hy.p, poison, cap * es);
      const size_t xo = kGuard + o.x, go = kGuard + o.g;
      const size_t yo = o.in_place == 1 ? xo : o.in_place == 2 ? go : kGuard + o.y;
      char* out_base = o.in_place == 1 ? dx.bytes() : o.in_place == 2 ? dg.bytes() : dy.bytes();
      const std::string what = f.Name() + " n=" + std::to_string(n);
      if (!CopyToDevice(dx.p, hx.p, cap * es, s, &r) || !CopyToDevice(dg.p, hg.p, cap * es, s, &r) ||
          !CopyToDevice(dy.p, hy.p, cap * es, s, &r) ||
          !CallOk(Call(f, dg.bytes() + go * es, dx.bytes() + xo * es, out_base + yo * es, n, s), what, &r) ||
          !CopyToHost(got.p, out_base, cap * es, s, &r) || !Synchronize(s, &r)) {
        break;
      }
      const char* out_host_before = o.in_place == 1 ? hx.bytes() : o.in_place == 2 ? hg.bytes() : hy.bytes();
      // Expected: the buffer as it was everywhere, the host evaluation in [yo, yo + n).
      std::memcpy(want.data(), out_host_before, cap * es);
      std::vector<char> body(n * es + 1);
      const char* g_in = hg.bytes() + go * es;
      const char* x_in = hx.bytes() + xo * es;
      ParallelFor(n, [&](size_t b, size_t e) { HostEval(f, g_in, x_in, body.data(), b, e); });
      std::memcpy(want.data() + yo * es, body.data(), n * es);
      for (size_t i = 0; i < cap; ++i) {
        const uint32_t a = Element(f.type, got.p, i), b = Element(f.type, want.data(), i);
        const bool inside = i >= yo && i < yo + n;
        // Outside the output range nothing may change, not even a NaN's bits.
        if (inside ? SameResult(f.type, a, b) : a == b) continue;
        char line[200];
        std::snprintf(line, sizeof line,
                      "%s n=%zu offsets x%zu g%zu y%zu in_place=%d: element %td %s: device %s, want %s",
                      f.Name().c_str(), n, o.x, o.g, o.y, o.in_place,
                      static_cast<ptrdiff_t>(i) - static_cast<ptrdiff_t>(yo), inside ? "(output)" : "(guard)",
                      Hex(a, f.type).c_str(), Hex(b, f.type).c_str());
        r.Fail(line);
      }
      r.checked += n;
    }
    if (!r.cuda_error.empty()) break;
  }
  return r;
}

Report CheckBusyStream(const Function& f, uint64_t seed) {
  Report r;
  const size_t n = (size_t{1} << 18) + 5, es = TypeSize(f.type), cap = n + 2, bytes = cap * es;
  constexpr int kStale = 0x5A;  // what the device buffers hold before the gated sequence
  Stream stream;
  if (Failed(stream.error, "cudaStreamCreateWithFlags", &r)) return r;
  DeviceBuffer dx(bytes), dg(bytes), dy(bytes);
  HostBuffer hx(bytes), hg(bytes), hy(bytes);
  if (dx.p == nullptr || dg.p == nullptr || dy.p == nullptr || !hx.pinned || !hg.pinned || !hy.pinned) {
    r.cuda_error = "allocation failed (device or pinned host memory)";
    return r;
  }
  RandomFill(f.type, hx.p, cap, seed);
  RandomFill(f.type, hg.p, cap, seed + 1);
  std::vector<char> want(n * es);
  HostEval(f, hg.bytes() + es, hx.bytes() + es, want.data(), 0, n);
  const cudaStream_t s = stream.s;
  const auto enqueue = [&] {
    return CopyToDevice(dx.p, hx.p, bytes, s, &r) && CopyToDevice(dg.p, hg.p, bytes, s, &r) &&
           FillBytes(dy.p, kPoisonNan, bytes, s, &r) &&
           CallOk(Call(f, dg.bytes() + es, dx.bytes() + es, dy.bytes() + es, n, s), f.Name(), &r) &&
           CopyToHost(hy.p, dy.p, bytes, s, &r);
  };
  const auto stale = [&] {
    return FillBytes(dx.p, kStale, bytes, s, &r) && FillBytes(dg.p, kStale, bytes, s, &r) &&
           FillBytes(dy.p, kStale, bytes, s, &r) && Synchronize(s, &r);
  };
  const auto compare = [&] {
    for (size_t i = 0; i < cap; ++i) {
      const uint32_t a = Element(f.type, hy.p, i);
      const bool inside = i >= 1 && i <= n;
      const uint32_t b = inside ? Element(f.type, want.data(), i - 1) : (f.type == common::kF32 ? 0xFFFFFFFFu : 0xFFFFu);
      if (inside ? SameResult(f.type, a, b) : a == b) continue;
      r.Fail(f.Name() + " busy stream: element " + std::to_string(i) + (inside ? "" : " (guard)") + ": device " +
             Hex(a, f.type) + ", want " + Hex(b, f.type));
    }
    r.checked += n;
  };
  if (!stale() || !enqueue() || !Synchronize(s, &r)) return r;
  compare();
  if (!stale()) return r;
  std::memset(hy.p, 0, bytes);
  if (!RunBehindGate(s, {{dx.p, bytes}, {dg.p, bytes}, {dy.p, bytes}}, kStale, f.Name() + " busy stream", enqueue,
                     &r)) {
    return r;
  }
  compare();
  return r;
}

Report CheckInvalidArguments(bool device) {
  Report r;
  const size_t n = 64, es = 4;
  DeviceBuffer buf(device ? 4 * n * es : 0);
  std::vector<float> host(4 * n, 1.0f);
  char* base = device ? buf.bytes() : reinterpret_cast<char*>(host.data());
  if (device) {
    if (buf.p == nullptr) {
      r.cuda_error = "cudaMalloc failed";
      return r;
    }
    // Every call below is on the legacy default stream (nullptr), as are these transfers: ordered.
    if (!FillBytes(buf.p, kPoisonFinite, 4 * n * es, nullptr, &r)) return r;
  }
  for (const Function& f : AllFunctions()) {
    const size_t fs = TypeSize(f.type);
    char* x = base;
    char* g = base + n * es;
    char* y = base + 2 * n * es;
    struct Case {
      const char* what;
      const void* g;
      const void* x;
      void* y;
      size_t n;
      int approximate;
      gelu_status want;
    };
    std::vector<Case> cases = {
        {"null x", g, nullptr, y, n, f.form, GELU_INVALID_ARGUMENT},
        {"null y", g, x, nullptr, n, f.form, GELU_INVALID_ARGUMENT},
        {"approximate past the forms", g, x, y, n, common::kNumForms, GELU_INVALID_ARGUMENT},
        {"approximate -1", g, x, y, n, -1, GELU_INVALID_ARGUMENT},
        {"y = x + 1 (partial overlap)", g, x, x + fs, n, f.form, GELU_INVALID_ARGUMENT},
        {"x = y + 1 (partial overlap)", g, y + fs, y, n, f.form, GELU_INVALID_ARGUMENT},
        {"misaligned x", g, x + 1, y, n, f.form, GELU_INVALID_ARGUMENT},
        {"misaligned y", g, x, y + 1, n, f.form, GELU_INVALID_ARGUMENT},
        {"byte count overflows", g, x, y, SIZE_MAX / 2 + 7, f.form, GELU_INVALID_ARGUMENT},
        {"n = 0, null pointers", nullptr, nullptr, nullptr, 0, f.form, GELU_OK},
        {"n = 0, approximate 7", g, x, y, 0, 7, GELU_INVALID_ARGUMENT},
    };
    if (f.backward) {
      cases.push_back({"null grad_out", nullptr, x, y, n, f.form, GELU_INVALID_ARGUMENT});
      cases.push_back({"y = grad_out + 1 (partial overlap)", g, x, g + fs, n, f.form, GELU_INVALID_ARGUMENT});
      cases.push_back({"misaligned grad_out", g + 1, x, y, n, f.form, GELU_INVALID_ARGUMENT});
      // Inputs may overlap each other: only outputs are restricted. (Valid call, so device memory only.)
      if (device) cases.push_back({"grad_out = x + 1 (inputs overlap)", x + fs, x, y, n, f.form, GELU_OK});
    }
    for (const Case& c : cases) {
      ++r.checked;
      const gelu_status s = Call(f, c.g, c.x, c.y, c.n, static_cast<gelu_approximate>(c.approximate), nullptr);
      if (s != c.want) {
        r.Fail(f.Name() + " " + c.what + ": returned " + std::to_string(s) + ", want " + std::to_string(c.want));
      }
    }
  }
  if (device) {
    // Only the last valid call (grad_out = x + 1 -> y) may have written, into y; x and g must still be poison.
    HostBuffer back(2 * n * es);
    if (!CopyToHost(back.p, buf.p, 2 * n * es, nullptr, &r) || !Synchronize(nullptr, &r)) return r;
    for (size_t i = 0; i < 2 * n * es; ++i) {
      if (static_cast<unsigned char>(back.bytes()[i]) != kPoisonFinite) {
        r.Fail("byte " + std::to_string(i) + " of the input buffers changed after invalid calls");
        break;
      }
    }
  }
  return r;
}

Report CheckLargeInPlace(uint64_t n) {
  Report r;
  const size_t es = 4, guard = 64;
  const size_t bytes = static_cast<size_t>((n + 1 + guard) * es);
  size_t free_bytes = 0, total_bytes = 0;
  if (Failed(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", &r)) return r;
  if (free_bytes < bytes + (size_t{1} << 30)) {
    r.skipped = true;
    r.skip_reason = "needs " + std::to_string(bytes >> 30) + " GiB of device memory, " +
                    std::to_string(free_bytes >> 30) + " GiB free";
    return r;
  }
  DeviceBuffer buf(bytes);
  if (buf.p == nullptr) {
    r.cuda_error = "cudaMalloc of " + std::to_string(bytes) + " bytes failed";
    return r;
  }
  // 0x3F3F3F3F = 0.74709713 as float32, everywhere; the call changes [1, 1 + n) only.
  // The fill, the call and the read-backs are all on the legacy default stream (nullptr): ordered.
  if (!FillBytes(buf.p, 0x3F, bytes, nullptr, &r)) return r;
  float* x = reinterpret_cast<float*>(buf.bytes() + es);
  const Function f{common::kF32, false, common::kNone};
  if (gelu_cuda_forward_f32(x, x, static_cast<size_t>(n), GELU_APPROXIMATE_NONE, nullptr) != GELU_OK) {
    r.cuda_error = std::string("gelu_cuda_forward_f32: ") + gelu_cuda_last_error_string();
    return r;
  }
  float v;
  const uint32_t fill = 0x3F3F3F3Fu;
  std::memcpy(&v, &fill, 4);
  const float in[1] = {v};
  const float want_f = gelu::cuda::ForwardF32Op<common::kNone>::Apply(in);
  uint32_t want;
  std::memcpy(&want, &want_f, 4);
  const size_t chunk = size_t{1} << 28;
  HostBuffer h(chunk * es);
  const uint64_t elements = n + 1 + guard;
  for (uint64_t begin = 0; begin < elements; begin += chunk) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(chunk, elements - begin));
    if (!CopyToHost(h.p, buf.bytes() + begin * es, m * es, nullptr, &r) || !Synchronize(nullptr, &r)) return r;
    std::atomic<uint64_t> bad{0}, first{UINT64_MAX};
    ParallelFor(m, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        const uint64_t k = begin + i;
        const uint32_t expect = (k >= 1 && k < 1 + n) ? want : fill;
        if (Element(common::kF32, h.p, i) != expect) {
          bad.fetch_add(1);
          uint64_t cur = first.load();
          while (k < cur && !first.compare_exchange_weak(cur, k)) {
          }
        }
      }
    });
    r.checked += m;
    if (bad.load() != 0) {
      const uint64_t k = first.load();
      r.Fail("element " + std::to_string(k) + " of the 2^34+ array (" + std::to_string(bad.load()) +
             " wrong in this chunk): got " + Hex(Element(common::kF32, h.p, static_cast<size_t>(k - begin)), common::kF32) +
             ", want " + Hex((k >= 1 && k < 1 + n) ? want : fill, common::kF32));
      r.mismatches += bad.load() - 1;
    }
  }
  (void)f;
  return r;
}

// A thread that runs the calls handed to it, one at a time, while the caller waits.
class CallThread {
 public:
  explicit CallThread(int device) : device_(device), thread_([this] { Loop(); }) {}
  ~CallThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  bool Run(const std::function<bool()>& call) {
    std::unique_lock<std::mutex> lock(mutex_);
    task_ = &call;
    cv_.notify_all();
    cv_.wait(lock, [&] { return task_ == nullptr; });
    return result_;
  }

 private:
  void Loop() {
    (void)cudaSetDevice(device_);  // the caller's device (the runtime's current device is per thread)
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return task_ != nullptr || done_; });
      if (task_ == nullptr) return;
      result_ = (*task_)();
      task_ = nullptr;
      cv_.notify_all();
    }
  }
  const int device_;
  std::mutex mutex_;
  std::condition_variable cv_;
  const std::function<bool()>* task_ = nullptr;
  bool result_ = false, done_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

Report CheckDeviceReset() {
  Report r;
  int device = 0;
  if (Failed(cudaGetDevice(&device), "cudaGetDevice", &r)) return r;
  CallThread caller(device);
  const CallRunner on_caller = [&](const std::function<bool()>& call) { return caller.Run(call); };
  const auto fill = [](uint64_t begin, size_t n, void* g, void* x) {
    for (size_t i = 0; i < n; ++i) {
      static_cast<uint16_t*>(x)[i] = static_cast<uint16_t>(begin + i);
      if (g != nullptr) static_cast<uint16_t*>(g)[i] = static_cast<uint16_t>(Mix(begin + i));
    }
  };
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1 && Failed(cudaDeviceReset(), "cudaDeviceReset", &r)) return r;
    for (const Function& f : AllFunctions()) {
      if (f.type == common::kF32) continue;
      const Report one = CheckStream(f, uint64_t{1} << 16, size_t{1} << 16, fill, on_caller);
      r.checked += one.checked;
      r.mismatches += one.mismatches;
      if (!one.failures.empty()) r.failures += (pass == 0 ? "before the reset: " : "after the reset: ") + one.failures;
      if (!one.cuda_error.empty()) {
        r.cuda_error = (pass == 0 ? "before the reset: " : "after the reset: ") + one.cuda_error;
        return r;
      }
    }
  }
  return r;
}

Report CheckNoDeviceError() {
  Report r;
  std::vector<float> x(16, 1.0f), y(16, 0.0f);
  r.checked = 1;
  const gelu_status s = gelu_cuda_forward_f32(x.data(), y.data(), x.size(), GELU_APPROXIMATE_NONE, nullptr);
  if (s != GELU_CUDA_ERROR) r.Fail("returned " + std::to_string(s) + ", want GELU_CUDA_ERROR");
  if (std::strlen(gelu_cuda_last_error_string()) == 0) r.Fail("gelu_cuda_last_error_string() is empty");
  return r;
}

}  // namespace gelu::cuda_test
