// The score range a sample's expect.yaml implies on one backend, derived from
// the suite instead of written down in points (grader/samples/README.md), so
// that a change of points in testcases/default.yaml changes no sample:
//   lower bound: the points of the tests in must_pass;
//   upper bound: every point the backend grades but those of the tests in
//                must_fail (on the CPU backend, cpu_stricter's tests too);
//   not graded (compile error, rejected): [0, 0];
//   gpu_score_fraction: [lo, hi] (GPU only): the bounds as fractions of the
//                suite's total, where no list can say it.
// Tests in no list count [0, their points]; a test the backend does not grade
// (performance cases on the CPU backend: planned with max_score 0) counts
// nothing. A passed test earns its points and a failed one none
// (pipeline/checks.cpp, pipeline/grade.cpp), so where the lists hold the score
// lies in this range.
#pragma once
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "model/result.h"

namespace sg_samples {

struct ScoreRange {
  double lo = 0, hi = 0;
};

inline std::set<std::string> names_in(const YAML::Node& list) {
  std::set<std::string> out;
  if (list && list.IsSequence())
    for (const auto& n : list) out.insert(n.as<std::string>());
  return out;
}

// `planned`: the tests the backend reports (sg::plan_tests with the backend's
// why_not_timed), `cpu`: the CPU backend's range.
inline ScoreRange expected_score_range(const YAML::Node& expect, const std::vector<sg::TestResult>& planned,
                                       bool cpu) {
  if (expect["state"].as<std::string>("graded") != "graded") return {0, 0};
  const std::set<std::string> passing = names_in(expect["must_pass"]);
  std::set<std::string> failing = names_in(expect["must_fail"]);
  if (cpu && expect["cpu_stricter"])
    for (const std::string& n : names_in(expect["cpu_stricter"]["tests"])) failing.insert(n);
  ScoreRange r;
  double total = 0;
  for (const sg::TestResult& t : planned) {
    total += t.max_score;
    if (passing.count(t.name)) r.lo += t.max_score;
    if (!failing.count(t.name)) r.hi += t.max_score;
  }
  const YAML::Node f = expect["gpu_score_fraction"];
  if (!cpu && f) {
    r.lo = std::max(r.lo, f[0].as<double>() * total);
    r.hi = std::min(r.hi, f[1].as<double>() * total);
  }
  return r;
}

}  // namespace sg_samples
