// run_tools' gated commands (process/tool_run.h): a tool's runner is started
// as for a checked run and told what to launch through the protocol after its
// start-up. Driven with a stand-in runner on the host (progs/gate_runner.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process/tool_run.h"
#include "proto/protocol.h"

namespace fs = std::filesystem;

namespace {

class GatedTools : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const fs::path root = SG_SOURCE_ROOT;
    const fs::path dir = fs::absolute(SG_BUILD_DIR) / "test_progs";
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path binary = dir / "gate_runner", source = root / "grader/tests/progs/gate_runner.cpp";
    const fs::path protocol = root / "grader/src/proto/protocol.cpp";
    if (!fs::exists(binary) || fs::last_write_time(binary) < fs::last_write_time(source) ||
        fs::last_write_time(binary) < fs::last_write_time(protocol)) {
      const std::string log = (dir / "gate_runner.log").string(), src = (root / "grader/src").string();
      const std::string cmd = "g++ -std=c++17 -O1 -Wall -Wextra -I'" + src + "' -o '" + binary.string() + ".tmp' '" +
                              source.string() + "' '" + protocol.string() + "' >'" + log + "' 2>&1 && mv '" +
                              binary.string() + ".tmp' '" + binary.string() + "'";
      if (std::system(cmd.c_str()) != 0) {
        std::ifstream f(log);
        std::stringstream ss;
        ss << f.rdbuf();
        setup_error_ = "building the stand-in runner failed: " + ss.str();
        return;
      }
    }
    runner_ = binary.string();
  }

  void SetUp() override {
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    char dir[] = "/tmp/sg_gated_test_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A folder of marks for one stand-in runner.
  std::string marks(const std::string& name) const {
    const std::string d = dir_ + "/" + name;
    fs::create_directories(d);
    return d;
  }
  static bool has(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

  static std::vector<sg::proto::RunCaseRequest> selftests(int count) {
    std::vector<sg::proto::RunCaseRequest> out;
    for (int i = 0; i < count; ++i) {
      sg::proto::RunCaseRequest q;
      q.type = sg::proto::RequestType::Selftest;
      q.m = 17 + i;
      q.k = 33;
      q.n = 19;
      out.push_back(q);
    }
    return out;
  }
  sg::ToolCommand command(const std::string& mark_dir, const std::string& mode, int start_ms, int requests,
                          double quiet_s = 0) const {
    return {{runner_, mark_dir, mode, std::to_string(start_ms)}, mark_dir + "/output.txt", 30, quiet_s,
            selftests(requests)};
  }
  std::vector<sg::ToolRun> run(const std::vector<sg::ToolCommand>& commands, const sg::TakeTurn& take_turn) const {
    return sg::run_tools(commands, {"PATH=/usr/bin:/bin"}, dir_, false, 4096, false, {}, take_turn);
  }

  static std::string runner_, setup_error_;
  std::string dir_;
};
std::string GatedTools::runner_, GatedTools::setup_error_;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The turn is taken once the runner has answered its Ping (its start-up
// done); the critical part is given back with the last answer, before the
// tool has ended, the whole turn once it has ended.
TEST_F(GatedTools, TurnIsTakenAfterTheStartUpAndGivenBackInTwoParts) {
  const std::string m = marks("one");
  bool at_gate_when_taken = false, done_when_critical_released = true, done_when_released = false;
  int turns = 0;
  auto take_turn = [&]() {
    ++turns;
    at_gate_when_taken = has(m + "/at-gate");
    sg::GateTurn turn;
    turn.critical = std::shared_ptr<void>(nullptr, [&](void*) {
      done_when_critical_released = has(m + "/done");
      std::ofstream(m + "/released") << "x";
    });
    turn.whole = std::shared_ptr<void>(nullptr, [&](void*) { done_when_released = has(m + "/done"); });
    return turn;
  };
  const sg::ToolRun r = run({command(m, "ok_wait", 300, 2)}, take_turn).front();
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.exit.exited && r.exit.code == 6) << r.exit.describe() << r.output;
  EXPECT_EQ(r.answered, 2u);
  EXPECT_TRUE(r.refused.empty()) << r.refused;
  EXPECT_EQ(turns, 1);
  EXPECT_TRUE(at_gate_when_taken);
  EXPECT_TRUE(has(m + "/request-1")) << "both requests were sent";
  EXPECT_FALSE(done_when_critical_released) << "the critical part ends with the last answer";
  EXPECT_TRUE(done_when_released) << "the whole turn lasts until the tool has ended";
}

// Two gated commands (the sanitizer's tools) share one turn: taken once both
// are at their gates (the slower start-up decides); a command without
// requests runs beside them untouched.
TEST_F(GatedTools, ToolsShareOneTurnFromTheLastArrival) {
  const std::string quick = marks("quick"), slow = marks("slow");
  bool slow_at_gate_when_taken = false;
  int turns = 0;
  auto take_turn = [&]() {
    ++turns;
    slow_at_gate_when_taken = has(slow + "/at-gate");
    return sg::GateTurn{};
  };
  const auto runs = run({command(quick, "ok", 0, 1), command(slow, "ok", 500, 3),
                         {{"/bin/sh", "-c", "exit 3"}, dir_ + "/plain.txt", 30}},
                        take_turn);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].answered, 1u);
  EXPECT_EQ(runs[1].answered, 3u);
  EXPECT_TRUE(runs[0].exit.exited && runs[0].exit.code == 6) << runs[0].exit.describe();
  EXPECT_TRUE(runs[2].exit.exited && runs[2].exit.code == 3) << runs[2].exit.describe();
  EXPECT_EQ(turns, 1);
  EXPECT_TRUE(slow_at_gate_when_taken) << "the turn waits for the last runner's start-up";
}

// A refused request ends the conversation: its message is kept, later
// requests are never sent.
TEST_F(GatedTools, ARefusedRequestEndsTheConversation) {
  const std::string m = marks("refuse");
  const sg::ToolRun r = run({command(m, "refuse", 0, 3)}, {}).front();
  EXPECT_EQ(r.answered, 0u);
  EXPECT_NE(r.refused.find("boom at the launch"), std::string::npos) << r.refused;
  EXPECT_TRUE(r.exit.exited && r.exit.code == 5) << r.exit.describe();
  EXPECT_FALSE(has(m + "/request-1"));
}

// A runner that ends inside a launch, unanswered, ends "cleanly" but short:
// the count of answers tells (what a raw exit(0) in the submission does).
TEST_F(GatedTools, ARunnerThatEndsBeforeItsAnswerIsSeenShort) {
  const std::string m = marks("early");
  const sg::ToolRun r = run({command(m, "end_early", 0, 2)}, {}).front();
  EXPECT_TRUE(r.exit.exited && r.exit.code == 0) << r.exit.describe();
  EXPECT_EQ(r.answered, 0u);
  EXPECT_TRUE(r.refused.empty()) << r.refused;
}

// A gated tool's quiet limit counts from its turn: the silent wait for the
// turn is no hang, silence after it is.
TEST_F(GatedTools, QuietLimitCountsFromTheTurn) {
  const std::string m = marks("quiet");
  auto take_turn = [&]() {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // a turn that comes late
    return sg::GateTurn{};
  };
  const auto t0 = std::chrono::steady_clock::now();
  const sg::ToolRun r = run({command(m, "hang", 0, 1, 1.0)}, take_turn).front();
  EXPECT_TRUE(r.went_quiet);
  EXPECT_FALSE(r.before_gate);
  EXPECT_FALSE(r.exit.exited) << r.exit.describe();
  EXPECT_EQ(r.answered, 0u);
  EXPECT_NE(r.output.find("working"), std::string::npos) << "the runner got its request: " << r.output;
  EXPECT_LT(seconds_since(t0), 25) << "ended for its quiet limit, not its 30 s deadline";
}

// A runner that never answers its Ping (it hangs in its start-up, e.g. in a
// static constructor) is ended at its quiet limit from the spawn, and no
// turn is taken.
TEST_F(GatedTools, StuckBeforeTheGateIsEndedAtItsQuietLimit) {
  const std::string m = marks("stuck");
  int turns = 0;
  auto take_turn = [&]() {
    ++turns;
    return sg::GateTurn{};
  };
  const auto t0 = std::chrono::steady_clock::now();
  const sg::ToolRun r = run({command(m, "hang_start", 0, 1, 1.0)}, take_turn).front();
  EXPECT_TRUE(r.went_quiet);
  EXPECT_TRUE(r.before_gate);
  EXPECT_EQ(turns, 0);
  EXPECT_LT(seconds_since(t0), 20) << "ended for its quiet limit, not its 30 s deadline";
}

// A command that ends without answering its Ping takes no turn.
TEST_F(GatedTools, ACommandThatEndsBeforeItsGateTakesNoTurn) {
  int turns = 0;
  auto take_turn = [&]() {
    ++turns;
    return sg::GateTurn{};
  };
  sg::ToolCommand c{{"/bin/sh", "-c", "exit 3"}, dir_ + "/early.txt", 30, 0, selftests(1)};
  const sg::ToolRun r = run({c}, take_turn).front();
  EXPECT_TRUE(r.exit.exited && r.exit.code == 3) << r.exit.describe();
  EXPECT_EQ(turns, 0);
  EXPECT_EQ(r.answered, 0u);
}

}  // namespace
