// Error reporting for one YAML source: every problem with a suite becomes a
// SuiteError that reads "FILE:LINE:COLUMN: message" (1-based, as editors expect).
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>

#include "model/suite.h"

namespace sg::suite_yaml {

class Source {
 public:
  explicit Source(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  // yaml-cpp marks are 0-based and -1 when unknown; unknown becomes 1:1 so
  // that every message keeps the same shape.
  SourceLocation at(const YAML::Mark& mark) const;
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const;
  [[noreturn]] void fail(const SourceLocation& where, const std::string& message) const;

 private:
  std::string file_;
};

// "FILE:LINE:COLUMN"
std::string location_text(const SourceLocation& where);

// A short, printable rendering of a node for messages: 'abc' for scalars
// (truncated, control characters escaped), "a list", "a mapping", "nothing".
std::string show(const YAML::Node& node);

}  // namespace sg::suite_yaml
