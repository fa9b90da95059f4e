// SPDX-License-Identifier: Apache-2.0
// What the tests that run programs and write files share (the CLI, checker and npy tests): a fixture with a fresh
// scratch directory per test, a file's bytes, and a child process started with its standard streams redirected to
// files and waited for, its exit status reported as a shell does (128 + the signal that ended it).
#ifndef GELU_TESTS_SUPPORT_SCRATCH_AND_CHILD_H_
#define GELU_TESTS_SUPPORT_SCRATCH_AND_CHILD_H_

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

extern char** environ;

namespace gelu::test {

namespace fs = std::filesystem;

// The whole content of a file ("" where it cannot be read).
inline std::string Slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A test with its own directory, dir_, made under the system's temporary directory before the test and removed
// after it, its owner's permissions restored first (a test may have made it read-only).
class ScratchDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = (fs::temp_directory_path() / "gelu-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  // The names of the entries of d (dir_ by default), sorted.
  std::vector<std::string> Listing(const fs::path& d) const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::vector<std::string> Listing() const { return Listing(dir_); }
  fs::path dir_;
};

// A finished child: its exit status (128 + the signal if one ended it), stdout and stderr.
struct Result {
  int rc = -1;
  std::string out, err;
};

// Where a child's stdout goes: a file, /dev/full (every write fails: ENOSPC), or nowhere (closed).
enum class Stdout { kFile, kFull, kClosed };

// How a child starts: argv[0] is the program's path; stdin from stdin_path, stdout (kFile) to stdout_path, stderr
// to stderr_path (both truncated); `env` entries ("NAME=value") before this process's environment; the signals in
// `default_signals` at their default actions and none blocked, whatever this process inherited (a shell starts a
// background job with SIGINT ignored).
struct ChildOptions {
  std::string stdin_path = "/dev/null", stdout_path, stderr_path;
  Stdout stdout_to = Stdout::kFile;
  std::vector<std::string> env;
  std::vector<int> default_signals;
};

// Starts the child; -1 (and a test failure) if it cannot be started.
inline pid_t StartChild(std::vector<std::string> argv_s, const ChildOptions& options) {
  std::vector<char*> argv;
  for (std::string& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = options.env;
  for (char** e = environ; *e != nullptr; ++e) env_s.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  std::ofstream(options.stdout_path, std::ios::trunc).close();
  posix_spawn_file_actions_addopen(&fa, 0, options.stdin_path.c_str(), O_RDONLY, 0);
  if (options.stdout_to == Stdout::kFile) {
    posix_spawn_file_actions_addopen(&fa, 1, options.stdout_path.c_str(), O_WRONLY | O_TRUNC, 0644);
  }
  if (options.stdout_to == Stdout::kFull) posix_spawn_file_actions_addopen(&fa, 1, "/dev/full", O_WRONLY, 0);
  if (options.stdout_to == Stdout::kClosed) posix_spawn_file_actions_addclose(&fa, 1);
  posix_spawn_file_actions_addopen(&fa, 2, options.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  for (int sig : options.default_signals) sigaddset(&defaults, sig);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int started = posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (started != 0) {
    ADD_FAILURE() << "cannot start " << argv_s[0];
    return -1;
  }
  return pid;
}

// Waits for a started child and reads what it wrote to the option's stdout and stderr files.
inline Result WaitChild(pid_t pid, const ChildOptions& options) {
  Result r;
  if (pid < 0) return r;
  int status = 0;
  waitpid(pid, &status, 0);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = Slurp(options.stdout_path);
  r.err = Slurp(options.stderr_path);
  return r;
}

// StartChild, then WaitChild.
inline Result RunChild(std::vector<std::string> argv, const ChildOptions& options) {
  return WaitChild(StartChild(std::move(argv), options), options);
}

}  // namespace gelu::test

#endif  // GELU_TESTS_SUPPORT_SCRATCH_AND_CHILD_H_
