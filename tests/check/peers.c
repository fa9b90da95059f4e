/* SPDX-License-Identifier: Apache-2.0
 * Other people's GELU behind the checker's signature void f(const float* x, float* y, size_t n), for the stratified
 * peer runs of tests/check/CMakeLists.txt and the table of docs/CHECK.md:
 *   naive_gelu_erf   the usual 0.5f * x * (1 + erff(x / sqrt(2))) in float with glibc's erff
 *   onednn_gelu_erf, onednn_gelu_tanh   oneDNN's eltwise primitive (dnnl_eltwise_gelu_erf / _tanh), forward
 *   inference, one primitive per call on a 1-D f32 tensor (built only where oneDNN is found: PEERS_ONEDNN). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

void naive_gelu_erf(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] / 1.41421356f));
}

#if defined(PEERS_ONEDNN)
#include <dnnl.h>

static void OneDnn(dnnl_alg_kind_t alg, const float* x, float* y, size_t n) {
  static dnnl_engine_t engine = NULL;
  static dnnl_stream_t stream = NULL;
  if (engine == NULL && (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
                         dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success)) {
    abort();
  }
  const dnnl_dims_t dims = {(dnnl_dim_t)n};
  dnnl_memory_desc_t md;
  dnnl_eltwise_desc_t desc;
  dnnl_primitive_desc_t pd;
  dnnl_primitive_t prim;
  dnnl_memory_t src, dst;
  if (dnnl_memory_desc_init_by_tag(&md, 1, dims, dnnl_f32, dnnl_a) != dnnl_success ||
      dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference, alg, &md, 0.f, 0.f) != dnnl_success ||
      dnnl_primitive_desc_create(&pd, &desc, NULL, engine, NULL) != dnnl_success ||
      dnnl_primitive_create(&prim, pd) != dnnl_success ||
      dnnl_memory_create(&src, &md, engine, (void*)x) != dnnl_success ||
      dnnl_memory_create(&dst, &md, engine, y) != dnnl_success) {
    abort();
  }
  const dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
  if (dnnl_primitive_execute(prim, stream, 2, args) != dnnl_success || dnnl_stream_wait(stream) != dnnl_success) abort();
  dnnl_memory_destroy(src);
  dnnl_memory_destroy(dst);
  dnnl_primitive_destroy(prim);
  dnnl_primitive_desc_destroy(pd);
}

void onednn_gelu_erf(const float* x, float* y, size_t n) { OneDnn(dnnl_eltwise_gelu_erf, x, y, n); }
void onednn_gelu_tanh(const float* x, float* y, size_t n) { OneDnn(dnnl_eltwise_gelu_tanh, x, y, n); }
#endif
