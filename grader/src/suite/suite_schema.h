// The suite schema (testcases/README.md): turns a parsed YAML document into a
// validated Suite, or throws SuiteError at the first problem.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>

#include "model/suite.h"
#include "suite/yaml_source.h"

namespace sg::suite_yaml {

// Limits a suite must respect. They keep every case runnable: matrix edges
// that fit the kernel's int arithmetic, and sanitizer runs that finish.
constexpr long long kMaxEdge = 65536;                     // m, k, n
constexpr long long kMaxElements = 2147483647;            // m*k, k*n, m*n (INT32_MAX)
constexpr long long kExactLimit = 16777216;               // 2^24: FP32 integers are exact below
constexpr long long kSmallIntMaxProduct = 16;             // |a*b| for small_int inputs in [-4, 4]
constexpr long long kMaxSanitizerEdge = 1024;             // compute-sanitizer is ~100x slower
constexpr long long kMaxReuseEdge = 4096;                 // the structure check's shape runs once under ncu
constexpr int kDefaultReuseEdge = 1024;                   // 1024^3: large enough that edges do not matter
constexpr double kMaxMinReuse = 1024;                     // min_reuse: far above any real kernel's
constexpr int kTile = 16;                                 // TILE_SIZE of the assignment
constexpr double kMaxTimeout = 3600;                      // seconds, per case or check
constexpr int kMaxSamples = 1000;
constexpr int kMaxWarmups = 100;

Suite parse_suite(const YAML::Node& root, const Source& src);

}  // namespace sg::suite_yaml
