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
// "Stream order" in stream_order.h), so the checks are right on any stream, and CheckBusyStream makes the ordering
// observable: the call is made while the work before it on its stream is held back.
#ifndef GELU_TESTS_CUDA_GPU_CHECKS_H_
#define GELU_TESTS_CUDA_GPU_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "tests/cuda/check_report.h"
#include "tests/cuda/cuda_functions.h"

namespace gelu::cuda_test {

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
Report CheckStream(const Function& f, uint64_t total, size_t chunk,
                   const std::function<void(uint64_t, size_t, void*, void*)>& fill,
                   const CallRunner& run = RunInline, const AlsoEval& also = nullptr,
                   const char* also_name = "");

// also (optional, see CheckStream): a second evaluation to compare with, e.g. the CPU library.
Report CheckExhaustive(const Function& f, size_t chunk = size_t{1} << 26, const AlsoEval& also = nullptr,
                       const char* also_name = "");

// Sizes 0..40 and around powers of two and vector multiples, element offsets of x, grad_out and the output
// (equal, so the vector path runs, and unequal modulo 16 bytes, so the scalar path runs), in place (y == x and,
// for backward, y == grad_out), and a non-default stream. Guards of kGuard elements on both sides of the output
// must be left as they were. Sizes above 70,000 run three offset cases (aligned, mutually misaligned, in place).
Report CheckSizesAndOffsets(const Function& f, uint64_t seed = 1);

// The call made while its stream is busy: the fills, the call and the read-back are enqueued behind a closed
// StreamGate, so the inputs are still unwritten when the library launches its kernel; the kernel must wait for
// them (and the read-back for the kernel). Checked on a non-blocking stream, which does not synchronise with the
// legacy default stream: a kernel launched anywhere but the caller's stream, or a fill enqueued anywhere else,
// runs before the gate opens and is caught (RunBehindGate), as is a call that waits for its stream. n covers the
// 16-bit table path, and offset pointers the head, vector body and tail. The same sequence runs ungated first: a
// plain check, which also loads the kernels (lazy module loading may synchronise the context, which the closed
// gate would hold up).
Report CheckBusyStream(const Function& f, uint64_t seed = 5);

// Invalid arguments: each must return GELU_INVALID_ARGUMENT and write nothing (checked on real device memory when
// `device` is true; otherwise the pointers are host addresses that the library must not touch, so only the
// statuses are checked). n == 0 is valid with any pointers.
Report CheckInvalidArguments(bool device);

// n >= 2^34 + 3 float32 elements in place (64 GiB; reported skipped if the device has less free memory, which
// SkipIsFailure makes a failure on a machine with a GPU), offset by one
// element so that the head, the vector body and the tail all run, with indices past 2^32 and 2^33; every element
// is copied back and checked, and a guard after the array must be untouched.
Report CheckLargeInPlace(uint64_t n = (uint64_t{1} << 34) + 3);

// cudaDeviceReset() destroys the context and everything in it, the 16-bit lookup tables of src/cuda/gelu.cu
// included; the next call runs in a new context, whose tables must be built again (reading them unbuilt gives
// zeros). Every 16-bit function over all 65,536 x in one call (n = 2^16: the table path where there is a table),
// grad_out arbitrary bits, before and after a reset. The library calls run on a second thread that last used
// CUDA before the reset (this thread resets, allocates and fills), so that after it the library's call is that
// thread's first CUDA call, in whatever state the reset left its current context; this thread's own next call is
// covered by the ordinary checks. Resets the device: run it where no other CUDA object is alive.
Report CheckDeviceReset();

// Without a device, a valid call must return GELU_CUDA_ERROR with CUDA's text, never abort.
Report CheckNoDeviceError();

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_GPU_CHECKS_H_
