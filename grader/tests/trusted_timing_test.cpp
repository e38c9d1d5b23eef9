// End to end on a GPU (skips without one): the reference graded against the
// baseline runner's reference is as fast as itself, and earns every
// performance point, with the overhead measured and reported. The cheats
// have their own samples (hostile/replays_first_output,
// hostile/patches_baseline_table), graded by sample_grading_test.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "gpu_guard.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The reference graded alone on the GPU into test-grades/trusted-timing/<tag>
// (its grade.log in log.txt there, unless `quiet`): its results.json.
json grade_reference(const std::string& tag, bool quiet = true) {
  const fs::path out = fs::path(SG_BUILD_DIR) / "test-grades" / "trusted-timing" / tag;
  fs::remove_all(out);
  fs::create_directories(out);
  const std::string cmd = "timeout -k 10 600 '" + std::string(SG_BUILD_DIR) + "/grade' " +
                          (quiet ? "--quiet " : "") + "--backend gpu --out '" + out.string() + "' '" +
                          std::string(SG_SOURCE_ROOT) + "/reference/kernel.cu' >'" + (out / "log.txt").string() +
                          "' 2>&1 </dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "see " << (out / "log.txt");
  std::ifstream f(out / "results.json");
  std::stringstream ss;
  ss << f.rdbuf();
  return json::parse(ss.str(), nullptr, false);
}

// The grade.log grade_reference(tag, false) kept.
std::string grade_log(const std::string& tag) {
  std::ifstream lf(fs::path(SG_BUILD_DIR) / "test-grades" / "trusted-timing" / tag / "log.txt");
  return std::string((std::istreambuf_iterator<char>(lf)), std::istreambuf_iterator<char>());
}

TEST(TrustedTiming, ReferenceAgainstItselfIsSpeedupOneWithFullPoints) {
  SG_REQUIRE_GPU();
  for (const char* tag : {"first", "second"}) {
    const json r = grade_reference(tag);
    ASSERT_TRUE(r.is_object()) << tag << ": no results.json";
    EXPECT_EQ(r["score"].get<double>(), 100.0) << tag;
    int timed = 0;
    for (const json& t : r["extra_data"]["tests"]) {
      if (!t.contains("timing")) continue;
      ++timed;
      const json& tm = t["timing"];
      const std::string name = t["name"].get<std::string>();
      EXPECT_EQ(t["status"].get<std::string>(), "passed") << tag << " " << name << ": " << t["verdict"];
      EXPECT_GE(tm["speedup"].get<double>(), 0.9) << tag << " " << name;
      EXPECT_LE(tm["speedup"].get<double>(), 1.1) << tag << " " << name;
      EXPECT_GT(tm["overhead_ms"].get<double>(), 0.0) << tag << " " << name;
      EXPECT_FALSE(tm["timed_output_wrong"].get<bool>()) << tag << " " << name;
      // An honest runner's events sit above the grader's floor, which stays close under them.
      EXPECT_FALSE(tm["student_floor_used"].get<bool>()) << tag << " " << name;
      EXPECT_GT(tm["student_floor_ms"].get<double>(), 0.8 * tm["student_ms"].get<double>()) << tag << " " << name;
    }
    EXPECT_EQ(timed, 2) << tag << ": the default suite has two performance cases";
  }
}

// A grading alone times its baselines while its submission builds
// (pipeline/early_baselines.h): the log says so for each performance case,
// and whether the record stood once the student's samples showed the GPU's
// pace; on an idle GPU at least one does, and the speedups stay at one.
TEST(TrustedTiming, AGradingAloneTimesItsBaselinesWhileItBuilds) {
  SG_REQUIRE_GPU();
  const json r = grade_reference("early", false);
  ASSERT_TRUE(r.is_object()) << "no results.json";
  const std::string log = grade_log("early");
  const auto has = [&log](const std::string& text) { return log.find(text) != std::string::npos; };
  std::map<std::string, std::string> detail_of;  // the Gradescope tests' text, by name
  for (const json& t : r["tests"]) detail_of[t["name"].get<std::string>()] = t["output"].get<std::string>();
  int stood = 0;
  for (const json& t : r["extra_data"]["tests"]) {
    if (!t.contains("timing")) continue;
    const std::string name = t["name"].get<std::string>();
    const std::string c = name.substr(0, name.find('/'));
    EXPECT_TRUE(has("timing the baselines of " + c + " while the submission builds")) << name << "\n" << log;
    const bool taken = has("the baselines of " + c + " timed while the submission built, ");
    const bool refused = has("the baselines of " + c + " timed while the submission built not taken: ");
    const bool not_kept = has("the baselines of " + c + " timed while the submission builds are not kept: ");
    EXPECT_EQ(int(taken) + int(refused) + int(not_kept), 1) << name << ": one fate for its early baselines\n" << log;
    // A take after the student's samples logs the bare "timing the baselines of <case>".
    if (taken) {
      EXPECT_FALSE(has("timing the baselines of " + c + "\n"))
          << name << ": baselines timed again after the samples though the early ones stood\n" << log;
    }
    stood += taken;
    const std::string detail = detail_of[name];
    EXPECT_EQ(taken, detail.find("were timed while the submission compiled") != std::string::npos)
        << name << ": the report says otherwise\n" << detail;
    EXPECT_GE(t["timing"]["speedup"].get<double>(), 0.9) << name;
    EXPECT_LE(t["timing"]["speedup"].get<double>(), 1.1) << name;
  }
  EXPECT_GE(stood, 1) << "no early record stood on an idle GPU\n" << log;
  EXPECT_EQ(r["score"].get<double>(), 100.0);
}

// A grading alone runs its sanitizer after its timing, beside the check of
// the timed outputs, with the same verdict as before the cases; its load
// counter, enabled early, counts the structure check's launch.
TEST(TrustedTiming, AGradingAloneRunsItsSanitizerAfterItsTiming) {
  SG_REQUIRE_GPU();
  const json r = grade_reference("sanitizer-last", false);
  ASSERT_TRUE(r.is_object()) << "no results.json";
  const std::string log = grade_log("sanitizer-last");
  const std::size_t ended = log.find("ending the student's runner"), sanitizer = log.find("sanitizer memcheck");
  ASSERT_NE(ended, std::string::npos) << log;
  ASSERT_NE(sanitizer, std::string::npos) << log;
  EXPECT_GT(sanitizer, ended) << "the sanitizer ran before the timing\n" << log;
  bool seen = false;
  for (const json& t : r["extra_data"]["tests"]) {
    if (t["name"] == "sanitizer") {
      seen = true;
      EXPECT_EQ(t["status"], "passed") << t.dump();
    }
    // Alone, on an idle GPU, the counter enabled while the other cases ran
    // (correctness_stage.cpp) counts the structure check's launch itself:
    // what it gathered before its window is not taken for other work.
    if (t["name"] == "structure") {
      ASSERT_TRUE(t.contains("reuse")) << t.dump();
      EXPECT_EQ(t["reuse"]["source"], "pm-sampling") << log;
    }
  }
  EXPECT_TRUE(seen) << "no sanitizer test";
  EXPECT_EQ(r["score"].get<double>(), 100.0);
}

}  // namespace
