// SPDX-License-Identifier: Apache-2.0
// Running a library's function (tools/checker.h): loading it, calling it on every input in child processes
// (tools/checker_child_process.h) on all threads with a progress bar, judging the results, and narrowing a crash
// down to its input.
#include "tools/checker.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "tools/checker_child_process.h"
#include "tools/checker_types.h"
#include "tools/cli_helpers.h"

namespace gelu::check {

LibraryFunction::LibraryFunction(const std::string& p, const std::string& s) : path(p), symbol(s) {
  void* handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw std::runtime_error(fmt::format("cannot load '{}': {}", p, dlerror()));
  dlerror();
  address_ = dlsym(handle, s.c_str());
  if (address_ == nullptr) throw std::runtime_error(fmt::format("no symbol '{}' in '{}'", s, p));
}

namespace {

std::string Bar(double frac, int width) {
  const int full = static_cast<int>(frac * width);
  return std::string(static_cast<size_t>(full), '#') + std::string(static_cast<size_t>(width - full), '.');
}

}  // namespace

Findings RunLibrary(const Spec& s, const LibraryFunction& fn, const Inputs& in, const RunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t total = in.size();
  const uint64_t chunks = (total + kChunk - 1) / kChunk;
  const int threads = static_cast<int>(std::min<uint64_t>(
      chunks, o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency())));
  // Every child is forked before any worker thread starts: a fork while other threads run could copy a lock
  // (malloc's, stdio's) held by one of them, and the child's first call into the library would hang on it.
  std::vector<Child> children;
  for (int t = 0; t < threads; ++t) children.push_back(StartChild(s, fn.address(), children));
  std::vector<Findings> found(static_cast<size_t>(threads), NewFindings(s));
  std::atomic<uint64_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  std::mutex failure_mutex;
  struct Failure {
    uint64_t begin = 0, end = 0;
    CallResult result = CallResult::ok;
    int thread = -1;
  } failure;
  {
    std::vector<std::jthread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        ChunkValues v;
        for (uint64_t c; !stop && (c = next++) < chunks;) {
          const uint64_t begin = c * kChunk, end = std::min(total, begin + kChunk);
          const CallResult r = Call(s, children[static_cast<size_t>(t)], in, begin, end, v, o.timeout_s);
          if (r != CallResult::ok) {
            std::lock_guard lock(failure_mutex);
            if (failure.thread < 0 || begin < failure.begin) failure = {begin, end, r, t};
            stop = true;
            break;
          }
          ReadResults(s, children[static_cast<size_t>(t)], end - begin, v);
          if (s.type == common::kF64) Judge(s, v.x64, v.y64, {}, begin, found[static_cast<size_t>(t)]);
          else Judge(s, v.x, v.y, {}, begin, found[static_cast<size_t>(t)]);
          done += end - begin;
        }
      });
    }
    if (o.progress) {
      const bool tty = cli::StderrIsTerminal();
      int last_step = -1;
      while (done.load() < total && !stop) {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double frac = static_cast<double>(done.load()) / static_cast<double>(total);
        const std::string line = fmt::format("check [{}] {:5.1f}%  {}/{}  elapsed {}  ETA {}", Bar(frac, 30), 100 * frac,
                                             cli::HumanCount(done.load()), cli::HumanCount(total), cli::Duration(el),
                                             frac > 0 ? cli::Duration(el * (1 - frac) / frac) : "?");
        if (tty) {
          std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
        } else if (static_cast<int>(frac * 20) > last_step) {  // logs: one line per 5%
          last_step = static_cast<int>(frac * 20);
          std::fprintf(stderr, "%s\n", line.c_str());
        }
      }
      if (tty) std::fprintf(stderr, "\r\x1b[K");
    }
  }  // workers join here
  std::string how;
  for (int t = 0; t < threads; ++t) {
    const std::string ended = StopChild(children[static_cast<size_t>(t)], t == failure.thread);
    if (t == failure.thread) how = ended;
  }
  const auto input_at = [&](uint64_t i) -> double {
    if (s.type == common::kF64) return in.values64[i];
    return in.bit_range ? std::bit_cast<float>(static_cast<uint32_t>(in.bit_range->first + i)) : in.values[i];
  };
  if (failure.thread >= 0) {
    const std::string chunk = fmt::format("the chunk of inputs {}..{} (x = {} .. {})", failure.begin, failure.end - 1,
                                          Dec(input_at(failure.begin), s.type), Dec(input_at(failure.end - 1), s.type));
    if (failure.result == CallResult::hung) {
      throw std::runtime_error(fmt::format("'{}' did not return within {} s on {}", fn.symbol, o.timeout_s, chunk));
    }
    // Narrow the crash down to one input: halve the chunk, each half in a fresh child (one thread now, so forking
    // is safe), keeping the half that crashes.
    uint64_t lo = failure.begin, hi = failure.end;
    ChunkValues v;
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      Child c = StartChild(s, fn.address());
      const CallResult r = Call(s, c, in, lo, mid, v, o.timeout_s);
      StopChild(c, r != CallResult::ok);
      (r == CallResult::ok ? lo : hi) = mid;
    }
    throw std::runtime_error(fmt::format("'{}' crashed ({}) at x = {} ({}), input {}, in {}", fn.symbol,
                                         how.empty() ? "its process ended" : how, Hex(input_at(lo)),
                                         Dec(input_at(lo), s.type), lo, chunk));
  }
  Findings f = NewFindings(s);
  for (const Findings& part : found) f.Merge(part);
  f.coverage = in.description;
  f.true_cutoff = TrueTailCutoff(s);
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return f;
}

}  // namespace gelu::check
