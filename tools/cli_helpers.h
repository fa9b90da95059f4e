// SPDX-License-Identifier: Apache-2.0
// What every `gelu` subcommand shares: the error type main reports, the output formats, the --approximate
// option (its names, choices, help and parser, all read from the function table), and number/duration/JSON
// formatting. Nothing here knows about any one subcommand.
#ifndef GELU_TOOLS_CLI_HELPERS_H_
#define GELU_TOOLS_CLI_HELPERS_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gelu/gelu.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gelu::cli {

// A command's failure: RunCommandLine prints "gelu <command>: <what>" on stderr and returns exit status 1.
class Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Format { table, csv, json };
Format ParseFormat(const std::string& s);
std::vector<std::string> FormatChoices();  // "table", "csv", "json": what CLI11 accepts for --format
// ---- The forms (--approximate). Their names and their number are those of the function table,
// common::kFormNames[0, common::kNumForms) in src/common/functions.h; nothing below spells a form's name.
std::vector<Approximation> AllForms();  // every form, in table order
const char* FormName(Approximation a);  // the table's name: "none", "tanh", "sigmoid"
// A form's name -> that form; "all" (only if with_all) -> AllForms(). Anything else: Failure
// "--approximate must be <FormList(with_all)>, not '<s>'".
std::vector<Approximation> ParseForms(const std::string& s, bool with_all);
// What CLI11 accepts for --approximate: each form's name, and "all" where several forms may be chosen.
std::vector<std::string> FormChoices(bool with_all);
// The same choices in words, for help and messages: "none, tanh or sigmoid" / "none, tanh, sigmoid or all".
std::string FormList(bool with_all);
// Adds "--approximate,-a" to `sub`, storing into *value (its current value is the default shown): CLI11 checks
// it against FormChoices(with_all); the help is `help` with "{}" replaced by FormList(with_all).
CLI::Option* AddFormOption(CLI::App& sub, std::string* value, const std::string& help, bool with_all);

// A --threads value of a command that runs the library: 0 (all hardware threads) or a count. Negative: Failure
// "--threads must be >= 0 (0: all hardware threads)".
void CheckThreadCount(int threads);

std::string HumanCount(uint64_t n);  // 4096 -> "4 Ki", 16777216 -> "16 Mi"
std::string Duration(double seconds);  // "2m05s", "3.1 s", "12 ms"
bool StderrIsTerminal();
std::string JsonNumber(double v);  // shortest round-trip; "nan"/"inf"/"-inf" as strings (JSON has no NaN)
std::string JsonString(const std::string& s);

}  // namespace gelu::cli

#endif  // GELU_TOOLS_CLI_HELPERS_H_
