// SPDX-License-Identifier: Apache-2.0
// CUDA kernels behind include/gelu/gelu_cuda.h: every form, forward and backward, fp32/bf16/fp16.
//
// Arithmetic: the per-element functions are src/common/gelu_f32_math.h (float core and tail) and
// src/common/gelu_scalar.h (the double path of src/common/gelu_in_double.inc), the same sources the host scalar
// path and the CPU's SIMD kernels compile, built here with --fmad=false so that nvcc contracts nothing the source
// does not write as an FMA (the sources write their FMAs explicitly, __fma_rn on the device, std::fma on the host). Double-precision
// adds, multiplies, FMAs and the division are correctly rounded on both sides, so a device result has the
// host's bits for every input (tests/cuda/ checks all 2^32 float32 inputs); NaN payloads may differ.
//
// Cost: float32 and the 16-bit types evaluate in float through the float core (gelu_ops.h), fp64 only in the tail
// lanes the float core leaves to the double path and, for 16-bit results, the lanes near a rounding midpoint. The
// arrays are far larger than L2 in the cases that matter, so the bound is the copy's bytes/s. Measured on an H200
// (docs/CUDA.md, "Measured speed"), the kernels stay below it with neither DRAM nor the SMs saturated: too few
// bytes are in flight while warps compute.
//
// Memory access: each thread moves 16-byte vectors (uint4: 4 floats or 8 halves), kUnroll of them loaded before
// the first is used, so that enough bytes are in flight to cover DRAM latency; grid-stride loops over a grid
// sized to the resident capacity of the device (SM count x blocks per SM from the occupancy calculator). The
// vectors cover the part of the array where every pointer is 16-byte aligned; the < 8 elements before it (the
// head) and after it (the tail) are done one by one in the same launch. If the pointers' offsets modulo 16
// differ (e.g. y = x + 1 element), no common alignment exists and the whole array takes the scalar loop.
// Streaming loads and stores (ld.global.cs / st.global.cs) tell L2 not to keep data that is used once.
// Indices are size_t throughout: n may exceed 2^32 (the largest array tested has 2^34 + 3 elements).
#include "gelu/gelu_cuda.h"

#include <cuda.h>  // CUcontext, CUDA_SUCCESS (types only: the calls go through cudaGetDriverEntryPoint)
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <utility>

#include "src/common/functions.h"
#include "src/cuda/cuda_common.h"
#include "src/cuda/gelu_ops.h"
#include "src/cuda/table_range.h"

namespace gelu::cuda {
namespace {

// Launch geometry. The macros exist for bench/gpu/launch_variants.sh, which builds the library with other values
// and times each on a GPU; the defaults are the values chosen from its table (docs/CUDA.md).
#ifndef GELU_CUDA_THREADS
#define GELU_CUDA_THREADS 256
#endif
#ifndef GELU_CUDA_UNROLL
#define GELU_CUDA_UNROLL 4
#endif
#ifndef GELU_CUDA_MIN_BLOCKS  // __launch_bounds__'s minimum resident blocks per SM (caps registers); 0: none
#define GELU_CUDA_MIN_BLOCKS 0
#endif
#ifndef GELU_CUDA_GRID_STRIDE  // 1: grid capped at the resident blocks, grid-stride loop; 0: one pass, grid to fit n
#define GELU_CUDA_GRID_STRIDE 1
#endif
constexpr int kThreads = GELU_CUDA_THREADS;  // per block; any multiple of 32 would do for elementwise work
constexpr int kUnroll = GELU_CUDA_UNROLL;    // 16-byte vectors in flight per thread and input
constexpr int kMinBlocks = GELU_CUDA_MIN_BLOCKS;
constexpr bool kGridStride = GELU_CUDA_GRID_STRIDE != 0;
constexpr int kVectorBytes = 16;  // uint4

// ---------------------------------------------------------------------------------------------------------
// The kernel.

template <class T, int kInputs>
struct Params {
  const T* in[kInputs];
  T* out;
  size_t n;
  size_t head;     // elements [0, head) are done one by one (before the first aligned vector)
  size_t vectors;  // then `vectors` 16-byte vectors; the rest, [head + vectors * lanes, n), one by one
};

template <class T>
union Vector {
  uint4 bits;
  T lanes[kVectorBytes / sizeof(T)];
};

// Kernel operations: an element operation of gelu_ops.h (Direct), or one that looks most inputs up in a table
// held in shared memory (below). kSharedBytes of dynamic shared memory are filled by Prepare before any Apply.
template <class ElementOp>
struct Direct {
  using T = typename ElementOp::T;
  static constexpr int kInputs = ElementOp::kInputs;
  static constexpr size_t kSharedBytes = 0;
  __device__ __forceinline__ static void Prepare(uint4*) {}
  __device__ __forceinline__ static T Apply(const T (&in)[kInputs], const uint4*) { return ElementOp::Apply(in); }
};

template <class Op>
__global__ void __launch_bounds__(kThreads, kMinBlocks) GeluKernel(const Params<typename Op::T, Op::kInputs> p) {
  using T = typename Op::T;
  constexpr int kIn = Op::kInputs;
  constexpr int kLanes = kVectorBytes / sizeof(T);
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  extern __shared__ uint4 shared[];
  if constexpr (Op::kSharedBytes > 0) {
    Op::Prepare(shared);
    __syncthreads();
  }

  // Vector body. In iteration j thread t handles vectors t + (j*kUnroll + u) * stride, u < kUnroll: for each u
  // a warp touches 32 consecutive vectors (512 bytes), and all kUnroll * kIn loads are issued before any use.
  const uint4* in_vec[kIn];
#pragma unroll
  for (int k = 0; k < kIn; ++k) in_vec[k] = reinterpret_cast<const uint4*>(p.in[k] + p.head);
  uint4* out_vec = reinterpret_cast<uint4*>(p.out + p.head);
  for (size_t v = tid; v < p.vectors; v += kUnroll * stride) {
    Vector<T> a[kUnroll][kIn];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const size_t i = v + u * stride;
      if (i < p.vectors) {
#pragma unroll
        for (int k = 0; k < kIn; ++k) a[u][k].bits = __ldcs(in_vec[k] + i);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const size_t i = v + u * stride;
      if (i < p.vectors) {
        Vector<T> r;
#pragma unroll
        for (int l = 0; l < kLanes; ++l) {
          T e[kIn];
#pragma unroll
          for (int k = 0; k < kIn; ++k) e[k] = a[u][k].lanes[l];
          r.lanes[l] = Op::Apply(e, shared);
        }
        __stcs(out_vec + i, r.bits);
      }
    }
  }

  // Head and tail (or, without a common alignment, everything), one element per thread and step, kUnroll
  // elements loaded before use as above.
  const size_t body_end = p.head + p.vectors * kLanes;
  const size_t scalars = p.head + (p.n - body_end);
  for (size_t s = tid; s < scalars; s += kUnroll * stride) {
    T a[kUnroll][kIn];
    size_t idx[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const size_t j = s + u * stride;
      idx[u] = j < p.head ? j : body_end + (j - p.head);
      if (j < scalars) {
#pragma unroll
        for (int k = 0; k < kIn; ++k) a[u][k] = p.in[k][idx[u]];
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (s + u * stride < scalars) p.out[idx[u]] = Op::Apply(a[u], shared);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// 16-bit forward lookup tables. A 16-bit input has only 65,536 values, so f(x) can be computed once per context by
// the same element functions and looked up: the same bits as computing them, without the evaluation (the float
// core's ~25 float operations and table loads, more in the lanes that take the double path). The tables cover the
// binades where activations live, |x| in [2^-16, 16) for bf16 (5,120 values) and [2^-8, 16) for fp16 (24,576
// values); other inputs, rare in N(0, s) data, are computed as in Direct. Each block copies its table from global to
// shared memory (10 KiB bf16, 48 KiB fp16), where a warp's 32 random look-ups cost a few bank cycles rather than the
// dozens of L1 wavefronts of a global gather; on an H200 the bf16 forward ran faster with its table than computed
// (docs/CUDA.md). The backward functions compute: a bf16 table of f' in double (40 KiB, then a double product and
// rounding per element) ran slower than computing there and was removed, and an fp16 one over a useful range would
// not fit (8 bytes per entry, 2,048 entries per binade).

// 16-byte aligned: blocks copy them as uint4 vectors (each form's row is a multiple of 16 bytes too).
__device__ __align__(16) uint16_t g_bf16_forward[common::kNumForms][Bf16Range::kEntries];
__device__ __align__(16) uint16_t g_f16_forward[common::kNumForms][F16Range::kEntries];

template <common::Form kForm>
__device__ void InitTablesForm(int i) {
  if (i < Bf16Range::kEntries) {
    const uint16_t in[1] = {Bf16Range::Value(i)};
    g_bf16_forward[kForm][i] = ForwardBf16Op<kForm>::Apply(in);
  }
  if (i < F16Range::kEntries) {
    const uint16_t in[1] = {F16Range::Value(i)};
    g_f16_forward[kForm][i] = ForwardF16Op<kForm>::Apply(in);
  }
}

// Every form's tables: the forms are the values 0 .. kNumForms - 1 of gelu_approximate (src/common/functions.h).
template <int... kForms>
__device__ void InitTablesForms(int i, std::integer_sequence<int, kForms...>) {
  (InitTablesForm<static_cast<common::Form>(kForms)>(i), ...);
}

__global__ void InitTables() {
  InitTablesForms(static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x),
                  std::make_integer_sequence<int, common::kNumForms>{});
}

template <class Entry, int kEntries>
__device__ __forceinline__ void CopyToShared(const Entry* table, uint4* shared) {
  static_assert(kEntries * sizeof(Entry) % sizeof(uint4) == 0, "tables are whole 16-byte vectors");
  const uint4* src = reinterpret_cast<const uint4*>(table);
  for (int i = threadIdx.x; i < static_cast<int>(kEntries * sizeof(Entry) / sizeof(uint4)); i += blockDim.x) {
    shared[i] = __ldg(src + i);
  }
}

// An input outside the table's binades (rare in N(0, s) data): computed, out of line, so that the unrolled body of
// the table kernel holds the lookups only.
template <class Format, common::Form kForm>
__device__ __noinline__ uint16_t ForwardHalfOutsideTable(uint16_t x) {
  const uint16_t in[1] = {x};
  return ForwardHalfOp<Format, kForm>::Apply(in);
}

template <class Format, class Range, common::Form kForm>
struct ForwardHalfTable {
  using T = uint16_t;
  static constexpr int kInputs = 1;
  static constexpr size_t kSharedBytes = Range::kEntries * sizeof(uint16_t);
  __device__ __forceinline__ static const uint16_t* Global() {
    if constexpr (std::is_same_v<Format, common::Bf16>) {
      return g_bf16_forward[kForm];
    } else {
      return g_f16_forward[kForm];
    }
  }
  __device__ __forceinline__ static void Prepare(uint4* shared) {
    CopyToShared<uint16_t, Range::kEntries>(Global(), shared);
  }
  __device__ __forceinline__ static T Apply(const T (&in)[1], const uint4* shared) {
    const int index = Range::Index(in[0]);
    if (index >= 0) return reinterpret_cast<const uint16_t*>(shared)[index];
    return ForwardHalfOutsideTable<Format, kForm>(in[0]);
  }
};

template <common::Form kForm> using ForwardBf16Table = ForwardHalfTable<common::Bf16, Bf16Range, kForm>;
template <common::Form kForm> using ForwardF16Table = ForwardHalfTable<common::F16, F16Range, kForm>;

// ---------------------------------------------------------------------------------------------------------
// Host side: errors, launch geometry (argument checks: src/common/validate.h).

// Blocks of GeluKernel<Op> that fit on the device at once (SMs x resident blocks per SM), cached per device.
template <class Op>
gelu_status ResidentBlocks(int device, size_t* blocks) {
  static std::atomic<int> cache[kMaxDevices] = {};
  const bool cacheable = device >= 0 && device < kMaxDevices;
  if (cacheable) {
    const int cached = cache[device].load(std::memory_order_relaxed);
    if (cached > 0) {
      *blocks = static_cast<size_t>(cached);
      return GELU_OK;
    }
  }
  int sms = 0, per_sm = 0;
  cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err != cudaSuccess) return CudaFailure("cudaDeviceGetAttribute(MultiProcessorCount)", err);
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, GeluKernel<Op>, kThreads, Op::kSharedBytes);
  if (err != cudaSuccess) return CudaFailure("cudaOccupancyMaxActiveBlocksPerMultiprocessor", err);
  const int total = (sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
  if (cacheable) cache[device].store(total, std::memory_order_relaxed);
  *blocks = static_cast<size_t>(total);
  return GELU_OK;
}

// The 16-bit tables live in the module's __device__ memory, of which every CUDA context has its own copy: a
// context made after cudaDeviceReset() (or a second context on the device) starts with them unbuilt, zeros. So
// they are built once per context, which is told by cuCtxGetId: an ID unique for the life of the process (a
// CUcontext handle can be reused after a reset; the ID is not). Building is one small kernel on a private stream,
// waited for, so that every later launch in the context, on any stream, sees the tables. (That first call in a
// context therefore blocks the host briefly and must not happen during stream capture; any earlier 16-bit call of
// n >= kTableMinElements in the context warms it up.) The two driver calls are found through the runtime, so no
// link to libcuda is needed; without them (a driver older than CUDA 12.0) the callers compute every element.
struct ContextQueries {
  PFN_cuCtxGetCurrent_v4000 get_current = nullptr;
  PFN_cuCtxGetId_v12000 get_id = nullptr;
};

const ContextQueries& DriverContextQueries() {
  static const ContextQueries queries = [] {
    ContextQueries q;
    const auto find = [](const char* symbol, void** fn, unsigned version) {
      cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
      const cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, fn, version, cudaEnableDefault, &found);
#else
      (void)version;
      const cudaError_t err = cudaGetDriverEntryPoint(symbol, fn, cudaEnableDefault, &found);
#endif
      if (err != cudaSuccess || found != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        *fn = nullptr;
      }
    };
    find("cuCtxGetCurrent", reinterpret_cast<void**>(&q.get_current), 4000);
    find("cuCtxGetId", reinterpret_cast<void**>(&q.get_id), 12000);
    return q;
  }();
  return queries;
}

// The ID of the context this thread's launches go to; false if none is current or the current one is destroyed.
bool CurrentContextId(unsigned long long* id) {
  const ContextQueries& q = DriverContextQueries();
  CUcontext context = nullptr;
  return q.get_current != nullptr && q.get_id != nullptr && q.get_current(&context) == CUDA_SUCCESS &&
         context != nullptr && q.get_id(context, id) == CUDA_SUCCESS;
}

// Contexts whose tables are built, as ID + 1 (0: an empty slot). IDs are never reused, so an entry stays true
// until its context is gone (then unused). A bounded ring: a process that made more contexts rebuilds in an
// evicted one, no worse.
std::mutex g_tables_mutex;
unsigned long long g_tables_contexts[64] = {};
size_t g_tables_next = 0;
thread_local unsigned long long t_tables_context = 0;  // the last context this thread found built, ID + 1

// Builds the current context's tables if needed; *ready = false where tables cannot be used (no context ID).
gelu_status EnsureTables(int device, bool* ready) {
  *ready = false;
  unsigned long long id = 0;
  if (!CurrentContextId(&id)) {
    // No context bound yet on this thread (first call, or the first after cudaDeviceReset): since CUDA 12.0
    // cudaSetDevice initialises the device's primary context and makes it current, as the launch would.
    if (const cudaError_t err = cudaSetDevice(device); err != cudaSuccess) return CudaFailure("cudaSetDevice", err);
    if (!CurrentContextId(&id)) return GELU_OK;
  }
  const unsigned long long key = id + 1;
  if (t_tables_context == key) {
    *ready = true;
    return GELU_OK;
  }
  std::lock_guard<std::mutex> lock(g_tables_mutex);
  for (const unsigned long long built : g_tables_contexts) {
    if (built == key) {
      t_tables_context = key;
      *ready = true;
      return GELU_OK;
    }
  }
  cudaStream_t s = nullptr;
  cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (err != cudaSuccess) return CudaFailure("cudaStreamCreateWithFlags", err);
  constexpr int kEntries = Bf16Range::kEntries > F16Range::kEntries ? Bf16Range::kEntries : F16Range::kEntries;
  InitTables<<<(kEntries + kThreads - 1) / kThreads, kThreads, 0, s>>>();
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  const cudaError_t destroy = cudaStreamDestroy(s);
  if (err != cudaSuccess) return CudaFailure("16-bit table initialisation", err);
  if (destroy != cudaSuccess) return CudaFailure("cudaStreamDestroy", destroy);
  g_tables_contexts[g_tables_next] = key;
  g_tables_next = (g_tables_next + 1) % (sizeof g_tables_contexts / sizeof g_tables_contexts[0]);
  t_tables_context = key;
  *ready = true;
  return GELU_OK;
}

// Tables pay off once the arrays are large enough for the per-block copy (10-48 KiB) to be noise.
constexpr size_t kTableMinElements = size_t{1} << 16;

// GELU_CUDA_HALF_TABLES=0 turns the tables off (every element computed), for benchmarking and testing the two
// paths; the results are the same bits either way. Read once.
bool TablesEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("GELU_CUDA_HALF_TABLES");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

template <class Op>
gelu_status Launch(int device, const typename Op::T* const (&in)[Op::kInputs], typename Op::T* out, size_t n,
                   void* stream) {
  using T = typename Op::T;
  constexpr size_t kLanes = kVectorBytes / sizeof(T);
  Params<T, Op::kInputs> p{};
  for (int k = 0; k < Op::kInputs; ++k) p.in[k] = in[k];
  p.out = out;
  p.n = n;
  // The vector body starts where in[0] is 16-byte aligned; usable only if every pointer is then aligned too.
  const uintptr_t offset = reinterpret_cast<uintptr_t>(in[0]) % kVectorBytes;
  bool common_alignment = reinterpret_cast<uintptr_t>(out) % kVectorBytes == offset;
  for (const T* q : in) common_alignment = common_alignment && reinterpret_cast<uintptr_t>(q) % kVectorBytes == offset;
  const size_t head = ((kVectorBytes - offset) % kVectorBytes) / sizeof(T);
  if (common_alignment && head < n) {
    p.head = head;
    p.vectors = (n - head) / kLanes;
  } else {
    p.head = n;
    p.vectors = 0;
  }
  const size_t scalars = n - p.vectors * kLanes;
  // Threads wanted: one per kUnroll vectors, or per scalar element if there are more of those.
  const size_t per_thread_items = (p.vectors + kUnroll - 1) / kUnroll;
  const size_t threads = per_thread_items > scalars ? per_thread_items : scalars;
  size_t blocks = (threads + kThreads - 1) / kThreads;
  size_t resident = 0;
  if (const gelu_status s = ResidentBlocks<Op>(device, &resident); s != GELU_OK) return s;
  if (kGridStride && blocks > resident) blocks = resident;
  constexpr size_t kMaxGrid = 0x7FFFFFFF;  // gridDim.x's limit; the loops stride over whatever is beyond it
  if (blocks > kMaxGrid) blocks = kMaxGrid;
  if (blocks == 0) blocks = 1;
  GeluKernel<Op><<<static_cast<unsigned>(blocks), kThreads, Op::kSharedBytes, static_cast<cudaStream_t>(stream)>>>(p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return CudaFailure("kernel launch", err);
  return GELU_OK;
}

// A placeholder for "no table variant".
template <common::Form kForm>
struct NoTable {};

// Validates, then picks the instantiation for `approximate` (and the table variant where one exists).
template <template <common::Form> class Op, template <common::Form> class TableOp = NoTable, class T, int kInputs>
gelu_status Run(const T* const (&in)[kInputs], T* out, size_t n, gelu_approximate approximate, void* stream) {
  static_assert(kInputs == 1 || kInputs == 2, "forward: {x}; backward: {grad_out, x}");
  if (!validate::ValidForm(approximate)) return GELU_INVALID_ARGUMENT;
  const auto v = validate::Elementwise(sizeof(T), alignof(T), kInputs == 2, kInputs == 2 ? in[0] : nullptr,
                                       in[kInputs - 1], out, n);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  int device = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return CudaFailure("cudaGetDevice", err);
  constexpr bool kHasTable = !std::is_same_v<TableOp<common::kNone>, NoTable<common::kNone>>;
  if constexpr (kHasTable) {
    bool tables = false;
    if (n >= kTableMinElements && TablesEnabled()) {
      if (const gelu_status s = EnsureTables(device, &tables); s != GELU_OK) return s;
    }
    if (tables) {
      return common::VisitForm(approximate, [&](auto k) {
        return Launch<TableOp<decltype(k)::value>>(device, in, out, n, stream);
      });
    }
  }
  return common::VisitForm(approximate, [&](auto k) {
    return Launch<Direct<Op<decltype(k)::value>>>(device, in, out, n, stream);
  });
}

}  // namespace
}  // namespace gelu::cuda

extern "C" {

gelu_status gelu_cuda_forward_f32(const float* x, float* y, size_t n, gelu_approximate approximate,
                                  void* stream) {
  const float* const in[1] = {x};
  return gelu::cuda::Run<gelu::cuda::ForwardF32Op>(in, y, n, approximate, stream);
}

gelu_status gelu_cuda_backward_f32(const float* grad_out, const float* x, float* grad_in, size_t n,
                                   gelu_approximate approximate, void* stream) {
  const float* const in[2] = {grad_out, x};
  return gelu::cuda::Run<gelu::cuda::BackwardF32Op>(in, grad_in, n, approximate, stream);
}

gelu_status gelu_cuda_forward_bf16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate,
                                   void* stream) {
  const uint16_t* const in[1] = {x};
  return gelu::cuda::Run<gelu::cuda::ForwardBf16Op, gelu::cuda::ForwardBf16Table>(in, y, n, approximate, stream);
}

gelu_status gelu_cuda_backward_bf16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                                    gelu_approximate approximate, void* stream) {
  const uint16_t* const in[2] = {grad_out, x};
  return gelu::cuda::Run<gelu::cuda::BackwardBf16Op>(in, grad_in, n, approximate, stream);
}

gelu_status gelu_cuda_forward_f16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate,
                                  void* stream) {
  const uint16_t* const in[1] = {x};
  return gelu::cuda::Run<gelu::cuda::ForwardF16Op, gelu::cuda::ForwardF16Table>(in, y, n, approximate, stream);
}

gelu_status gelu_cuda_backward_f16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                                   gelu_approximate approximate, void* stream) {
  const uint16_t* const in[2] = {grad_out, x};
  return gelu::cuda::Run<gelu::cuda::BackwardF16Op>(in, grad_in, n, approximate, stream);
}

const char* gelu_cuda_last_error_string(void) { return gelu::cuda::g_last_error; }  // cuda_common.h

}  // extern "C"
