// SPDX-License-Identifier: Apache-2.0
// What every `gelu` subcommand shares: the error type main reports, the output formats, the --approximate
// parser, and number/duration/JSON formatting. Nothing here knows about any one subcommand.
#ifndef GELU_TOOLS_CLI_HELPERS_H_
#define GELU_TOOLS_CLI_HELPERS_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gelu/gelu.hpp"

namespace gelu::cli {

// A command's failure: RunCommandLine prints "gelu <command>: <what>" on stderr and returns exit status 1.
class Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Format { table, csv, json };
Format ParseFormat(const std::string& s);
std::vector<std::string> FormatChoices();  // "table", "csv", "json": what CLI11 accepts for --format
// "none" | "tanh" | "sigmoid" -> one form; "all" -> the three.
std::vector<Approximation> ParseForms(const std::string& s);
// What CLI11 accepts for --approximate: each form's name, and "all" where several forms may be chosen.
std::vector<std::string> FormChoices(bool with_all);

std::string HumanCount(uint64_t n);  // 4096 -> "4 Ki", 16777216 -> "16 Mi"
std::string Duration(double seconds);  // "2m05s", "3.1 s", "12 ms"
bool StderrIsTerminal();
std::string JsonNumber(double v);  // shortest round-trip; "nan"/"inf"/"-inf" as strings (JSON has no NaN)
std::string JsonString(const std::string& s);

}  // namespace gelu::cli

#endif  // GELU_TOOLS_CLI_HELPERS_H_
