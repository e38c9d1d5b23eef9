// What the command lines of `grade`, `grade batch` and `grade merge` share,
// on top of CLI11 (header-only; the Makefile's CLI11_INC): one way to make a
// command, to add an option whose value is checked, to parse, and the value
// checks more than one command uses. Only cli/*.cpp include this header.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model/result.h"

namespace sg::cli {

// Settings every command shares: an option given twice takes its last value,
// words CLI11 does not place are left for parse() to name, and the help's layout.
void configure(CLI::App& app);

// The command's one positional argument, stored in `field` ("NAME" in the help).
CLI::Option* add_positional(CLI::App& app, const std::string& name, const std::string& help, std::string& field);

// An option taking one value, which `take` checks and stores: it returns ""
// or why the value is wrong, and the error then reads "--name: why". Given
// more than once, `take` sees each value in turn.
CLI::Option* add_checked(CLI::App& app, const std::string& name, const std::string& value_name,
                         const std::string& help, std::function<std::string(const std::string&)> take);

// Parses argv[1..] (argv[0] is the command's own word). True with `help`
// set for -h/--help; false with `error` set on the first problem: the option
// and the bad value, "unknown option --x", or "more than one <what> given
// (a, b)" where `positional` (the field of add_positional) was already set.
bool parse(CLI::App& app, int argc, char** argv, const std::string& what, const std::string& positional, bool& help,
           std::string& error);

// Value checks: "" or why the value is wrong (without the option's name).
std::string parse_seed(const std::string& v, std::optional<std::uint64_t>& out);
// "auto" is the unset value: the GPU when one is usable, else the CPU.
std::string parse_backend_choice(const std::string& v, std::optional<BackendKind>& out);
std::string parse_visibility(const std::string& v, bool& public_only);

}  // namespace sg::cli
