// The runner <-> judge wire format: round trips through real pipes, and
// rejection of the streams a broken or hostile runner could send.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "proto/protocol.h"

namespace {

using sg::proto::Reply;
using sg::proto::ReplyHeader;
using sg::proto::ReplyStatus;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A pipe whose ends close themselves.
struct Pipe {
  int read_end = -1, write_end = -1;
  Pipe() {
    int fds[2];
    if (pipe(fds) == 0) {
      read_end = fds[0];
      write_end = fds[1];
    }
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  void close_read() {
    if (read_end >= 0) close(read_end);
    read_end = -1;
  }
  void close_write() {
    if (write_end >= 0) close(write_end);
    write_end = -1;
  }
};

Reply sample_reply(int m, int n) {
  Reply r;
  r.header.status = ReplyStatus::Ok;
  r.header.nonce = 0x0123456789abcdefULL;
  r.header.m = m;
  r.header.n = n;
  r.header.checked_launch_wall_ms = 1.25;
  r.header.checked_launch_sms = 16;
  r.header.digest_a = 0x1122334455667788ULL;
  r.header.digest_b = 0x99aabbccddeeff00ULL;
  r.message = "fine";
  r.block_race = "blocks (0,0) and (0,1) both wrote C[1][2] without an atomic";
  r.header.global_loads = 4194304.5;
  r.header.kernel_launches = 2;
  r.header.racing_stores = 7;
  for (int i = 0; i < m * n; ++i) r.c.push_back(0.5f * static_cast<float>(i) - 3.0f);
  return r;
}

// Writes `r` from another thread (a reply may not fit in the pipe buffer)
// and reads it back.
bool round_trip(const Reply& r, Reply& back, int expect_m, int expect_n, std::string& error) {
  Pipe p;
  bool written = false;
  std::thread writer([&] {
    written = sg::proto::write_reply(p.write_end, r);
    p.close_write();
  });
  const bool ok = sg::proto::read_reply(p.read_end, back, expect_m, expect_n, 10.0, error);
  p.close_read();  // unblocks the writer if the reader gave up early
  writer.join();
  EXPECT_TRUE(written || !ok);
  return ok;
}

// Sends raw bytes (a hand-made, possibly hostile, stream) and reads a reply.
bool read_raw(const std::string& bytes, int expect_m, int expect_n, std::string& error) {
  Pipe p;
  std::thread writer([&] {
    sg::proto::write_all(p.write_end, bytes.data(), bytes.size());
    p.close_write();
  });
  Reply r;
  const bool ok = sg::proto::read_reply(p.read_end, r, expect_m, expect_n, 10.0, error);
  p.close_read();
  writer.join();
  return ok;
}

std::string header_bytes(const ReplyHeader& h) {
  return std::string(reinterpret_cast<const char*>(&h), sizeof h);
}

ReplyHeader valid_header(int m, int n) {
  ReplyHeader h;
  h.m = m;
  h.n = n;
  return h;
}

TEST(Protocol, RoundTripsAnOkReply) {
  const Reply r = sample_reply(3, 5);
  Reply back;
  std::string error;
  ASSERT_TRUE(round_trip(r, back, 3, 5, error)) << error;
  EXPECT_EQ(back.header.magic, sg::proto::kMagic);
  EXPECT_EQ(back.header.status, ReplyStatus::Ok);
  EXPECT_EQ(back.header.nonce, r.header.nonce);
  EXPECT_EQ(back.header.message_len, 4u);
  EXPECT_EQ(back.header.checked_launch_wall_ms, 1.25);
  EXPECT_EQ(back.header.checked_launch_sms, 16u);
  EXPECT_EQ(back.header.digest_a, r.header.digest_a);
  EXPECT_EQ(back.header.digest_b, r.header.digest_b);
  EXPECT_EQ(back.message, "fine");
  // The CPU layer's counts and its race report between blocks.
  EXPECT_EQ(back.block_race, r.block_race);
  EXPECT_EQ(back.header.block_race_len, r.block_race.size());
  EXPECT_EQ(back.header.global_loads, 4194304.5);
  EXPECT_EQ(back.header.kernel_launches, 2u);
  EXPECT_EQ(back.header.racing_stores, 7u);
  EXPECT_EQ(back.c, r.c);
}

// A failed case's launch and fault travel as facts, not as words.
TEST(Protocol, RoundTripsTheFactsOfAFailedLaunch) {
  Reply r = sample_reply(3, 5);
  r.header.status = ReplyStatus::CudaError;
  r.c.clear();
  r.header.launch.block_x = 256;
  r.header.launch.block_y = 1;
  r.header.launch.grid_x = 64;
  r.header.launch.grid_y = 2;
  r.header.launch.fault = sg::proto::FaultKind::OutOfBounds;
  r.header.launch.fault_shared = 1;
  r.header.launch.fault_elements = 256;
  Reply back;
  std::string error;
  ASSERT_TRUE(round_trip(r, back, 3, 5, error)) << error;
  const sg::proto::LaunchFacts& f = back.header.launch;
  EXPECT_EQ(f.block_x, 256u);
  EXPECT_EQ(f.block_y, 1u);
  EXPECT_EQ(f.grid_x, 64u);
  EXPECT_EQ(f.grid_y, 2u);
  EXPECT_EQ(f.fault, sg::proto::FaultKind::OutOfBounds);
  EXPECT_EQ(f.fault_shared, 1u);
  EXPECT_EQ(f.fault_elements, 256u);
}

// Facts this build cannot mean are a garbled reply: an unknown fault kind, a
// shared flag that is no flag, an allocation without an access outside it.
TEST(Protocol, RejectsFactsNoRunnerSends) {
  std::string error;
  ReplyHeader kind = valid_header(3, 5);
  kind.launch.fault = static_cast<sg::proto::FaultKind>(9);
  EXPECT_FALSE(read_raw(header_bytes(kind), 3, 5, error));
  EXPECT_NE(error.find("facts no runner sends (fault kind 9, shared 0, elements 0)"), std::string::npos) << error;
  ReplyHeader flag = valid_header(3, 5);
  flag.launch.fault = sg::proto::FaultKind::OutOfBounds;
  flag.launch.fault_shared = 2;
  EXPECT_FALSE(read_raw(header_bytes(flag), 3, 5, error));
  EXPECT_NE(error.find("facts no runner sends"), std::string::npos) << error;
  for (const sg::proto::FaultKind k : {sg::proto::FaultKind::None, sg::proto::FaultKind::IllegalAddress,
                                       sg::proto::FaultKind::ThreadFault}) {
    ReplyHeader stray = valid_header(3, 5);
    stray.launch.fault = k;
    stray.launch.fault_elements = 16;
    EXPECT_FALSE(read_raw(header_bytes(stray), 3, 5, error)) << static_cast<int>(k);
    EXPECT_NE(error.find("facts no runner sends"), std::string::npos) << error;
  }
}

TEST(Protocol, SeededRequestKeepsItsFieldsOnTheWire) {
  // The judge writes the request as raw bytes; the runner reads it back the same way.
  sg::proto::RunCaseRequest q;
  q.type = sg::proto::RequestType::TimeSeeded;
  q.m = 4096;
  q.k = 2048;
  q.n = 1024;
  q.launch = sg::proto::Launch::BasicSgemm;
  q.seed = 0xfedcba9876543210ULL;
  q.slot = 13;
  q.nonce = 77;
  Pipe p;
  ASSERT_TRUE(sg::proto::write_all(p.write_end, &q, sizeof q));
  sg::proto::RunCaseRequest back;
  ASSERT_TRUE(sg::proto::read_all(p.read_end, &back, sizeof back));
  EXPECT_EQ(back.magic, sg::proto::kMagic);
  EXPECT_EQ(back.type, sg::proto::RequestType::TimeSeeded);
  EXPECT_EQ(back.m, 4096);
  EXPECT_EQ(back.k, 2048);
  EXPECT_EQ(back.n, 1024);
  EXPECT_EQ(back.launch, sg::proto::Launch::BasicSgemm);
  EXPECT_EQ(back.seed, 0xfedcba9876543210ULL);
  EXPECT_EQ(back.slot, 13);
  EXPECT_EQ(back.nonce, 77u);
  // Distinct request kinds: a runner that mixes them up answers the wrong question.
  EXPECT_NE(static_cast<std::uint32_t>(sg::proto::RequestType::TimeSeeded),
            static_cast<std::uint32_t>(sg::proto::RequestType::SeededOutput));
  EXPECT_EQ(sizeof(sg::proto::RunCaseRequest), 56u);
}

TEST(Protocol, LargeReplyCrossesASmallPipe) {
  // 1 MiB of C through a 64 KiB pipe: many short reads and writes.
  const Reply r = sample_reply(512, 512);
  Reply back;
  std::string error;
  ASSERT_TRUE(round_trip(r, back, 512, 512, error)) << error;
  EXPECT_EQ(back.c, r.c);
}

TEST(Protocol, ErrorReplyCarriesNoResultAndAPrintableMessage) {
  Reply r = sample_reply(3, 5);
  r.header.status = ReplyStatus::CudaError;
  const char raw[] = "cudaMalloc: out of memory\x01\x1b[2J\xff";
  r.message.assign(raw, sizeof raw - 1);
  Reply back;
  std::string error;
  ASSERT_TRUE(round_trip(r, back, 3, 5, error)) << error;
  EXPECT_EQ(back.header.status, ReplyStatus::CudaError);
  EXPECT_TRUE(back.c.empty());
  EXPECT_EQ(back.message, "cudaMalloc: out of memory??[2J?");
}

TEST(Protocol, OverlongMessageIsCutByTheWriter) {
  Reply r = sample_reply(1, 1);
  r.message = std::string(100000, 'm');
  Reply back;
  std::string error;
  ASSERT_TRUE(round_trip(r, back, 1, 1, error)) << error;
  EXPECT_EQ(back.message, std::string(64 * 1024, 'm'));
  EXPECT_EQ(back.c, r.c);
}

TEST(Protocol, WriterRefusesInconsistentReplies) {
  Pipe p;
  Reply r = sample_reply(2, 2);
  r.c.pop_back();
  EXPECT_FALSE(sg::proto::write_reply(p.write_end, r));
  r = sample_reply(2, 2);
  r.header.m = -1;
  EXPECT_FALSE(sg::proto::write_reply(p.write_end, r));
}

TEST(Protocol, TimedReplyCarriesTheDigestAndNoResult) {
  // A reply to TimeSeeded: the digest in the header, no C.
  Reply r = sample_reply(4, 4);
  r.c.clear();
  Reply back;
  std::string error;
  {
    Pipe p;
    std::thread writer([&] {
      EXPECT_TRUE(sg::proto::write_reply(p.write_end, r));
      p.close_write();
    });
    ASSERT_TRUE(sg::proto::read_reply(p.read_end, back, 4, 4, 10.0, error, false)) << error;
    writer.join();
  }
  EXPECT_TRUE(back.c.empty());
  EXPECT_EQ(back.header.digest_a, r.header.digest_a);
  EXPECT_EQ(back.header.digest_b, r.header.digest_b);
  // A reader that expects C misses it: an error, not a crash.
  Pipe p;
  std::thread writer([&] {
    sg::proto::write_reply(p.write_end, r);
    p.close_write();
  });
  EXPECT_FALSE(sg::proto::read_reply(p.read_end, back, 4, 4, 10.0, error, true));
  p.close_read();
  writer.join();
  EXPECT_FALSE(error.empty());
}

TEST(Protocol, RejectsBadMagic) {
  ReplyHeader h = valid_header(3, 5);
  h.magic = 0xdeadbeef;
  std::string error;
  EXPECT_FALSE(read_raw(header_bytes(h), 3, 5, error));
  EXPECT_NE(error.find("magic"), std::string::npos) << error;
  EXPECT_NE(error.find("deadbeef"), std::string::npos) << error;
}

TEST(Protocol, RejectsUnknownStatus) {
  ReplyHeader h = valid_header(3, 5);
  h.status = static_cast<ReplyStatus>(99);
  std::string error;
  EXPECT_FALSE(read_raw(header_bytes(h), 3, 5, error));
  EXPECT_NE(error.find("status 99"), std::string::npos) << error;
}

TEST(Protocol, RejectsWrongShape) {
  std::string error;
  EXPECT_FALSE(read_raw(header_bytes(valid_header(5, 3)), 3, 5, error));
  EXPECT_NE(error.find("5 x 3"), std::string::npos) << error;
  EXPECT_NE(error.find("expected 3 x 5"), std::string::npos) << error;
}

TEST(Protocol, RejectsOversizedMessageWithoutAllocatingIt) {
  ReplyHeader h = valid_header(3, 5);
  h.message_len = 0xffffffffu;
  std::string error;
  const auto start = Clock::now();
  EXPECT_FALSE(read_raw(header_bytes(h), 3, 5, error));
  EXPECT_LT(seconds_since(start), 1.0);
  EXPECT_NE(error.find("4294967295"), std::string::npos) << error;
  EXPECT_NE(error.find("exceeds"), std::string::npos) << error;

  h.message_len = 64 * 1024 + 1;
  EXPECT_FALSE(read_raw(header_bytes(h), 3, 5, error));
  EXPECT_NE(error.find("exceeds"), std::string::npos) << error;
}

TEST(Protocol, ReportsAReplyThatEndsEarly) {
  std::string error;
  EXPECT_FALSE(read_raw("", 3, 5, error));
  EXPECT_NE(error.find("no reply"), std::string::npos) << error;

  EXPECT_FALSE(read_raw(header_bytes(valid_header(3, 5)).substr(0, 20), 3, 5, error));
  EXPECT_NE(error.find("20 of " + std::to_string(sizeof(sg::proto::ReplyHeader)) + " bytes of the header"), std::string::npos) << error;

  // A valid header and message, then only 7 of the 15 floats of C.
  ReplyHeader h = valid_header(3, 5);
  h.message_len = 2;
  const std::string partial = header_bytes(h) + "ok" + std::string(7 * sizeof(float), '\0');
  EXPECT_FALSE(read_raw(partial, 3, 5, error));
  EXPECT_NE(error.find("ended early"), std::string::npos) << error;
  EXPECT_NE(error.find("28 of 60 bytes of C"), std::string::npos) << error;
}

TEST(Protocol, BoundedReadGivesUpOnAStalledRunner) {
  // The runner sends half a header and then neither writes nor closes.
  Pipe p;
  const std::string half = header_bytes(valid_header(3, 5)).substr(0, 10);
  ASSERT_TRUE(sg::proto::write_all(p.write_end, half.data(), half.size()));
  Reply r;
  std::string error;
  const auto start = Clock::now();
  EXPECT_FALSE(sg::proto::read_reply(p.read_end, r, 3, 5, 0.3, error));
  const double took = seconds_since(start);
  EXPECT_GE(took, 0.3);
  EXPECT_LT(took, 2.0);
  EXPECT_NE(error.find("timed out"), std::string::npos) << error;
  // The descriptor is back in blocking mode afterwards.
  EXPECT_EQ(fcntl(p.read_end, F_GETFL) & O_NONBLOCK, 0);
}

TEST(Protocol, BoundedWriteGivesUpWhenNobodyReads) {
  Pipe p;
  const std::vector<char> data(4 << 20, 'a');  // far more than a pipe holds
  const auto start = Clock::now();
  EXPECT_FALSE(sg::proto::write_all(p.write_end, data.data(), data.size(), 0.3));
  const double took = seconds_since(start);
  EXPECT_GE(took, 0.3);
  EXPECT_LT(took, 2.0);
  EXPECT_EQ(fcntl(p.write_end, F_GETFL) & O_NONBLOCK, 0);
}

TEST(Protocol, WriteToADeadReaderFailsWithoutKillingUs) {
  Pipe p;
  p.close_read();
  const char byte = 'x';
  // Without SIGPIPE handling this would end the test process.
  EXPECT_FALSE(sg::proto::write_all(p.write_end, &byte, 1));
  EXPECT_FALSE(sg::proto::write_all(p.write_end, &byte, 1, 1.0));
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0) << "a SIGPIPE was left pending";
}

TEST(Protocol, ReadAllHandlesShortReadsAndEof) {
  Pipe p;
  std::thread writer([&] {
    for (char c = 'a'; c <= 'j'; ++c) {
      sg::proto::write_all(p.write_end, &c, 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    p.close_write();
  });
  char buf[10];
  ASSERT_TRUE(sg::proto::read_all(p.read_end, buf, sizeof buf));
  EXPECT_EQ(std::string(buf, sizeof buf), "abcdefghij");
  writer.join();
  EXPECT_FALSE(sg::proto::read_all(p.read_end, buf, 1));  // end of file
}

}  // namespace
