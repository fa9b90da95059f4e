// SPDX-License-Identifier: Apache-2.0
// The checker's child processes (tools/checker_child_process.h): started, called on a chunk, stopped.
#include "tools/checker_child_process.h"

#include <omp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/checker_types.h"

namespace gelu::check {
namespace {

[[noreturn]] void ChildLoop(const Spec& s, void* fn, void* buffer, int command, int done) {
  const size_t es = common::TypeSize(s.type);
  char* base = static_cast<char*>(buffer);
  for (;;) {
    uint64_t n = 0;
    if (read(command, &n, sizeof n) != sizeof n) _exit(0);
    void* dy = base;
    void* x = base + kChunk * es;
    void* y = base + 2 * kChunk * es;
    if (s.type == common::kF64) {
      if (s.backward) reinterpret_cast<void (*)(const double*, const double*, double*, size_t)>(fn)(
          static_cast<double*>(dy), static_cast<double*>(x), static_cast<double*>(y), n);
      else reinterpret_cast<void (*)(const double*, double*, size_t)>(fn)(static_cast<double*>(x), static_cast<double*>(y), n);
    } else if (s.type == common::kF32) {
      if (s.backward) reinterpret_cast<void (*)(const float*, const float*, float*, size_t)>(fn)(
          static_cast<float*>(dy), static_cast<float*>(x), static_cast<float*>(y), n);
      else reinterpret_cast<void (*)(const float*, float*, size_t)>(fn)(static_cast<float*>(x), static_cast<float*>(y), n);
    } else {
      if (s.backward) reinterpret_cast<void (*)(const uint16_t*, const uint16_t*, uint16_t*, size_t)>(fn)(
          static_cast<uint16_t*>(dy), static_cast<uint16_t*>(x), static_cast<uint16_t*>(y), n);
      else reinterpret_cast<void (*)(const uint16_t*, uint16_t*, size_t)>(fn)(static_cast<uint16_t*>(x),
                                                                             static_cast<uint16_t*>(y), n);
    }
    const char ok = 1;
    if (write(done, &ok, 1) != 1) _exit(0);
  }
}

}  // namespace

Child StartChild(const Spec& s, void* fn, const std::vector<Child>& others) {
  Child c;
  c.bytes = 3 * kChunk * common::TypeSize(s.type);
  c.buffer = mmap(nullptr, c.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (c.buffer == MAP_FAILED) throw std::runtime_error(fmt::format("mmap: {}", std::strerror(errno)));
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);
  c.pid = fork();
  if (c.pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (c.pid == 0) {
    close(to_child[1]);
    close(from_child[0]);
    for (const Child& o : others) {
      close(o.command);
      close(o.done);
    }
    // The checker's threads are the parallelism: a function that starts OpenMP teams with the default team size
    // runs them on one thread here (teams of an explicit size are kept; their spin-waiting between calls is
    // stopped by OMP_WAIT_POLICY=passive, which tools/main.cc sets for `check`).
    omp_set_num_threads(1);
    ChildLoop(s, fn, c.buffer, to_child[0], from_child[1]);
  }
  close(to_child[0]);
  close(from_child[1]);
  c.command = to_child[1];
  c.done = from_child[0];
  return c;
}

std::string StopChild(Child& c, bool kill_it) {
  if (kill_it) kill(c.pid, SIGKILL);
  close(c.command);
  close(c.done);
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  munmap(c.buffer, c.bytes);
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "";
}

CallResult Call(const Spec& s, Child& c, const Inputs& in, uint64_t begin, uint64_t end, ChunkValues& v,
                double timeout_s) {
  const uint64_t n = end - begin;
  std::vector<float>& x = v.x;
  char* base = static_cast<char*>(c.buffer);
  if (s.type == common::kF64) {
    v.x64.assign(in.values64.begin() + static_cast<ptrdiff_t>(begin), in.values64.begin() + static_cast<ptrdiff_t>(end));
    std::fill_n(reinterpret_cast<double*>(base), n, 1.0);
    std::memcpy(base + kChunk * 8, v.x64.data(), n * 8);
  } else {
    x.resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      x[i] = in.bit_range ? std::bit_cast<float>(static_cast<uint32_t>(in.bit_range->first + begin + i))
                          : in.values[begin + i];
    }
  }
  if (s.type == common::kF32) {
    std::fill_n(reinterpret_cast<float*>(base), n, 1.0f);
    std::memcpy(base + kChunk * 4, x.data(), n * 4);
  } else if (s.type != common::kF64) {
    auto* dy = reinterpret_cast<uint16_t*>(base);
    auto* xb = reinterpret_cast<uint16_t*>(base + kChunk * 2);
    const uint16_t one = ToBits(s.type, 1.0f);
    for (uint64_t i = 0; i < n; ++i) {
      dy[i] = one;
      xb[i] = in.bits16.empty() ? ToBits(s.type, x[i]) : in.bits16[begin + i];
    }
  }
  if (write(c.command, &n, sizeof n) != sizeof n) return CallResult::died;
  pollfd p{c.done, POLLIN, 0};
  const int ms = static_cast<int>(std::min(timeout_s * 1000, 2e9));
  int rc;
  while ((rc = poll(&p, 1, ms)) < 0 && errno == EINTR) {
  }
  if (rc == 0) return CallResult::hung;
  char ok = 0;
  return read(c.done, &ok, 1) == 1 ? CallResult::ok : CallResult::died;
}

void ReadResults(const Spec& s, const Child& c, uint64_t n, ChunkValues& v) {
  std::vector<float>& y = v.y;
  const char* out = static_cast<const char*>(c.buffer) + 2 * kChunk * common::TypeSize(s.type);
  if (s.type == common::kF64) {
    v.y64.resize(n);
    std::memcpy(v.y64.data(), out, n * 8);
    return;
  }
  y.resize(n);
  if (s.type == common::kF32) {
    std::memcpy(y.data(), out, n * 4);
  } else {
    const auto* yb = reinterpret_cast<const uint16_t*>(out);
    for (uint64_t i = 0; i < n; ++i) y[i] = FromBits(s.type, yb[i]);
  }
}

}  // namespace gelu::check
