// Command-line options of `grade` (parsing only; no side effects).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace sg {

struct CliOptions {
  bool help = false;
  std::string suite;              // default: testcases/default.yaml
  std::string out = "results";
  std::optional<std::uint64_t> seed;
  bool public_only = false;
  std::string backend = "auto";
  std::string student;
  bool keep_work = false;
  bool quiet = false;
  std::string gpu_lock;            // flock held while the GPU is in use (batch mode)
  std::string device_arch;         // "sm_90" when the caller already knows it (batch mode)
  std::string submission;
};

// False with `error` naming the bad argument.
bool parse_cli(int argc, char** argv, CliOptions& out, std::string& error);
std::string usage_text();

}  // namespace sg
