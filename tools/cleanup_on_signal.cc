// SPDX-License-Identifier: Apache-2.0
// CleanupOnSignal; see cleanup_on_signal.h.
#include "tools/cleanup_on_signal.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <iterator>

namespace gelu {
namespace {

constexpr size_t kMaxPathBytes = 4096;

// A slot is claimed (kFree or kDone to kWriting), its path written, then published by kLive (release). The handler
// claims each live slot before it reads the path (kLive to kCleaning), and Untrack releases a slot only from kLive,
// so a path is never rewritten while a handler (on any thread) reads it.
enum SlotState : int { kFree, kWriting, kLive, kDone, kCleaning };
char g_paths[CleanupOnSignal::kMaxPaths][kMaxPathBytes];
std::atomic<int> g_state[CleanupOnSignal::kMaxPaths];
std::atomic<pid_t> g_child{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<pid_t>::is_always_lock_free,
              "lock-free atomics: the only kind a signal handler may touch");

int g_depth = 0;  // guards alive: made and destroyed (in reverse order, as scopes end) by one thread
bool g_installed[std::size(kEndingSignals)] = {};
struct sigaction g_previous[std::size(kEndingSignals)] = {};

extern "C" void CleanUpAndReraise(int sig) {
  // Every call here is async-signal-safe.
  const pid_t child = g_child.load(std::memory_order_acquire);
  if (child > 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);  // it has stopped writing once reaped
  }
  // Pass 0 claims the live slots and unlinks the files; passes 1 and 2 rmdir the claimed paths (rmdir removes only
  // an empty directory), so a directory holding another goes on the second, whatever their slots' order.
  for (int pass = 0; pass < 3; ++pass) {
    for (int i = 0; i < CleanupOnSignal::kMaxPaths; ++i) {
      if (pass == 0) {
        int live = kLive;
        if (g_state[i].compare_exchange_strong(live, kCleaning, std::memory_order_acq_rel)) ::unlink(g_paths[i]);
      } else if (g_state[i].load(std::memory_order_acquire) == kCleaning) {
        ::rmdir(g_paths[i]);
      }
    }
  }
  for (int s : kEndingSignals) ::signal(s, SIG_DFL);  // a second ending signal, pending, now just ends the process
  ::raise(sig);
}

}  // namespace

BlockEndingSignals::BlockEndingSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kEndingSignals) sigaddset(&set, sig);
  ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
}
BlockEndingSignals::~BlockEndingSignals() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

CleanupOnSignal::CleanupOnSignal() {
  if (g_depth++ > 0) return;
  outermost_ = true;
  for (size_t i = 0; i < std::size(kEndingSignals); ++i) {
    struct sigaction current {};
    g_installed[i] = ::sigaction(kEndingSignals[i], nullptr, &current) == 0 && current.sa_handler == SIG_DFL;
    if (!g_installed[i]) continue;
    struct sigaction handler {};
    handler.sa_handler = CleanUpAndReraise;
    sigemptyset(&handler.sa_mask);
    for (int sig : kEndingSignals) sigaddset(&handler.sa_mask, sig);  // one cleanup, not one inside another
    g_installed[i] = ::sigaction(kEndingSignals[i], &handler, &g_previous[i]) == 0;
  }
}

CleanupOnSignal::~CleanupOnSignal() {
  --g_depth;
  if (!outermost_) return;
  for (size_t i = 0; i < std::size(kEndingSignals); ++i) {
    if (g_installed[i]) ::sigaction(kEndingSignals[i], &g_previous[i], nullptr);
    g_installed[i] = false;
  }
}

int CleanupOnSignal::Track(const char* path) {
  const size_t length = std::strlen(path);
  if (length >= kMaxPathBytes) return -1;
  for (int slot = 0; slot < kMaxPaths; ++slot) {
    int state = g_state[slot].load(std::memory_order_acquire);
    if (state == kFree || state == kDone) {
      if (!g_state[slot].compare_exchange_strong(state, kWriting)) continue;
      std::memcpy(g_paths[slot], path, length + 1);
      g_state[slot].store(kLive, std::memory_order_release);
      return slot;
    }
  }
  return -1;
}

void CleanupOnSignal::Untrack(int slot) {
  if (slot < 0 || slot >= kMaxPaths) return;
  int live = kLive;
  g_state[slot].compare_exchange_strong(live, kDone, std::memory_order_acq_rel);  // a cleaning slot stays claimed
}

void CleanupOnSignal::SetChild(pid_t pid) { g_child.store(pid, std::memory_order_release); }

}  // namespace gelu
