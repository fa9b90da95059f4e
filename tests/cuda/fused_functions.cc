// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/fused_functions.h"

#include "tests/cuda/check_inputs.h"

namespace gelu::cuda_test {

const char* FusedName(FusedOp op) {
  switch (op) {
    case FusedOp::kBiasForward: return "bias_forward";
    case FusedOp::kBiasBackward: return "bias_backward";
    case FusedOp::kGegluForward: return "geglu_forward";
    case FusedOp::kGegluBackward: return "geglu_backward";
    case FusedOp::kGegluRowsForward: return "geglu_rows_forward";
    default: return "geglu_rows_backward";
  }
}

size_t FusedInputElements(FusedOp op, size_t rows, size_t cols, int which /* 0 g, 1 x, 2 b */) {
  const size_t n = rows * cols;
  switch (op) {
    case FusedOp::kBiasForward: return which == 0 ? 0 : which == 1 ? n : cols;
    case FusedOp::kBiasBackward: return which == 2 ? cols : n;
    case FusedOp::kGegluForward: return which == 0 ? 0 : n;
    case FusedOp::kGegluBackward: return n;
    case FusedOp::kGegluRowsForward: return which == 1 ? 2 * n : 0;
    default: return which == 0 ? n : which == 1 ? 2 * n : 0;
  }
}
size_t FusedOutputElements(FusedOp op, size_t rows, size_t cols, int which /* 0 y, 1 y2 */) {
  const size_t n = rows * cols;
  switch (op) {
    case FusedOp::kBiasForward: return which == 0 ? n : 0;
    case FusedOp::kBiasBackward: return which == 0 ? n : cols;
    case FusedOp::kGegluForward: return which == 0 ? n : 0;
    case FusedOp::kGegluBackward: return n;
    case FusedOp::kGegluRowsForward: return which == 0 ? n : 0;
    default: return which == 0 ? 2 * n : 0;
  }
}

template <class T>
gelu_status CudaFusedTyped(Type t, FusedOp op, gelu_approximate a, const void* gv, const void* xv, const void* bv,
                           void* yv, void* y2v, size_t rows, size_t cols, void* s) {
  GELU_FUSED_TYPED_CALL(gelu_cuda_, a, s)
}

gelu_status CudaFused(Type t, FusedOp op, gelu_approximate a, const void* g, const void* x, const void* b,
                      void* y, void* y2, size_t rows, size_t cols, void* stream) {
  return t == common::kF32 ? CudaFusedTyped<float>(t, op, a, g, x, b, y, y2, rows, cols, stream)
                         : CudaFusedTyped<uint16_t>(t, op, a, g, x, b, y, y2, rows, cols, stream);
}

std::vector<FusedOp> AllFusedOps() {
  return {FusedOp::kBiasForward,   FusedOp::kBiasBackward,      FusedOp::kGegluForward,
          FusedOp::kGegluBackward, FusedOp::kGegluRowsForward, FusedOp::kGegluRowsBackward};
}

void FusedInputs(Type t, FusedOp op, size_t rows, size_t cols, uint64_t seed, FusedArrays* a) {
  const size_t es = TypeSize(t);
  std::vector<char>* in[3] = {&a->g, &a->x, &a->b};
  for (int k = 0; k < 3; ++k) {
    const size_t m = FusedInputElements(op, rows, cols, k);
    in[k]->assign(m * es + 1, 0);
    RandomFill(t, in[k]->data(), m, seed * 7 + k);
  }
  a->y.assign(FusedOutputElements(op, rows, cols, 0) * es + 1, 0);
  a->y2.assign(FusedOutputElements(op, rows, cols, 1) * es + 1, 0);
}

}  // namespace gelu::cuda_test
