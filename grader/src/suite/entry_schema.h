// Schema of the entries of a suite: the `defaults` mapping, one case, one check.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstddef>

#include "model/suite.h"
#include "suite/yaml_fields.h"
#include "suite/yaml_source.h"

namespace sg::suite_yaml {

// Values a case or check takes when it does not set them.
struct Defaults {
  double timeout_s = Case{}.timeout_s;
  double tolerance_factor = Case{}.tolerance_factor;
  Visibility visibility = Visibility::Public;
  Distribution inputs = Distribution::Uniform;
};

// Reads `defaults` from the top-level mapping (built-in values when absent).
Defaults parse_defaults(const Fields& top, const Source& src);

// `index` is 0-based; `list_at` locates the list for entries without a usable mark.
Case parse_case(const YAML::Node& node, std::size_t index, const Defaults& defaults,
                const Source& src, const SourceLocation& list_at);
Check parse_check(const YAML::Node& node, std::size_t index, const Defaults& defaults,
                  const Source& src, const SourceLocation& list_at);

}  // namespace sg::suite_yaml
