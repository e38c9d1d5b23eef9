// A case made again after its runner failed (RunnerSession::rerun, the GPU
// batch's rule for a timeout beside other gradings) is the same call of the
// program as before: the fresh runner first makes the failed one's earlier
// checked launches. Built for the CPU backend; no GPU needed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cpu_runner_fixture.h"
#include "process/tool_run.h"
#include "services/runner_session.h"
#include "words/case_report.h"

namespace {

using namespace cpu_fixture;

std::string sample_source(const char* name) {
  std::ifstream in(fs::path(SG_SOURCE_ROOT) / "grader/samples/hostile" / name / "kernel.cu");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// host_hang_third_call never returns from its third call: its third case
// times out; made again with the earlier calls replayed, it is the third call
// again and times out again, where a plain run on a fresh runner (its first
// call) would pass.
TEST(RunnerRerun, TheCaseMadeAgainIsTheSameCallOfTheProgram) {
  Built b;
  BUILD_OR_FAIL(sample_source("host_hang_third_call"), b);
  sg::RunnerSession session(session_config(b));
  session.keep_calls(true);
  const Matrices x = random_inputs(32, 16, 48, 7);
  auto run = [&] { return session.run(32, 16, 48, x.a, x.b, 30); };
  ASSERT_EQ(run().kind, sg::CaseOutcome::Kind::Ok);
  ASSERT_EQ(run().kind, sg::CaseOutcome::Kind::Ok);
  EXPECT_EQ(session.run(32, 16, 48, x.a, x.b, 2).kind, sg::CaseOutcome::Kind::TimedOut);
  const sg::CaseOutcome again = session.rerun(32, 16, 48, x.a, x.b, 2);
  EXPECT_EQ(again.kind, sg::CaseOutcome::Kind::TimedOut) << sg::runner_failure(again);
  EXPECT_FALSE(again.in_replay);
  EXPECT_EQ(again.replayed, 2u);
  // The same request without the replay: a fresh runner's first call.
  const sg::CaseOutcome plain = run();
  ASSERT_EQ(plain.kind, sg::CaseOutcome::Kind::Ok) << sg::runner_failure(plain);
  EXPECT_EQ(wrong_elements(x, plain.reply.c), 0);
}

// Without keep_calls a rerun is a plain run on a fresh runner (nothing kept).
TEST(RunnerRerun, NothingIsReplayedUnlessCallsAreKept) {
  Built b;
  BUILD_OR_FAIL(sample_source("host_hang_third_call"), b);
  sg::RunnerSession session(session_config(b));
  const Matrices x = random_inputs(32, 16, 48, 7);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(session.run(32, 16, 48, x.a, x.b, 30).kind, sg::CaseOutcome::Kind::Ok);
  EXPECT_EQ(session.run(32, 16, 48, x.a, x.b, 2).kind, sg::CaseOutcome::Kind::TimedOut);
  const sg::CaseOutcome again = session.rerun(32, 16, 48, x.a, x.b, 30);
  EXPECT_EQ(again.kind, sg::CaseOutcome::Kind::Ok) << sg::runner_failure(again);
  EXPECT_EQ(again.replayed, 0u);
}

}  // namespace
