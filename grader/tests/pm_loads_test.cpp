// The structure check's loads from the GPU's performance monitors (CUPTI PM
// sampling, the default; SG_STRUCTURE_COUNTER=ncu asks for ncu): counted around an ordinary checked
// launch, twice, exactly as ncu counted them, with no tool process; where the
// counter cannot open or the counts differ, it says why and ncu stands in.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <functional>
#include <string>
#include <vector>

#include "backends/gpu/pm_loads.h"
#include "backends/load_count.h"
#include "gpu_guard.h"

namespace fs = std::filesystem;

namespace {

// The counters are the default (backends/gpu/gpu_backend.cpp); ncu is asked for by name.
constexpr const char* kPm = "";
constexpr const char* kNcu = "SG_STRUCTURE_COUNTER=ncu";

class PmLoads : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sg-pm-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Grades `kernel` on the GPU with `suite` (env: extra environment); the structure test's result.
  nlohmann::json structure(const std::string& kernel, const std::string& suite, const std::string& env = "") {
    const std::string out = (dir_ / "out").string();
    fs::remove_all(out);
    const std::string cmd = env + " timeout -k 5 300 '" + std::string(SG_BUILD_DIR) + "/grade' --backend gpu --seed 9 --suite '" +
                            suite + "' --out '" + out + "' '" + kernel + "' >/dev/null 2>'" + (dir_ / "err.txt").string() +
                            "' </dev/null";
    const int rc = std::system(cmd.c_str());
    std::ifstream ef(dir_ / "err.txt");
    std::stringstream err;
    err << ef.rdbuf();
    log_ = err.str();
    EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << log_;
    std::ifstream rf(out + "/results.json");
    const nlohmann::json r = nlohmann::json::parse(rf);
    // The figures are in extra_data; the words a student reads (what was
    // counted, by what) in the Gradescope test's output.
    for (auto t : r["extra_data"]["tests"])
      if (t["name"] == "structure") {
        for (const auto& shown : r["tests"])
          if (shown["name"] == "structure") t["detail"] = shown.value("output", "");
        return t;
      }
    ADD_FAILURE() << "no structure test in " << r.dump(1).substr(0, 2000);
    return {};
  }
  std::string root(const std::string& rel) const { return std::string(SG_SOURCE_ROOT) + "/" + rel; }

  // The counters count the whole device: beside other GPU work (other tests
  // outside the lock) the grading falls back to ncu and says why; the figure
  // must be the same either way.
  bool counted_by_pm(const nlohmann::json& t) const {
    EXPECT_TRUE(t.contains("reuse") && t["reuse"].is_object())
        << "neither counter counted (ncu cannot profile while another process holds the counters):\n"
        << t.dump(1) << "\n" << log_;
    if (t["reuse"]["source"] == "pm-sampling") return true;
    EXPECT_EQ(t["reuse"]["source"], "ncu") << t.dump(1);
    EXPECT_NE(log_.find("the GPU's counters could not be read"), std::string::npos) << log_;
    return false;
  }

  fs::path dir_;
  std::string log_;
};

// A window that reports the next of a list of counts (nullopt: the counter failed).
class ListedWindow : public sg::LoadWindow {
 public:
  explicit ListedWindow(std::optional<double> loads) : loads_(loads) {}
  std::optional<double> close(std::string& why) override {
    if (!loads_) why = "the counter failed";
    return loads_;
  }

 private:
  std::optional<double> loads_;
};

struct Listed : sg::LoadWindows {
  Listed(std::vector<std::optional<double>> c, std::vector<bool> d) : counts(std::move(c)), completes(std::move(d)) {}
  std::vector<std::optional<double>> counts;
  std::vector<bool> completes;
  std::size_t opened = 0, launched = 0;
  std::unique_ptr<sg::LoadWindow> open(std::string& why) override {
    if (opened >= counts.size()) {
      why = "cannot open";
      return nullptr;
    }
    return std::make_unique<ListedWindow>(counts[opened++]);
  }
  std::function<sg::CaseOutcome()> launcher() {
    return [this] {
      sg::CaseOutcome out;
      if (!completes[launched++]) {
        out.kind = sg::CaseOutcome::Kind::Crashed;
        out.failure = sg::CaseOutcome::Failure::DiedWhileRunning;
      }
      return out;
    };
  }
};

// Two equal counts stand; two that differ (other work in a window) do not,
// and say so; a launch that fails leaves no count and no counter complaint.
TEST(CountLaunchTwice, OnlyTwoEqualCountsOfCompletedLaunchesStand) {
  Listed same{{4194304.0, 4194304.0}, {true, true}};
  sg::CountedLaunch c = sg::count_launch_twice(same, same.launcher());
  EXPECT_EQ(c.loads, 4194304.0);
  EXPECT_EQ(same.launched, 2u);

  Listed differ{{4194304.0, 4194400.0}, {true, true}};
  c = sg::count_launch_twice(differ, differ.launcher());
  EXPECT_EQ(c.loads, std::nullopt);
  EXPECT_NE(c.counter_failed.find("differed (4194304 and 4194400)"), std::string::npos) << c.counter_failed;

  Listed crash{{4194304.0, 4194304.0}, {false, true}};
  c = sg::count_launch_twice(crash, crash.launcher());
  EXPECT_EQ(c.loads, std::nullopt);
  EXPECT_TRUE(c.counter_failed.empty()) << c.counter_failed;
  EXPECT_EQ(c.out.kind, sg::CaseOutcome::Kind::Crashed) << "the first launch's outcome is the case's";
  EXPECT_EQ(crash.launched, 1u) << "no second launch after a failed one";

  Listed again{{4194304.0, 4194304.0}, {true, false}};
  c = sg::count_launch_twice(again, again.launcher());
  EXPECT_EQ(c.loads, std::nullopt);
  EXPECT_EQ(c.out.kind, sg::CaseOutcome::Kind::Ok);
  EXPECT_NE(c.counter_failed.find("made again"), std::string::npos) << c.counter_failed;

  Listed broken{{std::nullopt}, {true, true}};
  c = sg::count_launch_twice(broken, broken.launcher());
  EXPECT_EQ(c.loads, std::nullopt);
  EXPECT_EQ(c.counter_failed, "the counter failed");

  Listed closed{{}, {true}};
  c = sg::count_launch_twice(closed, closed.launcher());
  EXPECT_EQ(c.loads, std::nullopt);
  EXPECT_EQ(c.counter_failed, "cannot open");
  EXPECT_EQ(closed.launched, 1u) << "the launch is the case's: it runs even without a counter";
}

// Where there is no device (or no CUPTI), opening says why and nothing else happens.
TEST_F(PmLoads, OpeningWithoutADeviceSaysWhyInsteadOfFailing) {
  if (sg::test::gpu_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is present: the GPU tests below cover it";
  std::string why;
  EXPECT_EQ(sg::PmLoadCounter::open(why), nullptr);
  EXPECT_FALSE(why.empty());
}

// The default suite's square_1024 case is the checked launch counted: the
// naive kernel's 2*m*n*k/32 loads (reuse 1) and the reference's sixteenth of
// them (4194304), exactly, as ncu counted them; and no ncu process ran.
TEST_F(PmLoads, TheCaseOfTheChecksShapeIsCountedExactly) {
  SG_REQUIRE_GPU();
  if (!sg::PmLoadCounter::built()) GTEST_SKIP() << "built without CUPTI's PM sampling";
  const std::string suite = root("testcases/default.yaml");
  nlohmann::json t = structure(root("reference/naive.cu"), suite, kPm);
  (void)counted_by_pm(t);
  EXPECT_DOUBLE_EQ(t["reuse"]["factor"].get<double>(), 1.0) << t.dump(1);
  EXPECT_EQ(t["status"], "failed");
  t = structure(root("reference/kernel.cu"), suite, kPm);
  const bool pm = counted_by_pm(t);
  EXPECT_DOUBLE_EQ(t["reuse"]["factor"].get<double>(), 16.0) << t.dump(1);
  EXPECT_NE(t["detail"].get<std::string>().find("counted 4194304 "), std::string::npos) << t.dump(1);
  EXPECT_EQ(t["status"], "passed");
  if (pm) {
    EXPECT_NE(t["detail"].get<std::string>().find("performance monitors"), std::string::npos) << t.dump(1);
    EXPECT_EQ(log_.find("ncu:"), std::string::npos) << "ncu ran although the counter worked:\n" << log_;
  }
}

// Without a correctness case of the check's shape, one checked launch of its
// own is counted (through the student's runner, after the cases).
TEST_F(PmLoads, WithoutACaseOfTheChecksShapeALaunchOfItsOwnIsCounted) {
  SG_REQUIRE_GPU();
  if (!sg::PmLoadCounter::built()) GTEST_SKIP() << "built without CUPTI's PM sampling";
  std::ofstream(dir_ / "suite.yaml") << "suite: pm_own_launch\ncases:\n  - {name: odd, m: 45, k: 37, n: 29, points: 2}\n"
                                        "checks:\n  - {name: structure, kind: shared_memory_and_barrier, points: 5, "
                                        "m: 512, k: 256, n: 512}\n";
  const nlohmann::json t = structure(root("grader/samples/styles/tile_8x8/kernel.cu"), (dir_ / "suite.yaml").string(), kPm);
  (void)counted_by_pm(t);
  EXPECT_DOUBLE_EQ(t["reuse"]["factor"].get<double>(), 8.0) << t.dump(1);
  EXPECT_EQ(t["status"], "passed") << t.dump(1);
  EXPECT_NE(log_.find("global loads at 512x256x512 (the GPU's counters)"), std::string::npos) << log_;
}

// Asked for by name, ncu counts, and its count is the same.
TEST_F(PmLoads, NcuCountsWhenAskedForAndAgrees) {
  SG_REQUIRE_GPU();
  const nlohmann::json t = structure(root("reference/kernel.cu"), root("testcases/default.yaml"), kNcu);
  if (t["reuse"]["source"] != "ncu") GTEST_SKIP() << "ncu did not count here: " << t["verdict"];
  EXPECT_DOUBLE_EQ(t["reuse"]["factor"].get<double>(), 16.0) << t.dump(1);
}

}  // namespace
