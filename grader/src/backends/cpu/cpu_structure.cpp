#include "backends/cpu/cpu_structure.h"

#include <filesystem>

#include "services/inputs.h"
#include "services/limits.h"
#include "words/case_report.h"

namespace sg {

CountedCase count_loads_at(const Check& c, const RunnerConfig& runner, const std::string& log_dir,
                           std::uint64_t seed) {
  CountedCase counted;
  counted.m = c.m;
  counted.k = c.k;
  counted.n = c.n;
  const CaseInputs in = make_inputs(c.m, c.k, c.n, Distribution::Uniform, seed ^ 0x57c0de5ull);
  RunnerConfig rc = runner;
  rc.log_dir = log_dir;
  std::filesystem::create_directories(rc.log_dir);
  Case shape;  // a correctness case of the check's shape: its time limit, extended while blocks complete
  shape.m = c.m;
  shape.k = c.k;
  shape.n = c.n;
  RunnerSession session(rc);
  const CaseOutcome out = session.run(c.m, c.k, c.n, in.a, in.b, case_time_limit(shape, BackendKind::Cpu),
                                      CaseSchedule{seed, false});
  session.stop();
  if (out.kind != CaseOutcome::Kind::Ok) {
    counted.verdict = runner_failure(out);
    return counted;
  }
  counted.completed = true;
  counted.warp_loads = out.reply.header.global_loads;
  counted.launches = out.reply.header.kernel_launches;
  return counted;
}

}  // namespace sg
