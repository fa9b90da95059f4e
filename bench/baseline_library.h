// SPDX-License-Identifier: Apache-2.0
// The C API entry points a benchmark times, from this build (Ours) or from another build of the library, an earlier
// commit's libgelu.so named by $GELU_BENCH_BASELINE (Baseline), loaded with dlopen into the same process, so that
// the two are timed side by side on the same machine state (gelu_benchmark's `baseline` rows, half_rates' and
// cost_by_class's A/B tables). RTLD_DEEPBIND: the baseline's calls into its own internals bind to its own copies,
// not to this build's (both export the same names); libhwy and the OpenMP runtime are shared, so a target forced
// through hwy::SetSupportedTargetsForTest holds for both.
#ifndef GELU_BENCH_BASELINE_LIBRARY_H_
#define GELU_BENCH_BASELINE_LIBRARY_H_

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "gelu/gelu.h"

namespace gelu::bench {

struct Library {
  gelu_status (*forward_f32)(const float*, float*, size_t, gelu_approximate);
  gelu_status (*backward_f32)(const float*, const float*, float*, size_t, gelu_approximate);
  gelu_status (*forward_f64)(const double*, double*, size_t, gelu_approximate);
  gelu_status (*backward_f64)(const double*, const double*, double*, size_t, gelu_approximate);
  gelu_status (*forward_bf16)(const uint16_t*, uint16_t*, size_t, gelu_approximate);
  gelu_status (*forward_f16)(const uint16_t*, uint16_t*, size_t, gelu_approximate);
  gelu_status (*backward_bf16)(const uint16_t*, const uint16_t*, uint16_t*, size_t, gelu_approximate);
  gelu_status (*backward_f16)(const uint16_t*, const uint16_t*, uint16_t*, size_t, gelu_approximate);
  void (*set_num_threads)(int);
  const char* (*simd_target)();
};

inline const Library& Ours() {
  static const Library lib{gelu_forward_f32,  gelu_backward_f32, gelu_forward_f64,  gelu_backward_f64,
                           gelu_forward_bf16, gelu_forward_f16,  gelu_backward_bf16, gelu_backward_f16,
                           gelu_set_num_threads, gelu_simd_target};
  return lib;
}

// nullptr when $GELU_BENCH_BASELINE is unset or empty; a baseline that cannot be loaded, or lacks an entry point,
// ends the program (`program` names it in the message) before anything is measured.
inline const Library* Baseline(const char* program) {
  static const Library* lib = [program]() -> const Library* {
    const char* path = std::getenv("GELU_BENCH_BASELINE");
    if (path == nullptr || *path == '\0') return nullptr;
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (h == nullptr) {
      std::fprintf(stderr, "%s: cannot load the baseline %s: %s\n", program, path, dlerror());
      std::exit(1);
    }
    auto sym = [&](auto& entry, const char* name) {
      void* p = dlsym(h, name);
      if (p == nullptr) {
        std::fprintf(stderr, "%s: the baseline %s lacks %s\n", program, path, name);
        std::exit(1);
      }
      entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(p);
    };
    static Library l;
    sym(l.forward_f32, "gelu_forward_f32");
    sym(l.backward_f32, "gelu_backward_f32");
    sym(l.forward_f64, "gelu_forward_f64");
    sym(l.backward_f64, "gelu_backward_f64");
    sym(l.forward_bf16, "gelu_forward_bf16");
    sym(l.forward_f16, "gelu_forward_f16");
    sym(l.backward_bf16, "gelu_backward_bf16");
    sym(l.backward_f16, "gelu_backward_f16");
    sym(l.set_num_threads, "gelu_set_num_threads");
    sym(l.simd_target, "gelu_simd_target");
    return &l;
  }();
  return lib;
}

}  // namespace gelu::bench

#endif  // GELU_BENCH_BASELINE_LIBRARY_H_
