#include "backends/cpu/cpu_sanitizer.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "backends/cpu/host_oracle.h"
#include "compare/tolerance.h"
#include "compare/diagnosis_catalogue.h"
#include "words/case_report.h"
#include "words/sanitizer_report.h"
#include "services/inputs.h"
#include "services/limits.h"

namespace sg {
namespace {

// One run of the check's case in a fresh runner, started as every runner is:
// the order is the request's (as the blocks' turns, from the same seed).
CaseOutcome run_once(const Check& c, RunnerConfig rc, const std::string& log_dir, bool forward,
                     const CaseInputs& in, std::uint64_t seed) {
  rc.log_dir = log_dir + (forward ? "/ascending-order" : "/descending-order");
  std::filesystem::create_directories(rc.log_dir);
  RunnerSession session(rc);
  CaseOutcome out = session.run(c.m, c.k, c.n, in.a, in.b, cpu_sanitizer_run_limit(c), CaseSchedule{seed, forward});
  session.stop();
  return out;
}

}  // namespace

double cpu_sanitizer_run_limit(const Check& c) {
  Case shape;  // a correctness case of the check's shape (timeout_s 10 s, as a case by default)
  shape.m = c.m;
  shape.k = c.k;
  shape.n = c.n;
  return std::min(c.timeout_s, case_time_limit(shape, BackendKind::Cpu));
}

void cpu_sanitizer_check(const Check& c, const RunnerConfig& runner, const std::string& log_dir,
                         std::uint64_t seed, TestResult& t) {
  const CaseInputs in = make_inputs(c.m, c.k, c.n, Distribution::Uniform, seed ^ 0x5a417e5ull);
  std::vector<CaseOutcome> runs;
  for (bool forward : {false, true}) {
    runs.push_back(run_once(c, runner, log_dir, forward, in, seed));
    if (runs.back().kind != CaseOutcome::Kind::Ok) {
      t.status = Status::Failed;
      t.verdict = sanitizer_run_failed(forward, runner_failure(runs.back()));
      return;
    }
  }
  // The facts of each finding, said in words/sanitizer_report.h; a finding's diagnosis is pushed in the same order.
  SanitizerFindings f;
  // memcheck: the first stray access of the first run.
  f.stray = runs[0].reply.message;
  if (!f.stray.empty()) t.diagnoses.push_back(make_diagnosis(DiagnosisId::MemoryOutOfBounds));
  // Races between blocks: stores to an element another block wrote in the same launch.
  f.block_race = runs[0].reply.block_race;
  if (!f.block_race.empty()) t.diagnoses.push_back(make_diagnosis(DiagnosisId::RaceBetweenBlocks));
  // racecheck: the two orders must agree up to rounding.
  std::vector<double> c64, abs_ab;
  host_oracle(c.m, c.n, c.k, in.a.data(), in.b.data(), c64, abs_ab);
  const RunDifference d = differing_elements(c.m, c.n, c.k, runs[0].reply.c.data(), runs[1].reply.c.data(),
                                             abs_ab.data(), 2);
  if (d.count > 0) {
    f.differing = d.count;
    f.elements = runs[0].reply.c.size();
    f.row = d.first / static_cast<std::size_t>(c.n);
    f.col = d.first % static_cast<std::size_t>(c.n);
    f.descending = runs[0].reply.c[d.first];
    f.ascending = runs[1].reply.c[d.first];
    t.diagnoses.push_back(make_diagnosis(DiagnosisId::RaceSharedMemory));
  }
  const bool found = !f.stray.empty() || !f.block_race.empty() || f.differing > 0;
  t.status = found ? Status::Failed : Status::Passed;
  t.verdict = sanitizer_verdict(f);
  t.detail += sanitizer_detail(f);
}

}  // namespace sg
