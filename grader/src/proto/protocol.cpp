// Wire format of the runner <-> judge protocol. The judge reads what a
// process hosting student code wrote, so every length on the wire is checked
// against what the judge expects before anything is allocated, and no read
// or write can kill the judge (SIGPIPE) or, in the bounded variants, hang it.
#include "proto/protocol.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace sg::proto {

namespace {

// Both ends are built from this header on one machine, so the header goes
// over the wire as its raw bytes; pin the layout so a change is noticed.
static_assert(sizeof(ReplyHeader) == 120 && std::is_trivially_copyable_v<ReplyHeader>,
              "ReplyHeader layout is part of the wire format");
static_assert(sizeof(RunCaseRequest) == 56 && std::is_trivially_copyable_v<RunCaseRequest>,
              "RunCaseRequest layout is part of the wire format");

constexpr std::uint32_t kMaxMessageLen = 64 * 1024;
constexpr std::size_t kMaxChunk = std::size_t{1} << 30;  // keep each read/write well below SSIZE_MAX

using Clock = std::chrono::steady_clock;

// An optional point in time after which an operation gives up.
class Deadline {
 public:
  static Deadline none() { return Deadline(); }
  static Deadline after(double seconds) {
    Deadline d;
    d.bounded_ = true;
    const double s = std::isnan(seconds) ? 0 : std::clamp(seconds, 0.0, 1e7);
    d.at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
    return d;
  }
  bool bounded() const { return bounded_; }
  // Milliseconds for poll(): -1 when unbounded, rounded up so we never spin.
  int poll_ms() const {
    if (!bounded_) return -1;
    const auto left = std::chrono::duration<double, std::milli>(at_ - Clock::now()).count();
    if (left <= 0) return 0;
    return left >= INT_MAX ? INT_MAX : static_cast<int>(std::ceil(left));
  }

 private:
  bool bounded_ = false;
  Clock::time_point at_{};
};

enum class Io { Ok, Closed, Failed, TimedOut };

// Waits for `events` on fd; used after EAGAIN on a non-blocking descriptor.
Io wait_ready(int fd, short events, const Deadline& deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int rc = poll(&p, 1, deadline.poll_ms());
    if (rc > 0) return Io::Ok;  // ready, or POLLHUP/POLLERR which the next call reports
    if (rc == 0) return Io::TimedOut;
    if (errno != EINTR) return Io::Failed;
  }
}

// Puts fd in non-blocking mode for a bounded operation and restores it after,
// so a blocking descriptor cannot stall a write past the deadline.
class NonBlockingFor {
 public:
  NonBlockingFor(int fd, bool wanted) : fd_(fd) {
    if (!wanted) return;
    const int flags = fcntl(fd, F_GETFL);
    if (flags >= 0 && !(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0) saved_ = flags;
  }
  ~NonBlockingFor() {
    if (saved_ >= 0) fcntl(fd_, F_SETFL, saved_);
  }
  NonBlockingFor(const NonBlockingFor&) = delete;
  NonBlockingFor& operator=(const NonBlockingFor&) = delete;

 private:
  int fd_;
  int saved_ = -1;
};

// Writing to a pipe whose reader died raises SIGPIPE, which would kill the
// judge. Block it in this thread while writing, and swallow the one our
// write caused (but not one that was already pending for someone else).
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &saved_);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  void swallow() {
    if (was_pending_) return;
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  ~SigpipeBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_, saved_;
  bool was_pending_ = false;
};

Io write_exact(int fd, const void* data, std::size_t bytes, const Deadline& deadline) {
  SigpipeBlocked no_sigpipe;
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = write(fd, p, std::min(bytes, kMaxChunk));
    if (n > 0) {
      p += n;
      bytes -= static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const Io ready = wait_ready(fd, POLLOUT, deadline);
      if (ready != Io::Ok) return ready;
      continue;
    }
    if (n < 0 && errno == EPIPE) {
      no_sigpipe.swallow();
      return Io::Closed;
    }
    return Io::Failed;
  }
  return Io::Ok;
}

// `got` counts the bytes that did arrive, for telling "nothing" from "part".
Io read_exact(int fd, void* data, std::size_t bytes, const Deadline& deadline, std::size_t& got) {
  char* p = static_cast<char*>(data);
  got = 0;
  while (got < bytes) {
    // With a deadline, wait first: a blocking descriptor would not return.
    if (deadline.bounded()) {
      const Io ready = wait_ready(fd, POLLIN, deadline);
      if (ready != Io::Ok) return ready;
    }
    const ssize_t n = read(fd, p + got, std::min(bytes - got, kMaxChunk));
    if (n > 0) {
      got += static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0) return Io::Closed;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      const Io ready = wait_ready(fd, POLLIN, deadline);
      if (ready != Io::Ok) return ready;
      continue;
    }
    return Io::Failed;
  }
  return Io::Ok;
}

bool valid_status(ReplyStatus s) {
  switch (s) {
    case ReplyStatus::Ok:
    case ReplyStatus::CudaError:
    case ReplyStatus::LaunchError:
    case ReplyStatus::OutOfMemory:
    case ReplyStatus::BadRequest:
    case ReplyStatus::LaunchRefused:
      return true;
  }
  return false;
}

// A fault kind this build knows, and allocation facts only with an access outside an allocation.
bool valid_facts(const LaunchFacts& f) {
  bool known = false;
  switch (f.fault) {
    case FaultKind::None:
    case FaultKind::IllegalAddress:
    case FaultKind::OutOfBounds:
    case FaultKind::ThreadFault:
      known = true;
      break;
  }
  if (!known || f.fault_shared > 1) return false;
  return f.fault == FaultKind::OutOfBounds || (f.fault_shared == 0 && f.fault_elements == 0);
}

// A sentence for a part of the reply that did not arrive whole.
std::string failure_text(Io io, std::size_t got, std::size_t bytes, const char* what) {
  const std::string amount = std::to_string(got) + " of " + std::to_string(bytes) + " bytes";
  switch (io) {
    case Io::Ok: break;
    case Io::Closed: return std::string("the reply ended early (") + amount + " of " + what + "): the runner closed its reply pipe";
    case Io::TimedOut: return std::string("timed out reading ") + what + " of the reply (" + amount + " arrived)";
    case Io::Failed: return std::string("error reading ") + what + " of the reply: " + std::strerror(errno);
  }
  return "";
}

bool read_part(int fd, void* data, std::size_t bytes, const Deadline& deadline, const char* what,
               std::string& error) {
  std::size_t got = 0;
  const Io io = read_exact(fd, data, bytes, deadline, got);
  if (io == Io::Ok) return true;
  error = failure_text(io, got, bytes, what);
  return false;
}

// Messages are ASCII (CUDA error strings); anything else becomes '?', so
// hostile bytes cannot break the reports that quote them.
void make_printable(std::string& s) {
  for (char& ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c >= 0x7F) ch = '?';
  }
}

bool read_reply_until(int fd, Reply& r, std::int32_t expect_m, std::int32_t expect_n, const Deadline& deadline,
                      std::string& error, bool expect_c) {
  error.clear();
  r = Reply{};
  if (expect_m < 0 || expect_n < 0) {
    error = "read_reply: negative expected size";
    return false;
  }
  NonBlockingFor non_blocking(fd, deadline.bounded());
  ReplyHeader h;
  std::size_t got = 0;
  const Io io = read_exact(fd, &h, sizeof h, deadline, got);
  if (io == Io::Closed && got == 0) {
    error = "no reply: the runner closed its reply pipe (it probably died)";
    return false;
  }
  if (io != Io::Ok) {
    error = failure_text(io, got, sizeof h, "the header");
    return false;
  }

  char buf[160];
  if (h.magic != kMagic) {
    std::snprintf(buf, sizeof buf, "garbled reply: magic 0x%08x, expected 0x%08x", h.magic, kMagic);
    error = buf;
    return false;
  }
  if (!valid_status(h.status)) {
    error = "garbled reply: unknown status " + std::to_string(static_cast<std::uint32_t>(h.status));
    return false;
  }
  if (h.m != expect_m || h.n != expect_n) {
    error = "reply is for a " + std::to_string(h.m) + " x " + std::to_string(h.n) + " result, expected " +
            std::to_string(expect_m) + " x " + std::to_string(expect_n);
    return false;
  }
  // The figures are measurements (times, counts): an honest runner never sends
  // NaN or infinity, and the results file cannot carry them back (model/result_codec).
  for (const double figure : {h.checked_launch_wall_ms, h.launch_event_ms, h.global_loads}) {
    if (!std::isfinite(figure)) {
      error = "garbled reply: a figure that is not a finite number (" + std::to_string(figure) + ")";
      return false;
    }
  }
  if (!valid_facts(h.launch)) {
    error = "garbled reply: facts no runner sends (fault kind " +
            std::to_string(static_cast<std::uint32_t>(h.launch.fault)) + ", shared " +
            std::to_string(h.launch.fault_shared) + ", elements " + std::to_string(h.launch.fault_elements) + ")";
    return false;
  }
  if (h.message_len > kMaxMessageLen || h.block_race_len > kMaxMessageLen) {
    error = "reply message of " + std::to_string(std::max(h.message_len, h.block_race_len)) +
            " bytes exceeds the limit of " + std::to_string(kMaxMessageLen);
    return false;
  }

  r.header = h;
  r.message.assign(h.message_len, '\0');
  if (!read_part(fd, r.message.data(), r.message.size(), deadline, "the message", error)) return false;
  make_printable(r.message);
  r.block_race.assign(h.block_race_len, '\0');
  if (!read_part(fd, r.block_race.data(), r.block_race.size(), deadline, "the race report", error)) return false;
  make_printable(r.block_race);
  if (h.status == ReplyStatus::Ok && expect_c) {
    r.c.assign(static_cast<std::size_t>(h.m) * static_cast<std::size_t>(h.n), 0.0f);
    if (!read_part(fd, r.c.data(), r.c.size() * sizeof(float), deadline, "C", error)) return false;
  }
  return true;
}

}  // namespace

bool write_all(int fd, const void* data, std::size_t bytes) {
  return write_exact(fd, data, bytes, Deadline::none()) == Io::Ok;
}

bool read_all(int fd, void* data, std::size_t bytes) {
  std::size_t got = 0;
  return read_exact(fd, data, bytes, Deadline::none(), got) == Io::Ok;
}

bool write_all(int fd, const void* data, std::size_t bytes, double timeout_s) {
  NonBlockingFor non_blocking(fd, true);
  return write_exact(fd, data, bytes, Deadline::after(timeout_s)) == Io::Ok;
}

bool read_all(int fd, void* data, std::size_t bytes, double timeout_s) {
  NonBlockingFor non_blocking(fd, true);
  std::size_t got = 0;
  return read_exact(fd, data, bytes, Deadline::after(timeout_s), got) == Io::Ok;
}

// The header's magic and message_len are taken from the reply's contents (a
// message beyond 64 KiB is cut). C is sent only for status Ok, and then must
// hold exactly m * n values.
std::string seeded_output_name(std::uint64_t seed) {
  char name[48];
  std::snprintf(name, sizeof name, "timed-output-%016llx.f32", static_cast<unsigned long long>(seed));
  return name;
}

bool write_reply(int fd, const Reply& r) {
  ReplyHeader h = r.header;
  if (h.m < 0 || h.n < 0) return false;
  const bool with_c = h.status == ReplyStatus::Ok && !r.c.empty();
  if (with_c && r.c.size() != static_cast<std::size_t>(h.m) * static_cast<std::size_t>(h.n)) return false;
  const std::size_t message_len = std::min<std::size_t>(r.message.size(), kMaxMessageLen);
  const std::size_t race_len = std::min<std::size_t>(r.block_race.size(), kMaxMessageLen);
  h.magic = kMagic;
  h.message_len = static_cast<std::uint32_t>(message_len);
  h.block_race_len = static_cast<std::uint32_t>(race_len);

  const auto put = [fd](const void* data, std::size_t bytes) { return write_all(fd, data, bytes); };
  return put(&h, sizeof h) && put(r.message.data(), message_len) && put(r.block_race.data(), race_len) &&
         (!with_c || put(r.c.data(), r.c.size() * sizeof(float)));
}

bool read_reply(int fd, Reply& r, std::int32_t expect_m, std::int32_t expect_n, std::string& error) {
  return read_reply_until(fd, r, expect_m, expect_n, Deadline::none(), error, true);
}

bool read_reply(int fd, Reply& r, std::int32_t expect_m, std::int32_t expect_n, double timeout_s,
                std::string& error, bool expect_c) {
  return read_reply_until(fd, r, expect_m, expect_n, Deadline::after(timeout_s), error, expect_c);
}

}  // namespace sg::proto
