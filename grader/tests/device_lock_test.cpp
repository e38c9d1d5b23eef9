// The shared-GPU lock of batch grading: shared holders together, an
// exclusive holder alone, a waiting exclusive request ahead of shared
// requests that come after it, and short shared holds running while an
// exclusive request waits for a long one. flock locks belong to open files,
// so threads that each open the lock behave like separate grade processes.
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
using sg::LockMode;

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
  // A timing: an exclusive hold that notes when it starts and ends.
  std::thread timing() {
    return std::thread([this] {
      sg::DeviceLock w(path_, LockMode::Exclusive);
      note("timing starts");
      std::this_thread::sleep_for(50ms);
      note("timing ends");
    });
  }
  std::string dir_, path_;
  std::mutex mu_;
  std::vector<std::string> events_;
};

TEST_F(DeviceLockTest, SharedHoldersOverlap) {
  sg::DeviceLock a(path_, LockMode::Shared);
  std::atomic<bool> got{false};
  std::thread t([&] {
    sg::DeviceLock b(path_, LockMode::SharedLong);
    got = true;
  });
  t.join();  // would hang if shared holders excluded each other
  EXPECT_TRUE(got);
}

TEST_F(DeviceLockTest, WaitingExclusiveGoesBeforeLaterSharedRequests) {
  auto reader = std::make_unique<sg::DeviceLock>(path_, LockMode::Shared);  // a correctness case in progress
  std::thread writer = timing();
  std::this_thread::sleep_for(100ms);  // the writer is now waiting for the reader
  std::thread late_reader([&] {
    sg::DeviceLock r(path_, LockMode::Shared);
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
  sg::DeviceLock a("", LockMode::Exclusive);
  sg::DeviceLock b("", LockMode::Exclusive);  // would deadlock if it locked
  for (const LockMode mode : {LockMode::Shared, LockMode::SharedLong, LockMode::Exclusive})
    try {
      sg::DeviceLock bad(dir_ + "/missing/folder/gpu.lock", mode);
      FAIL() << "no error for a lock in a folder that does not exist";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("missing/folder/gpu.lock"), std::string::npos) << e.what();
    }
}

TEST_F(DeviceLockTest, ShortSharedHoldsRunWhileAnExclusiveRequestWaitsForALongOne) {
  auto sanitizer = std::make_unique<sg::DeviceLock>(path_, LockMode::SharedLong);
  std::thread writer = timing();
  std::this_thread::sleep_for(100ms);  // the writer is now waiting for the sanitizer
  std::thread short_case([&] {
    sg::DeviceLock r(path_, LockMode::Shared);
    note("case runs");
  });
  bool ran = false;  // the short case, while the sanitizer still holds the GPU and the timing waits
  for (int i = 0; i < 100 && !ran; ++i) {
    std::this_thread::sleep_for(10ms);
    std::lock_guard<std::mutex> g(mu_);
    ran = !events_.empty();
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    EXPECT_TRUE(ran) << "a short case waited with the timing for the sanitizer to end";
    if (ran) {
      EXPECT_EQ(events_[0], "case runs") << "the timing started while the sanitizer held the GPU";
    }
  }
  sanitizer.reset();
  writer.join();
  short_case.join();
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_[ran ? 1 : 0], "timing starts");
}

TEST_F(DeviceLockTest, ALongSharedRequestAfterAWaitingExclusiveOneGoesAfterIt) {
  auto sanitizer = std::make_unique<sg::DeviceLock>(path_, LockMode::SharedLong);
  std::thread writer = timing();
  std::this_thread::sleep_for(100ms);  // the writer is now waiting for the first sanitizer
  std::thread second([&] {
    sg::DeviceLock r(path_, LockMode::SharedLong);
    note("second sanitizer runs");
  });
  std::this_thread::sleep_for(100ms);
  {
    std::lock_guard<std::mutex> g(mu_);
    EXPECT_TRUE(events_.empty()) << "a later sanitizer may not pass a timing that waits: it would starve it";
  }
  sanitizer.reset();
  writer.join();
  second.join();
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_[0], "timing starts");
  EXPECT_EQ(events_[1], "timing ends");
  EXPECT_EQ(events_[2], "second sanitizer runs");
}

TEST_F(DeviceLockTest, AnExclusiveHolderKeepsEveryModeOut) {
  auto writer = std::make_unique<sg::DeviceLock>(path_, LockMode::Exclusive);
  std::vector<std::thread> others;
  for (const LockMode mode : {LockMode::Shared, LockMode::SharedLong, LockMode::Exclusive})
    others.emplace_back([&, mode] {
      sg::DeviceLock r(path_, mode);
      note("another runs");
    });
  std::this_thread::sleep_for(150ms);
  {
    std::lock_guard<std::mutex> g(mu_);
    EXPECT_TRUE(events_.empty()) << "nothing may run beside a timing";
  }
  writer.reset();
  for (std::thread& t : others) t.join();
  EXPECT_EQ(events_.size(), 3u);
}

TEST_F(DeviceLockTest, ManyHoldsOfEveryModeAtOnceAllFinish) {
  // Requests of every mode from several "processes" at once, each holding for
  // a moment: no order of arrivals may leave two waiting for each other.
  std::atomic<int> inside_exclusive{0}, inside_any{0}, done{0};
  std::atomic<bool> overlap{false};
  std::vector<std::thread> workers;
  for (int w = 0; w < 6; ++w)
    workers.emplace_back([&, w] {
      for (int i = 0; i < 20; ++i) {
        const LockMode mode = static_cast<LockMode>((w + i) % 3);
        sg::DeviceLock l(path_, mode);
        if (mode == LockMode::Exclusive) {
          const bool another_exclusive = inside_exclusive.fetch_add(1) > 0;
          if (another_exclusive || inside_any.load() > 0) overlap = true;
          std::this_thread::sleep_for(1ms);
          inside_exclusive.fetch_sub(1);
        } else {
          inside_any.fetch_add(1);
          if (inside_exclusive.load() > 0) overlap = true;
          std::this_thread::sleep_for(1ms);
          inside_any.fetch_sub(1);
        }
        done.fetch_add(1);
      }
    });
  for (std::thread& t : workers) t.join();
  EXPECT_EQ(done.load(), 120);
  EXPECT_FALSE(overlap.load()) << "an exclusive hold overlapped another hold";
}

}  // namespace
