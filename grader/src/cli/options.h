// Command-line options of `grade` (parsing only; no side effects).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "model/result.h"

namespace sg {

struct CliOptions {
  bool help = false;
  std::string suite;              // default: testcases/default.yaml
  std::string out = "results";
  std::optional<std::uint64_t> seed;
  bool public_only = false;
  std::optional<BackendKind> backend;  // --backend gpu|cpu; unset: auto
  std::string student;
  bool keep_work = false;
  bool quiet = false;
  std::string gpu_lock;            // flock held while the GPU is in use (batch mode)
  std::string device_arch;         // "sm_90" when the caller already knows it (batch mode)
  std::string submission;
};

// False with `error` naming the bad argument (exit status 2).
bool parse_cli(int argc, char** argv, CliOptions& out, std::string& error);
// The help of `grade` (CLI11's, from the option table of options.cpp).
std::string usage_text();

}  // namespace sg
