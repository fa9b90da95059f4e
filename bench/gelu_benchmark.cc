// SPDX-License-Identifier: Apache-2.0
// Google Benchmark suite for the public C API, with its floors and peers in the same run, so that ratios hold
// on a shared, noisy machine (docs/BENCHMARKS.md builds its tables from this output).
//
// Names, one field per '/', so a table is a split away (Google Benchmark appends "/real_time" to threaded runs):
//   <impl>/<op>/<dtype>/<form>/<dist>/<threads>/<n>
//     impl     gelu (this library, C API) | naive (scalar libm loop) | onednn (eltwise_gelu_erf/_tanh, f32)
//              | copy (memcpy of the same bytes: the memory floor)
//     op       fwd | bwd | copy          dtype  f32 | f64
//     form     none | tanh | sigmoid     (oneDNN: none = eltwise_gelu_erf, tanh = eltwise_gelu_tanh; copy: -)
//     dist     normal = N(0,1), what transformer pre-activations look like; uniform = U[-10,10], tail-heavy
//              (XNNPACK bench/utils.h; never below -10, where the tail path costs more: cost_by_class.cc);
//              copy: -
//     threads  t1 (gelu_set_num_threads(1), omp_set_num_threads(1)) | tall (0 = every hardware thread)
//     n        elements: 4096, 65536, 1048576, 16777216
//     impl may also be `baseline`: the same C API from another build of this library (an earlier commit), loaded
//     with dlopen from $GELU_BENCH_BASELINE (bench/run_benchmarks.sh builds it), measured in the same process.
//   BM_GeluF32/<HighwayTarget>/<n>: fp32 forward none, N(0,1), 1 thread, forced to each target this CPU supports
//     (hwy::SetSupportedTargetsForTest; the label shows the target gelu_simd_target() reports).
//   target/<HighwayTarget>/<impl>/<op>/f32/<form>/<dist>/t1/65536: every f32 function of ours and the baseline's,
//     forced to each target (both libraries dispatch through the one libhwy, so the forced target holds for both).
// Counters (Counter::kIsRate): elements/s and bytes/s, bytes = read + written (forward 2n, backward 3n values).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bench/baseline_library.h"
#include "benchmark/benchmark.h"
#include "gelu/gelu.h"
#include "hwy/aligned_allocator.h"
#include "hwy/targets.h"
#include "src/common/functions.h"
#include "src/parallel/parallel.h"
#include "src/reference/naive.h"

#if GELU_BENCH_ONEDNN
#include "oneapi/dnnl/dnnl.hpp"
#endif

namespace {

constexpr size_t kSizes[] = {size_t{4} << 10, size_t{64} << 10, size_t{1} << 20, size_t{16} << 20};
constexpr size_t kMaxSize = size_t{16} << 20;

enum class Dist { kNormal, kUniform };
enum class Threads { kOne, kAll };
enum class Op { kForward, kBackward };

const char* DistName(Dist d) { return d == Dist::kNormal ? "normal" : "uniform"; }
const char* ThreadsName(Threads t) { return t == Threads::kOne ? "t1" : "tall"; }
const char* OpName(Op op) { return op == Op::kForward ? "fwd" : "bwd"; }
const char* FormName(gelu_approximate a) { return gelu::common::kFormNames[a]; }
template <typename T>
const char* TypeName() {
  return gelu::common::TypeSuffix(std::is_same_v<T, float> ? gelu::common::kF32 : gelu::common::kF64);
}

// "All threads" is what gelu_set_num_threads(0) means: every hardware thread.
int AllThreads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }
int ThreadCount(Threads t) { return t == Threads::kOne ? 1 : AllThreads(); }

// The entry points of this build and of the baseline (bench/baseline_library.h).
using gelu::bench::Library;
using gelu::bench::Ours;
const Library* Baseline() { return gelu::bench::Baseline("gelu_benchmark"); }

// Both the library (gelu_set_num_threads) and the OpenMP users in this file (oneDNN's OMP runtime, the threaded
// copy and naive loops) are told the thread count before each run, so no setting leaks between benchmarks.
void SetThreads(Threads t) {
  gelu_set_num_threads(t == Threads::kOne ? 1 : 0);
  if (Baseline() != nullptr) Baseline()->set_num_threads(t == Threads::kOne ? 1 : 0);
  omp_set_num_threads(ThreadCount(t));
}

// Fixed-seed inputs of the largest size, generated once; smaller sizes use a prefix (same distribution), so the
// in-cache sizes stay hot across iterations as they would inside a layer. f32 arrays are the f64 values rounded,
// so both precisions see the same numbers. Outputs are allocated and touched once, so no run pays page faults.
template <typename T>
struct Arrays {
  hwy::AlignedFreeUniquePtr<T[]> normal, uniform, grad, out;
};

template <typename T>
Arrays<T>& Data() {
  static Arrays<T> a = [] {
    Arrays<T> r;
    r.normal = hwy::AllocateAligned<T>(kMaxSize);
    r.uniform = hwy::AllocateAligned<T>(kMaxSize);
    r.grad = hwy::AllocateAligned<T>(kMaxSize);
    r.out = hwy::AllocateAligned<T>(kMaxSize);
    std::mt19937_64 rng(20261129);  // fixed seed: every run measures the same inputs
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> uniform(-10.0, 10.0);
    for (size_t i = 0; i < kMaxSize; ++i) r.normal[i] = static_cast<T>(normal(rng));
    for (size_t i = 0; i < kMaxSize; ++i) r.uniform[i] = static_cast<T>(uniform(rng));
    // grad_out ~ N(0,1): no zeros, subnormals or infinities that could take a special path.
    for (size_t i = 0; i < kMaxSize; ++i) r.grad[i] = static_cast<T>(normal(rng));
    std::memset(r.out.get(), 0, kMaxSize * sizeof(T));
    return r;
  }();
  return a;
}

template <typename T>
const T* Input(Dist d) {
  return d == Dist::kNormal ? Data<T>().normal.get() : Data<T>().uniform.get();
}

void SetCounters(benchmark::State& state, size_t n, size_t bytes_per_iteration) {
  const double iters = static_cast<double>(state.iterations());
  state.counters["elements"] = benchmark::Counter(iters * static_cast<double>(n), benchmark::Counter::kIsRate);
  state.counters["bytes"] =
      benchmark::Counter(iters * static_cast<double>(bytes_per_iteration), benchmark::Counter::kIsRate);
}

// The threaded copy and naive loops split [0, n) exactly as the library does (src/parallel/parallel.h).
template <typename F>
void ParallelBlocks(size_t n, int threads, const F& fn) {
  gelu::parallel::ParallelForThreads(n, threads, fn);
}

// ---------------------------------------------------------------------------------------------- this library

gelu_status Forward(const Library& l, const float* x, float* y, size_t n, gelu_approximate a) {
  return l.forward_f32(x, y, n, a);
}
gelu_status Forward(const Library& l, const double* x, double* y, size_t n, gelu_approximate a) {
  return l.forward_f64(x, y, n, a);
}
gelu_status Backward(const Library& l, const float* g, const float* x, float* gi, size_t n, gelu_approximate a) {
  return l.backward_f32(g, x, gi, n, a);
}
gelu_status Backward(const Library& l, const double* g, const double* x, double* gi, size_t n, gelu_approximate a) {
  return l.backward_f64(g, x, gi, n, a);
}

template <typename T>
void BM_Gelu(benchmark::State& state, const Library& lib, Op op, gelu_approximate form, Dist dist, Threads threads,
             size_t n) {
  SetThreads(threads);
  const T* x = Input<T>(dist);
  const T* g = Data<T>().grad.get();
  T* y = Data<T>().out.get();
  gelu_status status = GELU_OK;
  for (auto _ : state) {
    status = op == Op::kForward ? Forward(lib, x, y, n, form) : Backward(lib, g, x, y, n, form);
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  if (status != GELU_OK) state.SkipWithError(gelu_status_string(status));
  state.SetLabel(lib.simd_target());
  SetCounters(state, n, (op == Op::kForward ? 2 : 3) * n * sizeof(T));
}

// One f32 function of `lib` on n elements, 1 thread, forced to `target` (the label names the target it reports).
void BM_GeluF32ForcedTarget(benchmark::State& state, const Library& lib, int64_t target, Op op, gelu_approximate form,
                            Dist dist, size_t n) {
  hwy::SetSupportedTargetsForTest(target);
  SetThreads(Threads::kOne);
  const float* x = Input<float>(dist);
  const float* g = Data<float>().grad.get();
  float* y = Data<float>().out.get();
  auto call = [&] { return op == Op::kForward ? lib.forward_f32(x, y, n, form) : lib.backward_f32(g, x, y, n, form); };
  gelu_status status = call();  // also makes the dispatch settle
  const std::string chosen = lib.simd_target();
  for (auto _ : state) {
    status = call();
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own set for the benchmarks that follow
  if (status != GELU_OK) state.SkipWithError(gelu_status_string(status));
  if (chosen != hwy::TargetName(target)) {
    state.SkipWithError(("simd_target() is " + chosen + ", not the forced target").c_str());
  }
  state.SetLabel(chosen);
  SetCounters(state, n, (op == Op::kForward ? 2 : 3) * n * sizeof(float));
}

// Forced Highway target: the library dispatches through the process-wide hwy::ChosenTarget, which
// SetSupportedTargetsForTest re-points; gelu_simd_target() then must name the forced target.

// ------------------------------------------------------------------------------------------- floors, baselines

template <typename T>
void BM_Copy(benchmark::State& state, Threads threads, size_t n) {
  SetThreads(threads);
  const T* x = Input<T>(Dist::kNormal);
  T* y = Data<T>().out.get();
  const int nt = ThreadCount(threads);
  for (auto _ : state) {
    ParallelBlocks(n, nt, [&](size_t b, size_t e) { std::memcpy(y + b, x + b, (e - b) * sizeof(T)); });
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  SetCounters(state, n, 2 * n * sizeof(T));
}

// The textbook formula a user writes first: scalar libm, 1+erf (which loses the negative tail), and its backward
// twin Phi(x) + x*phi(x) written the same way (src/reference/naive.h).
template <typename T>
T NaiveF(T x) { return gelu::reference::NaiveForward(x, gelu::common::kNone); }
template <typename T>
T NaiveD(T x) { return gelu::reference::NaiveDerivative(x, gelu::common::kNone); }

template <typename T>
void BM_Naive(benchmark::State& state, Op op, Dist dist, Threads threads, size_t n) {
  SetThreads(threads);
  const T* x = Input<T>(dist);
  const T* g = Data<T>().grad.get();
  T* y = Data<T>().out.get();
  const int nt = ThreadCount(threads);
  for (auto _ : state) {
    if (op == Op::kForward) {
      ParallelBlocks(n, nt, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) y[i] = NaiveF(x[i]);
      });
    } else {
      ParallelBlocks(n, nt, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) y[i] = g[i] * NaiveD(x[i]);
      });
    }
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  SetCounters(state, n, (op == Op::kForward ? 2 : 3) * n * sizeof(T));
}

// ------------------------------------------------------------------------------------------------------ oneDNN

#if GELU_BENCH_ONEDNN
// oneDNN's GELU algorithm for a form, none where it has none (the sigmoid form); one case per form, no default.
std::optional<dnnl::algorithm> OneDnnAlgorithm(gelu_approximate form) {
  switch (form) {
    case GELU_APPROXIMATE_NONE: return dnnl::algorithm::eltwise_gelu_erf;
    case GELU_APPROXIMATE_TANH: return dnnl::algorithm::eltwise_gelu_tanh;
    case GELU_APPROXIMATE_SIGMOID: return std::nullopt;
  }
  return std::nullopt;
}

// oneDNN's eltwise primitive on a 1-D f32 tensor wrapping our arrays (no copies). Its OpenMP runtime takes the
// thread count from omp_get_max_threads(), which SetThreads fixed. Primitive creation (JIT) is outside the loop.
void BM_OneDnn(benchmark::State& state, Op op, gelu_approximate form, Dist dist, Threads threads, size_t n) {
  SetThreads(threads);
  using dnnl::memory;
  const dnnl::algorithm alg = *OneDnnAlgorithm(form);  // registered only where there is one
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const memory::desc md({static_cast<memory::dim>(n)}, memory::data_type::f32, memory::format_tag::a);
  memory src(md, eng, const_cast<float*>(Input<float>(dist)));
  memory grad(md, eng, Data<float>().grad.get());
  memory out(md, eng, Data<float>().out.get());
  const auto prop = op == Op::kForward ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
  const dnnl::eltwise_forward::primitive_desc fwd_pd(dnnl::eltwise_forward::desc(prop, alg, md, 0.f, 0.f), eng);
  dnnl::primitive prim;
  std::unordered_map<int, memory> args;
  std::string impl;
  if (op == Op::kForward) {
    prim = dnnl::eltwise_forward(fwd_pd);
    args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, out}};
    impl = fwd_pd.impl_info_str();
  } else {
    const dnnl::eltwise_backward::primitive_desc bwd_pd(dnnl::eltwise_backward::desc(alg, md, md, 0.f, 0.f), eng,
                                                        fwd_pd);
    prim = dnnl::eltwise_backward(bwd_pd);
    args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, grad}, {DNNL_ARG_DIFF_SRC, out}};
    impl = bwd_pd.impl_info_str();
  }
  for (auto _ : state) {
    prim.execute(strm, args);
    strm.wait();
    benchmark::ClobberMemory();
  }
  state.SetLabel(impl);
  SetCounters(state, n, (op == Op::kForward ? 2 : 3) * n * sizeof(float));
}
#endif

// ------------------------------------------------------------------------------------------------ registration

std::string Name(const char* impl, const char* op, const char* dtype, const char* form, const char* dist,
                 Threads threads, size_t n) {
  return std::string(impl) + "/" + op + "/" + dtype + "/" + form + "/" + dist + "/" + ThreadsName(threads) + "/" +
         std::to_string(n);
}

// With --benchmark_repetitions, "max" is the best repetition for the rate counters (Google Benchmark applies
// one statistic to times and counters alike, so it is the worst one for the time columns).
double Max(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

// Threaded runs are timed by the wall clock: CPU time would count only the calling thread.
void Finish(benchmark::internal::Benchmark* b, Threads threads) {
  b->ComputeStatistics("max", Max);
  if (threads == Threads::kAll) b->UseRealTime();
}

template <typename T>
void RegisterType() {
  // Grouped by (threads, size) so that each function runs right beside its copy floor and its peers.
  for (const Threads threads : {Threads::kOne, Threads::kAll}) {
    for (const size_t n : kSizes) {
      Finish(benchmark::RegisterBenchmark(Name("copy", "copy", TypeName<T>(), "-", "-", threads, n).c_str(),
                                          [=](benchmark::State& s) { BM_Copy<T>(s, threads, n); }),
             threads);
      for (const Dist dist : {Dist::kNormal, Dist::kUniform}) {
        for (const Op op : {Op::kForward, Op::kBackward}) {
          for (const gelu::common::Function& fn : gelu::common::kFunctions) {  // src/common/functions.h
            if (!fn.is_form() || fn.backward() != (op == Op::kBackward)) continue;
            const auto form = static_cast<gelu_approximate>(fn.form());
            Finish(benchmark::RegisterBenchmark(
                       Name("gelu", OpName(op), TypeName<T>(), FormName(form), DistName(dist), threads, n).c_str(),
                       [=](benchmark::State& s) { BM_Gelu<T>(s, Ours(), op, form, dist, threads, n); }),
                   threads);
            if (const Library* base = Baseline()) {
              Finish(benchmark::RegisterBenchmark(
                         Name("baseline", OpName(op), TypeName<T>(), FormName(form), DistName(dist), threads, n)
                             .c_str(),
                         [=](benchmark::State& s) { BM_Gelu<T>(s, *base, op, form, dist, threads, n); }),
                     threads);
            }
#if GELU_BENCH_ONEDNN
            if (sizeof(T) == 4 && OneDnnAlgorithm(form)) {
              Finish(benchmark::RegisterBenchmark(
                         Name("onednn", OpName(op), "f32", FormName(form), DistName(dist), threads, n).c_str(),
                         [=](benchmark::State& s) { BM_OneDnn(s, op, form, dist, threads, n); }),
                     threads);
            }
#endif
          }
          // The naive loop is compute-bound at 20x below memory speed, so 16 Mi only repeats 1 Mi's rate at
          // ~0.3 s a call; only the headline f32 forward keeps it there, to bound the suite's run time.
          if (n == kMaxSize && !(sizeof(T) == 4 && op == Op::kForward)) continue;
          Finish(benchmark::RegisterBenchmark(
                     Name("naive", OpName(op), TypeName<T>(), "none", DistName(dist), threads, n).c_str(),
                     [=](benchmark::State& s) { BM_Naive<T>(s, op, dist, threads, n); }),
                 threads);
        }
      }
    }
  }
}

void RegisterTargets() {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    auto* b = benchmark::RegisterBenchmark((std::string("BM_GeluF32/") + hwy::TargetName(target)).c_str(),
                                          [=](benchmark::State& s) {
                                            BM_GeluF32ForcedTarget(s, Ours(), target, Op::kForward, GELU_APPROXIMATE_NONE,
                                                                   Dist::kNormal, static_cast<size_t>(s.range(0)));
                                          });
    for (const size_t n : kSizes) b->Arg(static_cast<int64_t>(n));
    Finish(b, Threads::kOne);
    using gelu::common::kForms;  // src/common/functions.h
    // The per-function matrix only for the wide targets the speed targets name (AVX-512 and AVX2).
    if (target != HWY_AVX3 && target != HWY_AVX3_DL && target != HWY_AVX2) continue;
    for (const auto& [impl, lib] : {std::pair<const char*, const Library*>{"gelu", &Ours()}, {"baseline", Baseline()}}) {
      if (lib == nullptr) continue;
      for (const Dist dist : {Dist::kNormal, Dist::kUniform}) {
        for (const Op op : {Op::kForward, Op::kBackward}) {
          for (const gelu_approximate form : kForms) {
            const std::string name = std::string("target/") + hwy::TargetName(target) + "/" +
                                     Name(impl, OpName(op), "f32", FormName(form), DistName(dist), Threads::kOne,
                                          size_t{64} << 10);
            Finish(benchmark::RegisterBenchmark(name.c_str(),
                                                [=](benchmark::State& s) {
                                                  BM_GeluF32ForcedTarget(s, *lib, target, op, form, dist, size_t{64} << 10);
                                                }),
                   Threads::kOne);
          }
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  RegisterTargets();
  RegisterType<float>();
  RegisterType<double>();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("gelu_simd_target", gelu_simd_target());
  benchmark::AddCustomContext("hardware_threads", std::to_string(AllThreads()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
