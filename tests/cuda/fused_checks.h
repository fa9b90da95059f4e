// SPDX-License-Identifier: Apache-2.0
// Fused bias + GELU and GEGLU on the GPU against the host evaluation of the same element functions
// (src/cuda/gelu_ops.h) and the CPU's grad_bias order (fused_host_reference.h); run by gelu_cuda_test.cc and
// gelu_cuda_check.cc. gelu_cuda_reference_test.cc checks that host evaluation against the CPU library (no GPU).
#ifndef GELU_TESTS_CUDA_FUSED_CHECKS_H_
#define GELU_TESTS_CUDA_FUSED_CHECKS_H_

#include "tests/cuda/check_report.h"
#include "tests/cuda/cuda_functions.h"
#include "tests/cuda/fused_functions.h"

namespace gelu::cuda_test {

// On the GPU: every fused function of type t and form against the host, over shapes from 1 x 1 to 300 x 2056 (cols
// a multiple of 8 in 65 x 8 and 300 x 2056: the 16-byte vector kernels of GELU_CUDA_FUSED_VECTORS), with rows = 0 (grad_bias must become 0), in a non-default stream; outputs poisoned, with guards after them.
// Transfers are ordered on the call's stream (stream_order.h, "Stream order"). Every shape after the first runs
// behind a closed StreamGate (the stream busy when the call is made: see CheckBusyStream); the first loads the
// kernels.
Report CheckFusedOnDevice(Type t, FusedOp op, common::Form form);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_FUSED_CHECKS_H_
