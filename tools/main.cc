// SPDX-License-Identifier: Apache-2.0
// The `gelu` executable; the commands are in gelu_cli_lib (tools/command_line.cc and one file per subcommand).
#include <string>
#include <vector>

#include "tools/commands.h"

int main(int argc, char** argv) { return gelu::cli::RunCommandLine(std::vector<std::string>(argv, argv + argc)); }
