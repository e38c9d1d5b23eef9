// How the judge waits for a reply (services/reply_wait.h): a reply that is
// there when the judge looks is taken, however late the judge looked; past
// the limit, more time only while the CPU layer's blocks keep completing.
#include "services/reply_wait.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() { EXPECT_EQ(pipe2(fd, O_CLOEXEC), 0); }
  ~Pipe() {
    close(fd[0]);
    close(fd[1]);
  }
  void write_byte() { ASSERT_EQ(write(fd[1], "r", 1), 1); }
};

// A progress file as the CPU layer keeps it: a count of blocks in its first
// 8 bytes, changed in place (the layer's is a mapped atomic). Rewriting the
// file instead would let the judge read it empty, as no count, mid-write.
struct ProgressFile {
  std::string path;
  int fd = -1;
  explicit ProgressFile(const std::string& name)
      : path((std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()))).string()),
        fd(open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {
    EXPECT_GE(fd, 0) << path;
    set(0);
  }
  ~ProgressFile() {
    close(fd);
    std::filesystem::remove(path);
  }
  void set(std::uint64_t n) const { EXPECT_EQ(pwrite(fd, &n, sizeof n, 0), static_cast<ssize_t>(sizeof n)); }
};

// A runner whose blocks keep completing: the count moves every 5 ms until the end of its scope.
class CompletingBlocks {
 public:
  explicit CompletingBlocks(const ProgressFile& progress)
      : blocks_([this, &progress] {
          for (std::uint64_t n = 1; !stop_; ++n) {
            progress.set(n);
            std::this_thread::sleep_for(5ms);
          }
        }) {}
  ~CompletingBlocks() {
    stop_ = true;
    blocks_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread blocks_;
};

// The judge woke after the limit (a busy machine) and the reply had begun in
// the meantime: it is taken and given the transfer's time, not called a
// timeout. Before, the judge counted blocks first and, seeing none, read the
// begun reply with no time left (an honest naive kernel lost square_1024 so
// in CI, its reply beginning within the judge's wake-up).
TEST(ReplyWait, AReplyThereWhenTheJudgeLooksPastTheLimitIsTaken) {
  Pipe p;
  p.write_byte();
  double budget = 0;
  const ReplyWait w = wait_for_reply(p.fd[0], Clock::now() - 2s, 1.0, "", 8, budget, 0);
  EXPECT_TRUE(w.begun);
  EXPECT_FALSE(w.extended);
  EXPECT_DOUBLE_EQ(w.limit_s, 1.0);
  EXPECT_DOUBLE_EQ(reply_read_seconds(w, 1.0 - 2.0, 10), 10);
}

TEST(ReplyWait, NoReplyAndNoProgressIsATimeoutWithNoTimeToRead) {
  Pipe p;
  double budget = 100;
  const auto t0 = Clock::now();
  const ReplyWait w = wait_for_reply(p.fd[0], t0, 0.05, "", 8, budget, 0);
  EXPECT_FALSE(w.begun);
  EXPECT_FALSE(w.extended);
  EXPECT_GE(std::chrono::duration<double>(Clock::now() - t0).count(), 0.05);
  EXPECT_DOUBLE_EQ(budget, 100);
  EXPECT_DOUBLE_EQ(reply_read_seconds(w, -0.01, 10), 0);
}

// A limit of kSpanS waited out with no reply while the blocks keep completing
// (every 5 ms: each span sees the count move even on a busy machine).
constexpr double kSpanS = 0.2;
ReplyWait wait_while_blocks_complete(double factor, double& budget) {
  Pipe p;
  ProgressFile progress("sg-reply-wait-moving");
  CompletingBlocks blocks(progress);
  return wait_for_reply(p.fd[0], Clock::now(), kSpanS, progress.path, factor, budget, 0);
}

TEST(ReplyWait, BlocksThatKeepCompletingEarnSpansUpToTheFactor) {
  double budget = 100;
  const ReplyWait w = wait_while_blocks_complete(4, budget);
  EXPECT_FALSE(w.begun);
  EXPECT_TRUE(w.extended);
  EXPECT_NEAR(w.limit_s, 4 * kSpanS, 1e-9);  // the factor's cap
  EXPECT_NEAR(budget, 100 - 3 * kSpanS, 1e-9);
}

TEST(ReplyWait, TheGradingsBudgetBoundsTheSpans) {
  double budget = 0.03;
  const ReplyWait w = wait_while_blocks_complete(8, budget);
  EXPECT_TRUE(w.extended);
  EXPECT_NEAR(w.limit_s, kSpanS + 0.03, 1e-9);
  EXPECT_NEAR(budget, 0, 1e-9);
}

TEST(ReplyWait, ACountThatStandsStillEarnsNothing) {
  Pipe p;
  ProgressFile progress("sg-reply-wait-still");
  progress.set(42);
  double budget = 100;
  const ReplyWait w = wait_for_reply(p.fd[0], Clock::now(), 0.05, progress.path, 8, budget, 0);
  EXPECT_FALSE(w.begun);
  EXPECT_FALSE(w.extended);
  EXPECT_DOUBLE_EQ(w.limit_s, 0.05);
  EXPECT_DOUBLE_EQ(budget, 100);
}

// A reply that begins while the judge waits ends the wait at once.
TEST(ReplyWait, AReplyWithinTheLimitEndsTheWait) {
  Pipe p;
  std::thread runner([&] {
    std::this_thread::sleep_for(20ms);
    p.write_byte();
  });
  double budget = 0;
  const auto t0 = Clock::now();
  const ReplyWait w = wait_for_reply(p.fd[0], t0, 5.0, "", 8, budget, 0);
  runner.join();
  EXPECT_TRUE(w.begun);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 4.0);
  EXPECT_DOUBLE_EQ(reply_read_seconds(w, 4.9, 10), 10);
  EXPECT_DOUBLE_EQ(reply_read_seconds(w, 12, 10), 12);
}

TEST(ReplyWait, TheProgressFileIsReadOnlyWhenARegularFile) {
  ProgressFile progress("sg-reply-wait-count");
  progress.set(7);
  EXPECT_EQ(blocks_done(progress.path), 7u);
  EXPECT_EQ(blocks_done(""), 0u);
  EXPECT_EQ(blocks_done("/proc/self"), 0u);  // a directory (through a link, not followed)
  const std::string link = progress.path + ".link";
  std::filesystem::create_symlink(progress.path, link);
  EXPECT_EQ(blocks_done(link), 0u);
  std::filesystem::remove(link);
}

}  // namespace
}  // namespace sg
