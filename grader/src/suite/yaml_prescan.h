// A pass over the YAML event stream before any node is built. It rejects what
// the suite schema never needs but what could exhaust or hang a loader:
// nesting far beyond the schema's four levels, self-referencing aliases
// (yaml-cpp turns `&a [*a]` into a cyclic node), more than one document and
// an excessive node count. Throws SuiteError; yaml-cpp's own exceptions
// (syntax errors) pass through to the caller.
#pragma once
#include <string>

#include "suite/yaml_source.h"

namespace sg::suite_yaml {

struct ShapeLimits {
  int max_depth = 16;         // the schema needs 4: suite > cases > case > performance
  long max_nodes = 200000;    // a 1000-case suite has about 15000
};

void prescan(const std::string& text, const Source& src, const ShapeLimits& limits = {});

}  // namespace sg::suite_yaml
