// Test entry point: runs every GoogleTest suite and ends with the one line
// the project promises: "N passed, N failed, N skipped". The line is printed
// after RUN_ALL_TESTS returns because GoogleTest fires end-of-program
// listeners in reverse order, which would put its own summary after ours.
#include <gtest/gtest.h>

#include <cstdio>

namespace {

struct Counts {
  int passed = 0, failed = 0, skipped = 0;
};

Counts count_results(const testing::UnitTest& unit) {
  Counts c;
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const testing::TestSuite* suite = unit.GetTestSuite(i);
    for (int j = 0; j < suite->total_test_count(); ++j) {
      const testing::TestInfo* info = suite->GetTestInfo(j);
      if (!info->should_run()) continue;
      const testing::TestResult* r = info->result();
      if (r->Failed()) ++c.failed;
      else if (r->Skipped()) ++c.skipped;
      else ++c.passed;
    }
    // A failure in SetUpTestSuite/TearDownTestSuite is recorded on the suite.
    if (suite->ad_hoc_test_result().Failed()) ++c.failed;
  }
  if (unit.ad_hoc_test_result().Failed()) ++c.failed;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  const Counts c = count_results(*testing::UnitTest::GetInstance());
  std::fflush(stderr);
  std::printf("%d passed, %d failed, %d skipped\n", c.passed, c.failed, c.skipped);
  std::fflush(stdout);
  return (rc != 0 || c.failed != 0) ? 1 : 0;
}
