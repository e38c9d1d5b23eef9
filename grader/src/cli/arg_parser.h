// The one command-line parser behind `grade` and `grade batch`: a table of
// options, each with the function that takes its value, and the value
// checks both commands share. Errors name the option and what was given.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sg::cli {

struct Option {
  std::string name;  // "--out"
  bool takes_value = true;
  // Stores the value (empty for a flag); returns "" or the error message.
  std::function<std::string(const std::string& value)> apply;
};

// An option that stores its value as given, and a flag that sets `field`.
Option text_option(const std::string& name, std::string& field);
Option flag_option(const std::string& name, bool& field);

// Parses argv[1..]. "-h" and "--help" set `help`; a word that does not start
// with '-' is the one positional argument (`positional_what` names it in the
// error when there are two). False with `error` set on the first problem.
bool parse_args(int argc, char** argv, const std::vector<Option>& options, const std::string& positional_what,
                bool& help, std::string& positional, std::string& error);

// Shared value checks: "" or the error, naming `flag`.
std::string parse_seed(const std::string& flag, const std::string& v, std::optional<std::uint64_t>& out);
std::string parse_backend(const std::string& flag, const std::string& v, std::string& out);
std::string parse_visibility(const std::string& flag, const std::string& v, bool& public_only);

}  // namespace sg::cli
