// SPDX-License-Identifier: Apache-2.0
// The `gelu` command line: registers every subcommand (each in its own file) with CLI11, parses, runs the
// chosen one, and reports errors as one line on stderr, "gelu <command>: <what went wrong>", with exit status 1
// (CLI11's codes, 104-109, for bad usage). Docs: docs/CLI.md.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "tools/commands.h"

namespace gelu::cli {

namespace {

// Flushes standard output and says whether all of it was written: a full disk (`> /dev/full`) or a closed
// descriptor (`>&-`) fails only here or in an earlier write, which the commands do not check one by one; without
// this a command would exit 0 with its output lost. On failure prints "<who>: cannot write standard output: ..."
// on stderr (who: "gelu" or "gelu <command>").
// The reason is known when this flush is the write that fails (errno); a write that failed earlier (a command
// that flushed its own output) left only stdout's error flag, and the message then gives no reason.
bool StdoutWritten(const std::string& who) {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int e = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return true;
  std::fprintf(stderr, "%s: cannot write standard output%s%s\n", who.c_str(), e != 0 ? ": " : "",
               e != 0 ? std::strerror(e) : "");
  return false;
}

}  // namespace

int RunCommandLine(std::vector<std::string> args) {
  CLI::App app{"gelu: the GELU activation, exact (x*Phi(x)) and its tanh and sigmoid approximations, with their\n"
               "derivatives; accurate in float32 and float64 over every input. `gelu <command> --help` for more.",
               "gelu"};
  app.set_version_flag("--version", std::string(GELU_VERSION));
  app.require_subcommand(1);
  app.footer("Examples:\n  gelu eval -a all --grad -- -1 0 1\n  gelu apply x.npy y.npy --approximate tanh\n"
             "  gelu report -o out\nDocumentation: docs/CLI.md");
  const std::vector<Command> commands = {AddEvalCommand(app),     AddApplyCommand(app), AddBenchCommand(app),
                                         AddAccuracyCommand(app), AddPlotCommand(app),  AddReportCommand(app),
                                         AddCheckCommand(app)};

  // An unknown command: CLI11 would answer "A subcommand is required"; name it and list the commands instead.
  std::string names;
  bool known = false;
  for (const Command& c : commands) {
    names += (names.empty() ? "" : ", ") + c.app->get_name();
    known = known || (args.size() > 1 && c.app->check_name(args[1]));
  }
  if (args.size() > 1 && !args[1].empty() && args[1][0] != '-' && !known) {
    std::fprintf(stderr, "gelu: unknown command '%s'; the commands are %s (gelu --help)\n", args[1].c_str(),
                 names.c_str());
    return static_cast<int>(CLI::ExitCodes::ExtrasError);
  }
  TagNegativeNumbersAfterEval(args);
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // --help, --version: 0 and text on stdout
    const auto parsed = app.get_subcommands();
    return StdoutWritten(parsed.empty() ? "gelu" : "gelu " + parsed.front()->get_name()) || rc != 0 ? rc : 1;
  }
  const CLI::App* chosen = app.get_subcommands().front();
  for (const Command& c : commands) {
    if (c.app != chosen) continue;
    try {
      const int rc = c.run();
      return StdoutWritten("gelu " + chosen->get_name()) || rc != 0 ? rc : 1;
    } catch (const std::exception& e) {
      // Failure, npy::Error, gelu::Error, ReplaceFileError, std::bad_alloc, filesystem errors: one line, exit status 1.
      std::fflush(stdout);
      std::fprintf(stderr, "gelu %s: %s\n", chosen->get_name().c_str(), e.what());
      return 1;
    }
  }
  return 1;
}

}  // namespace gelu::cli
