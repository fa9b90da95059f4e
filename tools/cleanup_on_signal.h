// SPDX-License-Identifier: Apache-2.0
// What the CLI has in progress on disk, removed when SIGINT, SIGTERM or SIGHUP ends the process (Ctrl-C, kill):
// ReplaceFile's temporary file, `gelu plot`'s temporary directory and the script drawing into it. Without this the
// default action ends the process at once and leaves them behind.
#ifndef GELU_TOOLS_CLEANUP_ON_SIGNAL_H_
#define GELU_TOOLS_CLEANUP_ON_SIGNAL_H_

#include <signal.h>
#include <sys/types.h>

#include <cstddef>

namespace gelu {

// The signals that end the process by default and are cleaned up after.
inline constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP};

// For its lifetime, kEndingSignals are blocked in the calling thread (they wait, pending, until it ends): for the
// steps between creating something and tracking it (mkstemp and Track, posix_spawn and SetChild).
class BlockEndingSignals {
 public:
  BlockEndingSignals();
  ~BlockEndingSignals();
  BlockEndingSignals(const BlockEndingSignals&) = delete;
  BlockEndingSignals& operator=(const BlockEndingSignals&) = delete;
  // The mask before, which a spawned child should get back.
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_;
};

// For its lifetime, each ending signal whose action is the default (an ignored or handled one is left as it is)
// runs a handler that kills the tracked child (SIGKILL) and reaps it, so that it writes nothing more (a process
// it started itself is not stopped: the child stays in gelu's process group, which Ctrl-C at a terminal reaches
// whole, and keeps the terminal), removes the
// tracked files (unlink), then the tracked directories once the files are gone (rmdir, which removes only an empty
// one; nested two deep in any order), and then ends the process by the same signal (exit status 128 + the
// signal). Guards may nest (ReplaceFile's inside plot's), made and destroyed by one thread: the outermost installs
// the handler and restores the previous actions. Only async-signal-safe calls run in the handler, and a path is
// published to it whole (an atomic state set after its bytes are written, claimed by the handler before it reads
// them), so a handler on any thread (the signal may go to an OpenMP worker) sees a path whole or not at all. A
// signal that reaches another thread between a creation and its Track (BlockEndingSignals covers the calling thread
// only) leaves what was created: so ReplaceFile tracks its file's name before it creates the file. At most kMaxPaths paths are tracked at once; past that, or for a path of 4096 bytes
// or more, Track returns -1 and the path is not removed on a signal.
class CleanupOnSignal {
 public:
  static constexpr int kMaxPaths = 64;
  CleanupOnSignal();
  ~CleanupOnSignal();
  CleanupOnSignal(const CleanupOnSignal&) = delete;
  CleanupOnSignal& operator=(const CleanupOnSignal&) = delete;

  // Removes `path` on a signal until Untrack(returned slot). Returns the slot, or -1 (too many, or too long).
  static int Track(const char* path);
  static void Untrack(int slot);
  // The child to stop first (0: none).
  static void SetChild(pid_t pid);

 private:
  bool outermost_ = false;
};

}  // namespace gelu

#endif  // GELU_TOOLS_CLEANUP_ON_SIGNAL_H_
