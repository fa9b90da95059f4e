// SPDX-License-Identifier: Apache-2.0
// Checks of gelu_cuda (include/gelu/gelu_cuda.h) against the host evaluation of the same per-element source
// (src/cuda/gelu_ops.h over src/common/gelu_scalar.h), shared by the GoogleTest files in this folder and by the
// standalone driver gelu_cuda_check.cc that bench/gpu/check.sh builds with nvcc alone (no GTest, no Highway).
//
// Each check returns a Report: what it compared, how many mismatches, the first ones in hexadecimal. Equality is
// bitwise, except that a NaN matches any NaN (host and device propagate NaN payloads differently). Outputs are
// poisoned before every call and guard elements around them are checked, so unwritten and stray writes both
// show.
//
// Stream order: every fill, poison and read-back of a check is enqueued on the stream its library call uses (see
// "Stream order" below), so the checks are right on any stream, and CheckBusyStream makes the ordering
// observable: the call is made while the work before it on its stream is held back.
#ifndef GELU_TESTS_CUDA_GPU_CHECKS_H_
#define GELU_TESTS_CUDA_GPU_CHECKS_H_

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "gelu/gelu_cuda.h"
#include "src/common/functions.h"
#include "src/cuda/gelu_ops.h"
#include "src/parallel/parallel.h"

namespace gelu::cuda_test {

enum class Type { kF32, kBf16, kF16 };
inline size_t TypeSize(Type t) { return t == Type::kF32 ? 4 : 2; }
inline const char* TypeName(Type t) { return t == Type::kF32 ? "f32" : t == Type::kBf16 ? "bf16" : "f16"; }
inline const char* FormName(int form) { return common::kFormNames[form]; }

struct Function {
  Type type;
  bool backward;
  int form;  // gelu_approximate
  std::string Name() const {
    return std::string(backward ? "backward_" : "forward_") + TypeName(type) + "/" + FormName(form);
  }
  // Name() as a GoogleTest parameter name, which may not contain '/'.
  std::string TestName() const {
    std::string s = Name();
    for (char& c : s) c = c == '/' ? '_' : c;
    return s;
  }
};

// The name generator of INSTANTIATE_TEST_SUITE_P over Functions (a testing::TestParamInfo<Function>).
struct FunctionTestName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return info.param.TestName();
  }
};

// GoogleTest prints parameters with this (found by argument-dependent lookup).
inline void PrintTo(const Function& f, std::ostream* os) { *os << f.Name(); }

// The CUDA entry points of the table's functions (src/common/functions.h): the three forms, forward and backward,
// in each storage type the GPU offers.
inline std::vector<Function> AllFunctions() {
  std::vector<Function> all;
  for (Type t : {Type::kF32, Type::kBf16, Type::kF16}) {
    const common::Type type = t == Type::kF32 ? common::kF32 : t == Type::kBf16 ? common::kBf16 : common::kF16;
    for (const common::Function& f : common::kFunctions) {
      if (f.is_form() && f.Has(type)) all.push_back({t, f.backward(), f.form()});
    }
  }
  return all;
}

// The C API call for f. g is ignored by forward functions.
inline gelu_status Call(const Function& f, const void* g, const void* x, void* y, size_t n, gelu_approximate a,
                        void* stream) {
  using U = uint16_t;
  switch (f.type) {
    case Type::kF32:
      return f.backward ? gelu_cuda_backward_f32(static_cast<const float*>(g), static_cast<const float*>(x),
                                                 static_cast<float*>(y), n, a, stream)
                        : gelu_cuda_forward_f32(static_cast<const float*>(x), static_cast<float*>(y), n, a, stream);
    case Type::kBf16:
      return f.backward ? gelu_cuda_backward_bf16(static_cast<const U*>(g), static_cast<const U*>(x),
                                                  static_cast<U*>(y), n, a, stream)
                        : gelu_cuda_forward_bf16(static_cast<const U*>(x), static_cast<U*>(y), n, a, stream);
    default:
      return f.backward ? gelu_cuda_backward_f16(static_cast<const U*>(g), static_cast<const U*>(x),
                                                 static_cast<U*>(y), n, a, stream)
                        : gelu_cuda_forward_f16(static_cast<const U*>(x), static_cast<U*>(y), n, a, stream);
  }
}
inline gelu_status Call(const Function& f, const void* g, const void* x, void* y, size_t n, void* stream) {
  return Call(f, g, x, y, n, static_cast<gelu_approximate>(f.form), stream);
}

// ---- Host side: threads, evaluation, comparison.

inline unsigned HostThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

// fn(begin, end) over [0, n), split as the library splits its arrays (src/parallel/parallel.h; OpenMP), on every
// host thread.
inline void ParallelFor(size_t n, const std::function<void(size_t, size_t)>& fn) {
  gelu::parallel::ParallelForThreads(n, static_cast<int>(HostThreads()), fn);
}

template <class Op>
void HostEvalOpLoop(const void* g, const void* x, void* y, size_t begin, size_t end) {
  using T = typename Op::T;
  const T* xs = static_cast<const T*>(x);
  const T* gs = static_cast<const T*>(g);
  T* ys = static_cast<T*>(y);
  for (size_t i = begin; i < end; ++i) {
    if constexpr (Op::kInputs == 1) {
      const T in[1] = {xs[i]};
      ys[i] = Op::Apply(in);
    } else {
      const T in[2] = {gs[i], xs[i]};
      ys[i] = Op::Apply(in);
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define GELU_HOST_EVAL_FMA_CLONE 1
// The element functions write every fused multiply-add as std::fma (gelu_scalar.h). Compiled for baseline x86-64
// (no FMA instruction), each is a call into libm's fma, most of the 2^32-input host sweeps' time
// (docs/EXPERIMENTS.md, "Test time"). This clone, taken on CPUs with FMA, inlines the whole
// evaluation (flatten) into code that may use vfmadd, which rounds once as libm's fma does: the same bits.
// -ffp-contract=off still holds in it, so no other a * b + c is fused.
template <class Op>
__attribute__((target("fma"), flatten)) void HostEvalOpFma(const void* g, const void* x, void* y, size_t begin,
                                                           size_t end) {
  HostEvalOpLoop<Op>(g, x, y, begin, end);
}
#endif

template <class Op>
void HostEvalOp(const void* g, const void* x, void* y, size_t begin, size_t end) {
#ifdef GELU_HOST_EVAL_FMA_CLONE
  static const bool kHasFma = __builtin_cpu_supports("fma");
  if (kHasFma) return HostEvalOpFma<Op>(g, x, y, begin, end);
#endif
  HostEvalOpLoop<Op>(g, x, y, begin, end);
}

template <template <int> class Op>
void HostEvalForm(int form, const void* g, const void* x, void* y, size_t begin, size_t end) {
  common::VisitForm(static_cast<common::Form>(form),
                    [&](auto k) { HostEvalOp<Op<decltype(k)::value>>(g, x, y, begin, end); });
}

// y[i] = the host evaluation of f at (g[i], x[i]) for i in [begin, end), single-threaded.
inline void HostEval(const Function& f, const void* g, const void* x, void* y, size_t begin, size_t end) {
  using namespace gelu::cuda;  // NOLINT: the Op templates
  switch (f.type) {
    case Type::kF32:
      return f.backward ? HostEvalForm<BackwardF32Op>(f.form, g, x, y, begin, end)
                        : HostEvalForm<ForwardF32Op>(f.form, g, x, y, begin, end);
    case Type::kBf16:
      return f.backward ? HostEvalForm<BackwardBf16Op>(f.form, g, x, y, begin, end)
                        : HostEvalForm<ForwardBf16Op>(f.form, g, x, y, begin, end);
    default:
      return f.backward ? HostEvalForm<BackwardF16Op>(f.form, g, x, y, begin, end)
                        : HostEvalForm<ForwardF16Op>(f.form, g, x, y, begin, end);
  }
}

inline uint32_t Element(Type t, const void* p, size_t i) {
  if (t == Type::kF32) {
    uint32_t u;
    std::memcpy(&u, static_cast<const char*>(p) + 4 * i, 4);
    return u;
  }
  uint16_t h;
  std::memcpy(&h, static_cast<const char*>(p) + 2 * i, 2);
  return h;
}
inline void SetElement(Type t, void* p, size_t i, uint32_t v) {
  if (t == Type::kF32) {
    std::memcpy(static_cast<char*>(p) + 4 * i, &v, 4);
  } else {
    const uint16_t h = static_cast<uint16_t>(v);
    std::memcpy(static_cast<char*>(p) + 2 * i, &h, 2);
  }
}
inline bool IsNan(Type t, uint32_t u) {
  switch (t) {
    case Type::kF32: return (u & 0x7FFFFFFFu) > 0x7F800000u;
    case Type::kBf16: return (u & 0x7FFFu) > 0x7F80u;
    default: return (u & 0x7FFFu) > 0x7C00u;
  }
}
// Bitwise, except that NaN matches NaN: the device's double arithmetic returns a canonical NaN where the host
// propagates the input's payload (and sign), and the 16-bit rounding keeps whatever sign and payload it gets.
inline bool SameResult(Type t, uint32_t got, uint32_t want) {
  return got == want || (IsNan(t, got) && IsNan(t, want));
}

struct Report {
  bool skipped = false;
  std::string skip_reason;
  uint64_t checked = 0;      // elements compared
  uint64_t mismatches = 0;   // results that differ from the host's, plus guard elements that changed
  std::string failures;      // the first few, one per line
  std::string cuda_error;    // a failed CUDA call, if any (then the check stopped)
  bool ok() const { return skipped || (mismatches == 0 && cuda_error.empty()); }
  void Fail(const std::string& line) {
    ++mismatches;
    if (mismatches <= 8) failures += line + "\n";
  }
  std::string Summary() const {
    char buf[160];
    if (skipped) return "SKIPPED (" + skip_reason + ")";
    std::snprintf(buf, sizeof buf, "%s: %llu compared, %llu mismatches", ok() ? "PASS" : "FAIL",
                  static_cast<unsigned long long>(checked), static_cast<unsigned long long>(mismatches));
    std::string s = buf;
    if (!cuda_error.empty()) s += "; CUDA error: " + cuda_error;
    if (!failures.empty()) s += "\n" + failures;
    return s;
  }
};

inline std::string Hex(uint32_t v, Type t) {
  char buf[16];
  std::snprintf(buf, sizeof buf, t == Type::kF32 ? "0x%08x" : "0x%04x", v);
  return buf;
}

// Compares n results; g may be null (forward). Thread-safe accumulation into r.
// want_name names the expected results in the failure lines.
inline void Compare(const Function& f, const void* g, const void* x, const void* got, const void* want, size_t n,
                    uint64_t index_base, Report* r, const char* want_name = "host") {
  std::atomic<uint64_t> bad{0};
  std::vector<std::string> lines;
  std::mutex lines_mutex;
  ParallelFor(n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint32_t a = Element(f.type, got, i), b = Element(f.type, want, i);
      if (SameResult(f.type, a, b)) continue;
      if (bad.fetch_add(1) < 8) {
        std::string line = f.Name() + " i=" + std::to_string(index_base + i) + " x=" + Hex(Element(f.type, x, i), f.type);
        if (g != nullptr) line += " g=" + Hex(Element(f.type, g, i), f.type);
        line += " device=" + Hex(a, f.type) + " " + want_name + "=" + Hex(b, f.type);
        std::lock_guard<std::mutex> lock(lines_mutex);
        lines.push_back(line);
      }
    }
  });
  r->checked += n;
  const uint64_t total = bad.load();
  for (const auto& line : lines) r->Fail(line);
  r->mismatches += total - std::min<uint64_t>(total, lines.size());
}

// ---- Device side.

// "" when a CUDA device is usable, else why not.
inline std::string GpuUnavailableReason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err);
  if (count == 0) return "no CUDA device";
  return "";
}

// ---- Skip or fail: the one place that decides what a GPU check that cannot run reports (the GoogleTest files
// through GELU_SKIP_OR_FAIL in gpu_gtest.h, the standalone driver gelu_cuda_check.cc directly).
// On a machine without a GPU (CI's), a GPU check is skipped and reported SKIPPED. Where a CUDA device is present
// (cudaGetDeviceCount > 0), or GELU_REQUIRE_GPU=1 is set (bench/gpu/check.sh sets it), a check that cannot run is
// a failure instead, so that it cannot look like a pass where it was meant to run. Returns why a skip is a failure
// here, or "" where skipping is allowed.
inline std::string SkipIsFailure() {
  const char* env = std::getenv("GELU_REQUIRE_GPU");
  if (env != nullptr && std::strcmp(env, "1") == 0) return "GELU_REQUIRE_GPU=1 is set";
  int count = 0;
  const bool present = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  (void)cudaGetLastError();  // a failed query leaves nothing behind for the next check
  if (present) return "a CUDA device is present (cudaGetDeviceCount = " + std::to_string(count) + ")";
  return "";
}

inline std::string DeviceDescription() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return "unknown";
  char buf[640];  // prop.name is up to 256 characters
  std::snprintf(buf, sizeof buf, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, prop.l2CacheSize >> 20);
  return buf;
}

// Records a failed CUDA call in r; true if it failed.
inline bool Failed(cudaError_t err, const char* what, Report* r) {
  if (err == cudaSuccess) return false;
  if (r->cuda_error.empty()) r->cuda_error = std::string(what) + ": " + cudaGetErrorString(err);
  return true;
}

struct DeviceBuffer {
  void* p = nullptr;
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) {
    if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
  }
  ~DeviceBuffer() {
    if (p != nullptr) cudaFree(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  char* bytes() const { return static_cast<char*>(p); }
};

// Page-locked host memory (fast copies), or plain memory if pinning fails.
struct HostBuffer {
  void* p = nullptr;
  bool pinned = false;
  explicit HostBuffer(size_t bytes) {
    if (cudaMallocHost(&p, bytes) == cudaSuccess) {
      pinned = true;
    } else {
      (void)cudaGetLastError();
      p = std::malloc(bytes);
    }
  }
  ~HostBuffer() {
    if (pinned) {
      cudaFreeHost(p);
    } else {
      std::free(p);
    }
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  char* bytes() const { return static_cast<char*>(p); }
};

// ---- Stream order.
// A check's transfers go to the stream of its library call: a cudaMemcpy or cudaMemset goes to the legacy default
// stream instead, which a cudaStreamNonBlocking stream does not wait for, so a fill could land after the kernel had
// read (or written) the buffer (issue 10: outputs still holding the poison on an H200). Host buffers are pinned
// (HostBuffer), so that cudaMemcpyAsync is asynchronous and never waits for its stream (from pageable memory the
// driver may stage the copy synchronously); the host reads or refills them only after Synchronize.

struct Stream {
  cudaStream_t s = nullptr;
  cudaError_t error = cudaSuccess;
  explicit Stream(unsigned flags = cudaStreamNonBlocking) { error = cudaStreamCreateWithFlags(&s, flags); }
  ~Stream() {
    if (error == cudaSuccess) cudaStreamDestroy(s);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

inline bool CopyToDevice(void* dst, const void* src, size_t bytes, cudaStream_t s, Report* r) {
  return !Failed(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync to device", r);
}
inline bool CopyToHost(void* dst, const void* src, size_t bytes, cudaStream_t s, Report* r) {
  return !Failed(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync to host", r);
}
inline bool FillBytes(void* dst, int byte, size_t bytes, cudaStream_t s, Report* r) {
  return !Failed(cudaMemsetAsync(dst, byte, bytes, s), "cudaMemsetAsync", r);
}
inline bool Synchronize(cudaStream_t s, Report* r) {
  return !Failed(cudaStreamSynchronize(s), "cudaStreamSynchronize", r);
}
// The library call's status in r; true if it returned GELU_OK.
inline bool CallOk(gelu_status s, const std::string& what, Report* r) {
  if (s == GELU_OK) return true;
  if (r->cuda_error.empty()) {
    r->cuda_error = what + " returned " + std::to_string(s) + ": " + gelu_cuda_last_error_string();
  }
  return false;
}

// A closed gate holds back everything enqueued on a stream after it, as a long kernel on a busy stream would, but
// for as long as the test wants: a host function on the stream that waits until Open(). Nothing may wait for the
// stream while the gate is closed (a copy from pageable memory, a synchronising call, loading a kernel lazily), or
// it would wait for ever: the gate opens itself after kTimeout instead, and TimedOut() says so.
class StreamGate {
 public:
  static constexpr std::chrono::seconds kTimeout{20};
  bool Close(cudaStream_t s, Report* r) {
    // The host function owns a reference to the state: it may run after this object is gone (an early return).
    auto* ref = new std::shared_ptr<State>(state_);
    if (Failed(cudaLaunchHostFunc(s, &Wait, ref), "cudaLaunchHostFunc", r)) {
      delete ref;
      return false;
    }
    return true;
  }
  void Open() { state_->open.store(true); }
  bool TimedOut() const { return state_->timed_out.load(); }
  ~StreamGate() { Open(); }

 private:
  struct State {
    std::atomic<bool> open{false}, timed_out{false};
  };
  static void CUDART_CB Wait(void* p) {
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
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

// Runs enqueue() (fills, the library call, read-backs: all asynchronous, on s) behind a closed gate. While the
// gate is closed, the device ranges in `watched` must still hold the byte `stale` everywhere (read on a separate
// stream): a fill that does not wait for s, or a call that launches on another stream, would have changed them.
// Then opens the gate and waits for s. False (with the reason in r) on any failure.
inline bool RunBehindGate(cudaStream_t s, const std::vector<std::pair<const void*, size_t>>& watched, int stale,
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

// Poison bytes: 0xFF makes a float32 NaN (0xffffffff) / 16-bit NaN; 0xA5 a finite value (-2.9e-16 as float32,
// -2.9e-16 as bf16, -0.0224 as fp16). The exhaustive checks use 0xA5, so that a NaN input's NaN result cannot hide
// an unwritten element; the finite value itself is a possible result for a handful of inputs, where an unwritten
// element would go unseen, which the sizes check (0xFF, finite inputs mostly) covers.
constexpr int kPoisonFinite = 0xA5;
constexpr int kPoisonNan = 0xFF;

// How a check makes its library call: inline, or on another thread (CheckDeviceReset). The call and the check of
// its status (which reads the calling thread's gelu_cuda_last_error_string) run together.
using CallRunner = std::function<bool(const std::function<bool()>&)>;
inline bool RunInline(const std::function<bool()>& call) { return call(); }

// Another evaluation to compare the device's results with, besides the host's: also(g, x, y, n) writes y[0, n).
using AlsoEval = std::function<void(const void*, const void*, void*, size_t)>;

// Runs f over `total` elements in chunks of `chunk`; fill(begin, count, g, x) writes the host inputs (g is null for
// forward functions). Every result is compared with the host's, and with also's where also is given (named
// also_name in the failure lines).
inline Report CheckStream(const Function& f, uint64_t total, size_t chunk,
                          const std::function<void(uint64_t, size_t, void*, void*)>& fill,
                          const CallRunner& run = RunInline, const AlsoEval& also = nullptr,
                          const char* also_name = "") {
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

// Every input: float32, all 2^32 bit patterns of x (grad_out, for backward, a fixed pseudo-random mix of
// arbitrary bit patterns and values in [0.5, 2) of either sign); bf16/fp16 forward, all 65,536 x (twice: see
// below); bf16/fp16 backward, all 2^32 (grad_out, x) pairs.
inline uint32_t Mix(uint64_t i) {  // splitmix64's finaliser, low 32 bits
  uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>(z ^ (z >> 31));
}
inline uint32_t GradBitsF32(uint64_t i) {
  const uint32_t h = Mix(i);
  if (h & 1) return Mix(i ^ 0x5555);                       // any bit pattern: tiny, huge, inf, NaN
  return (h & 0x80000000u) | (0x3F000000u + (h >> 8 & 0xFFFFFF));  // [0.5, 2) with a random sign
}

// The float32 inputs of element i (x = i's bit pattern) for i in [begin, begin + n); g may be null (forward).
inline void FillExhaustiveF32(uint64_t begin, size_t n, void* g, void* x) {
  auto* xs = static_cast<uint32_t*>(x);
  auto* gs = static_cast<uint32_t*>(g);
  for (size_t i = 0; i < n; ++i) {
    xs[i] = static_cast<uint32_t>(begin + i);
    if (gs != nullptr) gs[i] = GradBitsF32(begin + i);
  }
}

// also (optional, see CheckStream): a second evaluation to compare with, e.g. the CPU library.
inline Report CheckExhaustive(const Function& f, size_t chunk = size_t{1} << 26, const AlsoEval& also = nullptr,
                              const char* also_name = "") {
  if (f.type == Type::kF32) {
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

// Random inputs of type t: mostly values of spread ~3 (a sum of three uniforms on [-3, 3]), one in eight an
// arbitrary bit pattern (tiny, huge, inf, NaN). A counter hash, so any range fills in parallel.
inline void RandomFill(Type t, void* p, size_t n, uint64_t seed) {
  ParallelFor(n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint64_t k = (seed << 40) ^ (i * 4);
      const uint32_t r = Mix(k);
      float v = 0;
      for (int j = 1; j <= 3; ++j) v += static_cast<float>(Mix(k + j) >> 8) * (6.0f / 16777216.0f) - 3.0f;
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      const bool raw = (r & 7) == 0;
      if (raw) bits = Mix(k ^ 0xABCDEF);
      if (t == Type::kF32) {
        SetElement(t, p, i, bits);
      } else if (t == Type::kBf16) {
        SetElement(t, p, i, raw ? bits >> 16 : gelu::common::DoubleToBf16(v));
      } else {
        SetElement(t, p, i, raw ? bits >> 16 : gelu::common::DoubleToF16(v));
      }
    }
  });
}

// Sizes 0..40 and around powers of two and vector multiples, element offsets of x, grad_out and the output
// (equal, so the vector path runs, and unequal modulo 16 bytes, so the scalar path runs), in place (y == x and,
// for backward, y == grad_out), and a non-default stream. Guards of kGuard elements on both sides of the output
// must be left as they were. Sizes above 70,000 run three offset cases (aligned, mutually misaligned, in place).
inline Report CheckSizesAndOffsets(const Function& f, uint64_t seed = 1) {
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

// The call made while its stream is busy: the fills, the call and the read-back are enqueued behind a closed
// StreamGate, so the inputs are still unwritten when the library launches its kernel; the kernel must wait for
// them (and the read-back for the kernel). Checked on a non-blocking stream, which does not synchronise with the
// legacy default stream: a kernel launched anywhere but the caller's stream, or a fill enqueued anywhere else,
// runs before the gate opens and is caught (RunBehindGate), as is a call that waits for its stream. n covers the
// 16-bit table path, and offset pointers the head, vector body and tail. The same sequence runs ungated first: a
// plain check, which also loads the kernels (lazy module loading may synchronise the context, which the closed
// gate would hold up).
inline Report CheckBusyStream(const Function& f, uint64_t seed = 5) {
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
      const uint32_t b = inside ? Element(f.type, want.data(), i - 1) : (f.type == Type::kF32 ? 0xFFFFFFFFu : 0xFFFFu);
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

// Invalid arguments: each must return GELU_INVALID_ARGUMENT and write nothing (checked on real device memory when
// `device` is true; otherwise the pointers are host addresses that the library must not touch, so only the
// statuses are checked). n == 0 is valid with any pointers.
inline Report CheckInvalidArguments(bool device) {
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
        {"approximate 3", g, x, y, n, 3, GELU_INVALID_ARGUMENT},
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

// n >= 2^34 + 3 float32 elements in place (64 GiB; reported skipped if the device has less free memory, which
// SkipIsFailure makes a failure on a machine with a GPU), offset by one
// element so that the head, the vector body and the tail all run, with indices past 2^32 and 2^33; every element
// is copied back and checked, and a guard after the array must be untouched.
inline Report CheckLargeInPlace(uint64_t n = (uint64_t{1} << 34) + 3) {
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
  const Function f{Type::kF32, false, 0};
  if (gelu_cuda_forward_f32(x, x, static_cast<size_t>(n), GELU_APPROXIMATE_NONE, nullptr) != GELU_OK) {
    r.cuda_error = std::string("gelu_cuda_forward_f32: ") + gelu_cuda_last_error_string();
    return r;
  }
  float v;
  const uint32_t fill = 0x3F3F3F3Fu;
  std::memcpy(&v, &fill, 4);
  const float in[1] = {v};
  const float want_f = gelu::cuda::ForwardF32Op<0>::Apply(in);
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
        if (Element(Type::kF32, h.p, i) != expect) {
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
             " wrong in this chunk): got " + Hex(Element(Type::kF32, h.p, static_cast<size_t>(k - begin)), Type::kF32) +
             ", want " + Hex((k >= 1 && k < 1 + n) ? want : fill, Type::kF32));
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

// cudaDeviceReset() destroys the context and everything in it, the 16-bit lookup tables of src/cuda/gelu.cu
// included; the next call runs in a new context, whose tables must be built again (reading them unbuilt gives
// zeros). Every 16-bit function over all 65,536 x in one call (n = 2^16: the table path where there is a table),
// grad_out arbitrary bits, before and after a reset. The library calls run on a second thread that last used
// CUDA before the reset (this thread resets, allocates and fills), so that after it the library's call is that
// thread's first CUDA call, in whatever state the reset left its current context; this thread's own next call is
// covered by the ordinary checks. Resets the device: run it where no other CUDA object is alive.
inline Report CheckDeviceReset() {
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
      if (f.type == Type::kF32) continue;
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

// Without a device, a valid call must return GELU_CUDA_ERROR with CUDA's text, never abort.
inline Report CheckNoDeviceError() {
  Report r;
  std::vector<float> x(16, 1.0f), y(16, 0.0f);
  r.checked = 1;
  const gelu_status s = gelu_cuda_forward_f32(x.data(), y.data(), x.size(), GELU_APPROXIMATE_NONE, nullptr);
  if (s != GELU_CUDA_ERROR) r.Fail("returned " + std::to_string(s) + ", want GELU_CUDA_ERROR");
  if (std::strlen(gelu_cuda_last_error_string()) == 0) r.Fail("gelu_cuda_last_error_string() is empty");
  return r;
}

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_GPU_CHECKS_H_
