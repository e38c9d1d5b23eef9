// Fuzzing the judge's readers of what a runner sends (issue 35, item 3): the
// reply protocol (proto/protocol.cpp), the session's exchange around it
// (services/runner_session.cpp) and the timed-output files
// (measure/timed_samples.cpp). A few thousand seeded inputs per reader and the
// named adversarial cases: truncation at every byte, a writer that dribbles,
// interleaved replies, huge lengths, every kind of file in the output's place.
// No reader may crash, hang or throw; each loop runs under kBoundS, a
// complexity guard (reader_fuzz.h). reader_fuzz_text_test.cpp fuzzes the text readers.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "words/timing_report.h"
#include "measure/timed_samples.h"
#include "proto/protocol.h"
#include "proto/seeded_digest.h"
#include "proto/seeded_inputs.h"
#include "reader_fuzz.h"
#include "services/runner_session.h"
#include "words/case_report.h"

namespace fs = std::filesystem;
using sg::proto::Reply;
using sg::proto::ReplyHeader;
using sg::proto::ReplyStatus;
using namespace sg_fuzz;

namespace {

std::string header_bytes(const ReplyHeader& h) { return std::string(reinterpret_cast<const char*>(&h), sizeof h); }

// A reply on the wire as the protocol lays it out: header, message, race report, C.
std::string wire(const ReplyHeader& h, const std::string& message, const std::string& race,
                 const std::vector<float>& c) {
  return header_bytes(h) + message + race + std::string(reinterpret_cast<const char*>(c.data()), c.size() * 4);
}

struct ReadBack {
  bool ok = false;
  Reply r;
  std::string error;
};

// read_reply over a pipe that already holds `bytes`; its write end stays open
// (a runner alive and silent) when `keep_open`, else it is closed (a runner gone).
ReadBack read_bytes(const std::string& bytes, int m, int n, bool expect_c, double timeout_s, bool keep_open = false) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  EXPECT_TRUE(sg::proto::write_all(fds[1], bytes.data(), bytes.size()));
  if (!keep_open) close(fds[1]);
  ReadBack b;
  b.ok = sg::proto::read_reply(fds[0], b.r, m, n, timeout_s, b.error, expect_c);
  close(fds[0]);
  if (keep_open) close(fds[1]);
  return b;
}

// What an accepted reply holds: the expected shape, a known status, finite
// figures, bounded printable texts, C whole where expected.
void expect_sound(const ReadBack& b, int m, int n, bool expect_c) {
  if (!b.ok) {
    EXPECT_FALSE(b.error.empty());
    return;
  }
  const ReplyHeader& h = b.r.header;
  EXPECT_TRUE(h.magic == sg::proto::kMagic && h.m == m && h.n == n);
  EXPECT_TRUE(h.status >= ReplyStatus::Ok && h.status <= ReplyStatus::LaunchRefused);
  EXPECT_TRUE(h.launch.fault <= sg::proto::FaultKind::ThreadFault && h.launch.fault_shared <= 1);
  EXPECT_TRUE(std::isfinite(h.launch_event_ms) && std::isfinite(h.global_loads) &&
              std::isfinite(h.checked_launch_wall_ms));
  EXPECT_TRUE(b.r.message.size() == h.message_len && h.message_len <= 65536);
  EXPECT_TRUE(b.r.block_race.size() == h.block_race_len && h.block_race_len <= 65536);
  for (const std::string* s : {&b.r.message, &b.r.block_race})
    for (char ch : *s) EXPECT_TRUE(ch == '\n' || ch == '\t' || (ch >= 0x20 && ch < 0x7F)) << int(ch);
  EXPECT_EQ(b.r.c.size(), h.status == ReplyStatus::Ok && expect_c ? std::size_t(m) * n : 0u);
}

struct Sent {
  ReplyHeader h;
  std::string message, race;
  std::vector<float> c;
  std::string bytes() const { return wire(h, message, race, c); }
};

// A well-formed reply at m x n: random status, figures, texts and C (NaN, Inf and -0 among its values).
Sent random_reply(std::mt19937& g, int m, int n) {
  Sent s;
  s.h.status = static_cast<ReplyStatus>(1 + g() % 6);
  s.h.nonce = (std::uint64_t{g()} << 32) | g();
  s.h.m = m;
  s.h.n = n;
  s.h.launch_event_ms = g() % 1000 * 0.01 - 1;
  s.h.global_loads = g() % 2 ? -0.0 : 1e300;
  s.h.launch.block_x = g() % 2048;
  s.h.launch.grid_y = g();
  s.h.launch.fault = static_cast<sg::proto::FaultKind>(g() % 4);
  if (s.h.launch.fault == sg::proto::FaultKind::OutOfBounds) {
    s.h.launch.fault_shared = g() % 2;
    s.h.launch.fault_elements = (std::uint64_t{g()} << 32) | g();
  }
  for (unsigned i = g() % 40; i > 0; --i) s.message += static_cast<char>(g());
  for (unsigned i = g() % 40; i > 0; --i) s.race += static_cast<char>(g());
  s.h.message_len = static_cast<std::uint32_t>(s.message.size());
  s.h.block_race_len = static_cast<std::uint32_t>(s.race.size());
  const float odd[] = {NAN, INFINITY, -0.0f, 1e-45f, 3.4e38f};
  if (s.h.status == ReplyStatus::Ok)
    for (int i = 0; i < m * n; ++i) s.c.push_back(g() % 4 ? static_cast<float>(g() % 1000) : odd[g() % 5]);
  return s;
}

TEST(ReaderFuzz, ProtocolRejectsOrSoundlyReadsMutatedReplies) {
  std::mt19937 g(35001);
  const double odd_figures[] = {NAN, -NAN, INFINITY, -INFINITY};
  const auto t0 = Clock::now();
  for (int it = 0; it < 4000; ++it) {
    const int m = static_cast<int>(g() % 5), n = static_cast<int>(g() % 5);
    const Sent s = random_reply(g, m, n);
    std::string bytes = s.bytes();
    const bool expect_c = g() % 4 != 0;
    const unsigned kind = g() % 12;
    ReplyHeader h = s.h;
    switch (kind) {
      case 0: break;  // intact
      case 1: for (unsigned f = 1 + g() % 4; f > 0; --f) bytes[g() % bytes.size()] ^= char(1 + g() % 255); break;
      case 2: bytes.resize(g() % bytes.size()); break;  // cut anywhere
      case 3: bytes = fuzz_text(g, {std::string(4, '\0'), header_bytes(h).substr(0, 4)}, 60); break;
      case 4: (g() % 2 ? h.message_len : h.block_race_len) = 65537 + g() % 0xFFFEFFFE; break;
      case 5: h.magic = g() | 1u; if (h.magic == sg::proto::kMagic) h.magic ^= 2; break;
      case 6: h.m = m + 1 + int(g() % 1000); break;  // another shape
      case 7: bytes += fuzz_text(g, {"1MGS"}, 20); break;  // trailing bytes
      case 8: bytes.assign(g() % 200, '\0'); break;
      case 9: h.status = static_cast<ReplyStatus>(7 + g() % 1000); break;
      case 10: (g() % 3 == 0 ? h.launch_event_ms : g() % 2 ? h.global_loads : h.checked_launch_wall_ms) =
                   odd_figures[g() % 4]; break;
      case 11:  // facts no runner sends: an unknown fault kind, or an allocation without an access outside it
        if (g() % 2) {
          h.launch.fault = static_cast<sg::proto::FaultKind>(4 + g() % 1000);
        } else {
          h.launch.fault = sg::proto::FaultKind::ThreadFault;
          h.launch.fault_elements = 1 + g() % 1000;
        }
        break;
    }
    if (kind >= 4 && kind != 7 && kind != 8) bytes.replace(0, sizeof h, header_bytes(h));
    const ReadBack b = read_bytes(bytes, m, n, expect_c, 5);
    expect_sound(b, m, n, expect_c);
    if (kind == 0 || kind == 7) {
      ASSERT_TRUE(b.ok) << "an intact reply refused: " << b.error;
      EXPECT_TRUE(b.r.header.nonce == s.h.nonce && b.r.message.size() == s.message.size());
      if (expect_c && !s.c.empty()) {
        EXPECT_EQ(std::memcmp(b.r.c.data(), s.c.data(), s.c.size() * 4), 0);
      }
    }
    // Cut before its end (C counts only where it is expected), or refused outright.
    const std::size_t needed = s.bytes().size() - (expect_c ? 0 : s.c.size() * 4);
    if ((kind == 2 && bytes.size() < needed) || (kind >= 4 && kind <= 6) || kind == 8 || kind >= 9) {
      EXPECT_FALSE(b.ok) << "kind " << kind;
    }
  }
  EXPECT_LT(since(t0), kBoundS);
}

TEST(ReaderFuzz, ProtocolReplyCutAtEveryByte) {
  std::mt19937 g(35002);
  Sent s = random_reply(g, 3, 2);
  s.h.status = ReplyStatus::Ok;
  s.message = "msg\x01\xff";
  s.race = "race";
  s.h.message_len = 5;
  s.h.block_race_len = 4;
  s.c.assign(6, 1.5f);
  const std::string bytes = s.bytes();
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    const ReadBack b = read_bytes(bytes.substr(0, cut), 3, 2, true, 5);
    EXPECT_FALSE(b.ok) << cut;
    EXPECT_NE(b.error.find(cut == 0 ? "no reply" : "ended early"), std::string::npos) << cut << ": " << b.error;
  }
  EXPECT_TRUE(read_bytes(bytes, 3, 2, true, 5).ok);
  // The runner alive but silent after a part: the deadline ends the read.
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, sizeof(ReplyHeader) - 1, sizeof(ReplyHeader) + 2,
                          bytes.size() - 1}) {
    const auto t0 = Clock::now();
    const ReadBack b = read_bytes(bytes.substr(0, cut), 3, 2, true, 0.05, true);
    EXPECT_FALSE(b.ok);
    EXPECT_NE(b.error.find("timed out"), std::string::npos) << b.error;
    EXPECT_LT(since(t0), 2.0);
  }
}

// A writer that sends `bytes` one at a time, `gap_ms` apart, until done or stopped.
struct Dribbler {
  int fds[2] = {-1, -1};
  std::atomic<bool> stop{false};
  std::thread t;
  Dribbler(const std::string& bytes, int gap_ms) {
    EXPECT_EQ(pipe(fds), 0);
    t = std::thread([this, bytes, gap_ms] {
      for (std::size_t i = 0; i < bytes.size() && !stop; ++i) {
        sg::proto::write_all(fds[1], &bytes[i], 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
      }
    });
  }
  ~Dribbler() {
    stop = true;
    t.join();
    close(fds[0]);
    close(fds[1]);
  }
};

TEST(ReaderFuzz, ProtocolDribblingWriterIsBoundedByTheWholeDeadline) {
  std::mt19937 g(35003);
  Sent s = random_reply(g, 4, 4);
  s.h.status = ReplyStatus::Ok;
  s.c.assign(16, 2.0f);
  {
    Dribbler d(s.bytes(), 1);
    Reply r;
    std::string error;
    EXPECT_TRUE(sg::proto::read_reply(d.fds[0], r, 4, 4, 20, error)) << error;
  }
  Dribbler d(s.bytes(), 20);  // 20 ms a byte: each read is quick, the whole is slow
  const auto t0 = Clock::now();
  Reply r;
  std::string error;
  EXPECT_FALSE(sg::proto::read_reply(d.fds[0], r, 4, 4, 0.3, error));
  EXPECT_NE(error.find("timed out"), std::string::npos) << error;
  EXPECT_LT(since(t0), 1.5) << "the deadline must bound the whole reply, not each byte";
  const auto t1 = Clock::now();
  std::vector<char> sink(4096);
  EXPECT_FALSE(sg::proto::read_all(d.fds[0], sink.data(), sink.size(), 0.2));
  EXPECT_LT(since(t1), 1.5);
}

TEST(ReaderFuzz, ProtocolInterleavedHalvesOfTwoReplies) {
  std::mt19937 g(35004);
  for (int it = 0; it < 1500; ++it) {
    const Sent a = random_reply(g, 2, 3), b = random_reply(g, 2, 3);
    const std::string x = a.bytes(), y = b.bytes();
    const std::size_t i = g() % (x.size() + 1), j = g() % (y.size() + 1);
    const std::string mixed = g() % 2 ? x.substr(0, i) + y.substr(0, j) + x.substr(i) + y.substr(j)
                                      : y.substr(0, j) + x.substr(0, i) + y.substr(j) + x.substr(i);
    const ReadBack first = read_bytes(mixed, 2, 3, true, 5);
    expect_sound(first, 2, 3, true);
    if (first.ok && i == 0 && j == y.size()) {
      EXPECT_EQ(first.r.header.nonce, b.h.nonce);
    }
  }
}

// ---- the session's exchange, with a stand-in runner whose reply is crafted ----

struct Crafted {
  std::string reply;    // the bytes sent back
  bool splice = false;  // the request's nonce replaces the reply's bytes 8..15
  int linger_s = 0;     // the runner then lives on this long
  double timeout_s = 5;
};

sg::CaseOutcome exchange_with(const fs::path& dir, const Crafted& c) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "reply.bin", std::ios::binary) << c.reply;
  std::ofstream(dir / "runner.sh")
      << "head -c 56 <&3 > req.bin; head -c 32 <&3 > /dev/null\n"
      << (c.splice ? "{ head -c 8 reply.bin; tail -c +41 req.bin | head -c 8; tail -c +17 reply.bin; } >&4\n"
                   : "cat reply.bin >&4\n")
      << "exec sleep " << c.linger_s << "\n";
  sg::RunnerConfig rc;
  rc.argv = {"/bin/sh", (dir / "runner.sh").string()};
  rc.env = {"PATH=/usr/bin:/bin"};
  rc.scratch_dir = rc.log_dir = dir.string();
  rc.drop_privileges = false;
  rc.pid_namespace = false;
  sg::RunnerSession session(rc);
  const std::vector<float> a(4, 1.0f), b(4, 1.0f);
  return session.run(2, 2, 2, a, b, c.timeout_s);
}

TEST(ReaderFuzz, RunnerSessionNamesEveryHostileReply) {
  const fs::path dir = fs::temp_directory_path() / ("sg-fuzz-session-" + std::to_string(::getpid()));
  using K = sg::CaseOutcome::Kind;
  std::mt19937 g(35005);
  ReplyHeader ok;
  ok.m = ok.n = 2;
  const std::vector<float> c = {NAN, INFINITY, -0.0f, 1.0f};
  ReplyHeader huge = ok, texty = ok, nan_time = ok;
  huge.message_len = 0xFFFFFFFFu;
  texty.message_len = 6;
  nan_time.launch_event_ms = NAN;
  std::string noise;
  for (int i = 0; i < 200; ++i) noise += static_cast<char>(g());
  const struct {
    const char* what;
    Crafted crafted;
    K expect;
  } cases[] = {
      {"an Ok reply (NaN and Inf in C)", {wire(ok, "", "", c), true}, K::Ok},
      {"control bytes in the message", {wire(texty, std::string("\x1b[2J\0\xff", 6), "", c), true}, K::Ok},
      {"a NaN event time", {wire(nan_time, "", "", c), true}, K::ProtocolError},
      {"another request's nonce", {wire(ok, "", "", c), false}, K::ProtocolError},
      {"a 4 GiB message", {wire(huge, "", "", {}), true}, K::ProtocolError},
      {"200 random bytes", {noise, false}, K::ProtocolError},
      {"half a header, then the end", {header_bytes(ok).substr(0, 40), false}, K::Crashed},
      {"C cut short, then the end", {wire(ok, "", "", c).substr(0, sizeof(ReplyHeader) + 7), true}, K::Crashed},
      {"nothing, then the end", {"", false}, K::Crashed},
      {"nothing, alive", {"", false, 30, 0.5}, K::TimedOut},
  };
  for (const auto& k : cases) {
    const auto t0 = Clock::now();
    const sg::CaseOutcome out = exchange_with(dir, k.crafted);
    EXPECT_EQ(out.kind, k.expect) << k.what << ": " << sg::runner_failure(out);
    EXPECT_TRUE(is_clean(sg::runner_failure(out))) << k.what;
    EXPECT_LT(since(t0), kBoundS) << k.what;
    if (out.kind == K::Ok) {
      EXPECT_EQ(out.reply.c.size(), 4u);
      for (char ch : out.reply.message) EXPECT_TRUE(ch >= 0x20 && ch < 0x7F) << k.what;
    }
  }
  fs::remove_all(dir);
}

// A CudaError reply's facts, and not its message, reach the case's words: the
// session keeps them when it ends the runner, and the verdict and the first
// hint (a block of one row) come from them (words/case_report.cpp).
TEST(ReaderFuzz, RunnerSessionKeepsTheFactsOfAFailedReply) {
  const fs::path dir = fs::temp_directory_path() / ("sg-fuzz-facts-" + std::to_string(::getpid()));
  ReplyHeader h;
  h.m = h.n = 2;
  h.status = ReplyStatus::CudaError;
  const std::string message = "cudaDeviceSynchronize() failed: cudaErrorIllegalAddress (an illegal memory access was "
                              "encountered)";
  h.message_len = static_cast<std::uint32_t>(message.size());
  h.launch.block_x = 256;
  h.launch.block_y = 1;
  h.launch.grid_x = 4;
  h.launch.grid_y = 1;
  h.launch.fault = sg::proto::FaultKind::IllegalAddress;
  const sg::CaseOutcome out = exchange_with(dir, {wire(h, message, "", {}), true});
  fs::remove_all(dir);
  ASSERT_EQ(out.kind, sg::CaseOutcome::Kind::CudaError) << sg::runner_failure(out);
  EXPECT_EQ(out.failure, sg::CaseOutcome::Failure::CudaError);
  EXPECT_EQ(out.message, message) << "the runner's message, kept as data";
  EXPECT_EQ(sg::runner_failure(out), "CUDA error: " + message);
  EXPECT_EQ(out.facts.block_x, 256u);
  EXPECT_EQ(out.facts.fault, sg::proto::FaultKind::IllegalAddress);
  sg::TestResult t;
  sg::record_runner_failure(t, out);
  EXPECT_EQ(t.verdict, "CUDA error: " + message + " (blocks of 256x1 threads, grid 4x1)");
  ASSERT_GE(t.diagnoses.size(), 2u);
  EXPECT_EQ(t.diagnoses[0].id, "block.one_row") << t.diagnoses[0].text;
  EXPECT_EQ(t.diagnoses[1].id, "memory.illegal_address") << t.diagnoses[1].text;
}

// ---- timed-output files ----

// The output file of the sample of `seed` in `dir`, read and checked as the judge does.
sg::TimingEvidence judge_output(const fs::path& dir, std::uint64_t seed, const ReplyHeader& committed) {
  sg::Case c;
  c.m = c.k = c.n = 8;
  std::vector<sg::TimedOutput> outputs(1);
  outputs[0].seed = seed;
  outputs[0].written = true;
  outputs[0].committed = committed;
  sg::read_output_files(dir.string(), c, outputs);
  sg::TimingEvidence e;
  sg::check_student_outputs(c, outputs, e);
  return e;
}

// C = A B at 8 x 8 x 8 on the seeded inputs of `seed`, as an honest runner writes it.
std::vector<float> honest_output(std::uint64_t seed) {
  namespace sd = sg::seeded;
  std::vector<float> c(64);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      double s = 0;
      for (int l = 0; l < 8; ++l)
        s += double(sd::value(sd::stream_key(seed, sd::kStreamA), i * 8 + l)) *
             sd::value(sd::stream_key(seed, sd::kStreamB), l * 8 + j);
      c[i * 8 + j] = static_cast<float>(s);
    }
  return c;
}

ReplyHeader committed_to(const std::vector<float>& c) {
  ReplyHeader h;
  const sg::seeded::Digest d = sg::seeded::host_digest(c.data(), c.size());
  h.digest_a = d.a;
  h.digest_b = d.b;
  return h;
}

TEST(ReaderFuzz, TimedOutputFilesOfEveryKindEarnNothing) {
  const fs::path dir = fs::temp_directory_path() / ("sg-fuzz-timed-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::mt19937 g(35011);
  const std::uint64_t seed = 0x5eed;
  const fs::path at = dir / sg::proto::seeded_output_name(seed);
  // A new file each time (rewriting one in place costs a disk flush on ext4).
  auto put = [&](const std::string& bytes) {
    fs::remove_all(at);
    std::ofstream(at, std::ios::binary) << bytes;
  };
  auto as_bytes = [](const std::vector<float>& c) { return std::string(reinterpret_cast<const char*>(c.data()), 256); };
  const std::vector<float> honest = honest_output(seed);
  put(as_bytes(honest));
  ASSERT_EQ(judge_output(dir, seed, committed_to(honest)).wrong_outputs, 0) << "the honest output must pass";
  std::vector<float> poisoned = honest;
  poisoned[9] = NAN;
  int writer = -1;
  const std::vector<std::pair<std::string, std::function<void()>>> kinds = {
      {"missing", [] {}},
      {"a FIFO", [&] { mkfifo(at.c_str(), 0600); }},
      {"a FIFO held open", [&] { mkfifo(at.c_str(), 0600), writer = open(at.c_str(), O_RDWR); }},
      {"a link to the right bytes",
       [&] { put(as_bytes(honest)), fs::rename(at, dir / "t"), fs::create_symlink(dir / "t", at); }},
      {"a link to a device", [&] { fs::create_symlink("/dev/zero", at); }},
      {"a directory", [&] { fs::create_directory(at); }},
      {"a device (where mknod is allowed)", [&] { mknod(at.c_str(), S_IFCHR | 0600, makedev(1, 5)); }},
      {"a socket", [&] {
         const int s = socket(AF_UNIX, SOCK_STREAM, 0);
         sockaddr_un a{};
         a.sun_family = AF_UNIX;
         std::strncpy(a.sun_path, at.c_str(), sizeof a.sun_path - 1);
         EXPECT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
         close(s);
       }},
      {"empty", [&] { put(""); }},
      {"short", [&] { put(as_bytes(honest).substr(0, 255)); }},
      {"long", [&] { put(as_bytes(honest) + "x"); }},
      {"NaN under a matching digest", [&] { put(as_bytes(poisoned)); }},
  };
  for (const auto& [what, make] : kinds) {
    fs::remove_all(at);
    make();
    const auto t0 = Clock::now();
    const bool nan = what.rfind("NaN", 0) == 0;
    const sg::TimingEvidence e = judge_output(dir, seed, committed_to(nan ? poisoned : honest));
    EXPECT_EQ(e.wrong_outputs, 1) << what;
    EXPECT_TRUE(is_clean(sg::output_fault_text(e.first_wrong_output))) << what;
    EXPECT_LT(since(t0), 5.0) << what;
    if (writer >= 0) close(writer), writer = -1;
  }
  // Files of random sizes and bytes; at the right size, under a digest that
  // matches them or not (each digest costs its 65536 lanes: fewer inputs here).
  const auto t1 = Clock::now();
  for (int it = 0; it < 1000; ++it) {
    // Zeros, NaN and Inf among the bytes.
    std::string bytes =
        fuzz_text(g, {std::string(4, '\0'), std::string("\0\0\xc0\x7f", 4), std::string("\0\0\x80\x7f", 4)}, 90);
    if (g() % 2) bytes.resize(256);
    put(bytes);
    std::vector<float> c(bytes.size() / 4);
    std::memcpy(c.data(), bytes.data(), c.size() * 4);
    const ReplyHeader committed = bytes.size() != 256 ? ReplyHeader{} : committed_to(g() % 2 ? c : honest);
    EXPECT_EQ(judge_output(dir, seed, committed).wrong_outputs, 1);
  }
  EXPECT_LT(since(t1), kBoundS);
  fs::remove_all(dir);
}

}  // namespace
