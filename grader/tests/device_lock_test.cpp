// The shared-GPU lock of batch grading: shared holders together, an
// exclusive holder alone, and a waiting exclusive request ahead of shared
// requests that come after it. flock locks belong to open files, so threads
// that each open the lock behave like separate grade processes.
#include "backends/gpu/device_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class DeviceLockTest : public testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sg-lock-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/gpu0.lock";
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Appends `what` to the event log, in the order things happened.
  void note(const std::string& what) {
    std::lock_guard<std::mutex> g(mu_);
    events_.push_back(what);
  }
  std::string dir_, path_;
  std::mutex mu_;
  std::vector<std::string> events_;
};

TEST_F(DeviceLockTest, SharedHoldersOverlap) {
  sg::DeviceLock a(path_, false);
  std::atomic<bool> got{false};
  std::thread t([&] {
    sg::DeviceLock b(path_, false);
    got = true;
  });
  t.join();  // would hang if shared holders excluded each other
  EXPECT_TRUE(got);
}

TEST_F(DeviceLockTest, WaitingExclusiveGoesBeforeLaterSharedRequests) {
  auto reader = std::make_unique<sg::DeviceLock>(path_, false);  // a correctness case in progress
  std::thread writer([&] {
    sg::DeviceLock w(path_, true);
    note("timing starts");
    std::this_thread::sleep_for(50ms);
    note("timing ends");
  });
  std::this_thread::sleep_for(100ms);  // the writer is now waiting for the reader
  std::thread late_reader([&] {
    sg::DeviceLock r(path_, false);
    note("late case runs");
  });
  std::this_thread::sleep_for(100ms);
  {
    std::lock_guard<std::mutex> g(mu_);
    EXPECT_TRUE(events_.empty()) << "nothing may start while the first case holds the GPU and a timing waits";
  }
  reader.reset();  // the first case ends
  writer.join();
  late_reader.join();
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_[0], "timing starts");
  EXPECT_EQ(events_[1], "timing ends");
  EXPECT_EQ(events_[2], "late case runs");
}

TEST_F(DeviceLockTest, EmptyPathLocksNothingAndBadPathSaysWhich) {
  sg::DeviceLock a("", true);
  sg::DeviceLock b("", true);  // would deadlock if it locked
  try {
    sg::DeviceLock bad(dir_ + "/missing/folder/gpu.lock", false);
    FAIL() << "no error for a lock in a folder that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/folder/gpu.lock"), std::string::npos) << e.what();
  }
}

}  // namespace
