// SPDX-License-Identifier: Apache-2.0
// The child processes in which the checker runs a library's function (tools/checker.h, RunLibrary): each maps a
// buffer shared with the checker (fork, mmap), calls the function on a chunk of inputs written there and reports
// back through a pipe, so that a crash or a hang is the child's and not the checker's. For the checker's files.
#ifndef GELU_TOOLS_CHECKER_CHILD_PROCESS_H_
#define GELU_TOOLS_CHECKER_CHILD_PROCESS_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/checker.h"

namespace gelu::check {

// A child process that calls the function on a shared buffer: x (or dy then x) in, y out.
struct Child {
  pid_t pid = -1;
  int command = -1, done = -1;  // parent's ends: write n, read one byte back
  void* buffer = nullptr;
  size_t bytes = 0;
};

inline constexpr uint64_t kChunk = uint64_t{1} << 16;  // inputs per call: the buffer holds dy, x and y of as many

// `others`: the children already started, whose pipe ends the new child must not hold (a child holding another's
// command pipe open would keep that one from seeing its end).
Child StartChild(const Spec& s, void* fn, const std::vector<Child>& others = {});

// Ends a child: closes its command pipe (it exits) or kills it; returns how it ended, in words ("" if normally).
std::string StopChild(Child& c, bool kill_it);

enum class CallResult { ok, died, hung };

// The inputs of one chunk: float32 and 16-bit values as floats, float64 as doubles.
struct ChunkValues {
  std::vector<float> x, y;
  std::vector<double> x64, y64;
};

// Writes the inputs [begin, end) of the run into the child's buffer, calls, waits.
CallResult Call(const Spec& s, Child& c, const Inputs& in, uint64_t begin, uint64_t end, ChunkValues& v,
                double timeout_s);
// The n results of the last call, from the child's buffer into v.y (float64: v.y64).
void ReadResults(const Spec& s, const Child& c, uint64_t n, ChunkValues& v);

}  // namespace gelu::check

#endif  // GELU_TOOLS_CHECKER_CHILD_PROCESS_H_
