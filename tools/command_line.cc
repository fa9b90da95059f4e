// SPDX-License-Identifier: Apache-2.0
// The `gelu` command line: registers every subcommand (each in its own file) with CLI11, parses, runs the
// chosen one, and reports errors as one line on stderr, "gelu <command>: <what went wrong>", with exit status 1
// (CLI11's codes, 105-109, for bad usage). Docs: docs/CLI.md.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tools/commands.h"

namespace gelu::cli {

int RunCommandLine(std::vector<std::string> args) {
  CLI::App app{"gelu: the GELU activation, exact (x*Phi(x)) and its tanh and sigmoid approximations, with their\n"
               "derivatives; accurate in float32 and float64 over every input. `gelu <command> --help` for more.",
               "gelu"};
  app.set_version_flag("--version", std::string(GELU_VERSION));
  app.require_subcommand(1);
  app.footer("Examples:\n  gelu eval -a all --grad -- -1 0 1\n  gelu apply x.npy y.npy --approximate tanh\n"
             "  gelu report -o out\nDocumentation: docs/CLI.md");
  const std::vector<Command> commands = {AddEvalCommand(app),     AddApplyCommand(app), AddBenchCommand(app),
                                         AddAccuracyCommand(app), AddPlotCommand(app),  AddReportCommand(app)};

  TagNegativeNumbersAfterEval(args);
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  const CLI::App* chosen = app.get_subcommands().front();
  for (const Command& c : commands) {
    if (c.app != chosen) continue;
    try {
      return c.run();
    } catch (const std::exception& e) {
      // Failure, npy::Error, gelu::Error, std::bad_alloc, filesystem errors: one line, exit status 1.
      std::fflush(stdout);
      std::fprintf(stderr, "gelu %s: %s\n", chosen->get_name().c_str(), e.what());
      return 1;
    }
  }
  return 1;
}

}  // namespace gelu::cli
