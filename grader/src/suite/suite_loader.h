// Loads and validates a YAML suite (schema: testcases/README.md).
#pragma once
#include <stdexcept>
#include <string>

#include "model/suite.h"

namespace sg {

// Thrown for any problem with a suite; what() reads "FILE:LINE:COLUMN: message".
struct SuiteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Suite load_suite_file(const std::string& path);
// `name` stands in for the file name in messages.
Suite load_suite_string(const std::string& yaml, const std::string& name);

}  // namespace sg
