// SPDX-License-Identifier: Apache-2.0
// The `gelu` executable; the commands are in gelu_cli_lib (tools/command_line.cc and one file per subcommand).
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tools/commands.h"

int main(int argc, char** argv) {
  // `gelu check` runs the function under test in child processes between which the judging threads work: an
  // OpenMP team the function starts (this library above 2^16 elements, oneDNN) would spin-wait there between
  // calls, on the cores the judging needs (10x slower: 3.8 s instead of 0.39 s for 2^23 inputs). libgomp reads
  // OMP_WAIT_POLICY once, when it is loaded, before main: so `check` sets it (unless the user did) and starts
  // itself again. Other commands keep the default (bench measures the library as users run it).
  if (argc > 1 && std::strcmp(argv[1], "check") == 0 && std::getenv("OMP_WAIT_POLICY") == nullptr) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);  // on failure, carry on: slower, not wrong
  }
  // A write past a file-size limit (ulimit -f) then fails with EFBIG, which npy::Write reports and cleans up
  // after (temporary file removed, OUT untouched), instead of SIGXFSZ killing the process mid-write with the
  // temporary file left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  // `gelu plot` waits for its script: a SIGCHLD ignored by whoever started gelu would have the kernel reap the
  // script itself, and the wait fail ("No child processes").
  std::signal(SIGCHLD, SIG_DFL);
  return gelu::cli::RunCommandLine(std::vector<std::string>(argv, argv + argc));
}
