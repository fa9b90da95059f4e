// SPDX-License-Identifier: Apache-2.0
// The `gelu` executable; the commands are in gelu_cli_lib (tools/command_line.cc and one file per subcommand).
#include <csignal>
#include <string>
#include <vector>

#include "tools/commands.h"

int main(int argc, char** argv) {
  // A write past a file-size limit (ulimit -f) then fails with EFBIG, which npy::Write reports and cleans up
  // after (temporary file removed, OUT untouched), instead of SIGXFSZ killing the process mid-write with the
  // temporary file left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  // `gelu plot` waits for its script: a SIGCHLD ignored by whoever started gelu would have the kernel reap the
  // script itself, and the wait fail ("No child processes").
  std::signal(SIGCHLD, SIG_DFL);
  return gelu::cli::RunCommandLine(std::vector<std::string>(argv, argv + argc));
}
