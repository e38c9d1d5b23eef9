// The runner <-> judge protocol: a handful of fixed-layout messages over two
// pipes (judge writes requests on the runner's fd 3, reads replies on fd 4).
// The runner (which hosts student code) only ever sends raw data back: the
// output of the checked launch and raw timings. It decides nothing.
// Header-only and free of CUDA so that the judge, the GPU runner and the CPU
// runner all share it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sg::proto {

constexpr std::uint32_t kMagic = 0x53474d31;  // "SGM1"
constexpr int kRequestFd = 3;                 // runner reads requests here
constexpr int kReplyFd = 4;                   // runner writes replies here

enum class RequestType : std::uint32_t { RunCase = 1, Quit = 2 };

// Followed on the wire by A (m*k floats) then B (k*n floats), row-major.
struct RunCaseRequest {
  std::uint32_t magic = kMagic;
  RequestType type = RequestType::RunCase;
  std::int32_t m = 0, k = 0, n = 0;
  std::int32_t samples = 0;   // timed samples per kernel; 0 = correctness only
  std::int32_t warmups = 0;
  std::uint64_t nonce = 0;    // echoed back so a stale or injected reply is noticed
};

enum class ReplyStatus : std::uint32_t {
  Ok = 1,
  CudaError = 2,      // a CUDA call failed; `message` names it (sticky errors end the runner)
  LaunchError = 3,    // basicSgemm's launch failed (cudaGetLastError after it)
  OutOfMemory = 4,    // the case's buffers did not fit on the device
  BadRequest = 5
};

// Followed on the wire by: message (message_len bytes), C of the checked launch
// (m*n floats, only when status == Ok), then `samples` doubles of each series:
// student_ms, reference_ms, naive_ms, wall_ms (host clock around the student sample,
// from before the launch to after the device-wide synchronise), and `samples`
// int64 of timed_mismatch (elements of each timed student launch's output that
// differ bitwise from the checked launch's output).
struct ReplyHeader {
  std::uint32_t magic = kMagic;
  ReplyStatus status = ReplyStatus::Ok;
  std::uint64_t nonce = 0;
  std::int32_t m = 0, n = 0;
  std::int32_t samples = 0;
  std::uint32_t message_len = 0;
  double checked_launch_wall_ms = 0;  // host clock around the first (checked) launch incl. synchronise
};

struct Reply {
  ReplyHeader header;
  std::string message;
  std::vector<float> c;
  std::vector<double> student_ms, reference_ms, naive_ms, wall_ms;
  std::vector<std::int64_t> timed_mismatch;
};

// Blocking helpers over raw fds (retry on EINTR / short I/O). Return false on EOF or error.
bool write_all(int fd, const void* data, std::size_t bytes);
bool read_all(int fd, void* data, std::size_t bytes);

// Serialise / parse a whole reply. read_reply validates magic, sizes against
// the expected m, n and a sane sample count, so a garbled stream is an error, not a crash.
bool write_reply(int fd, const Reply& r);
bool read_reply(int fd, Reply& r, std::int32_t expect_m, std::int32_t expect_n,
                std::int32_t max_samples, std::string& error);

// Deadline-bounded variants for the judge, which must never wait on the runner
// without a limit (a runner that stops reading A and B, or stops half-way
// through a reply, would otherwise hang it). They give up after timeout_s
// seconds in total and return false; read_reply then says "timed out" in `error`.
bool write_all(int fd, const void* data, std::size_t bytes, double timeout_s);
bool read_all(int fd, void* data, std::size_t bytes, double timeout_s);
bool read_reply(int fd, Reply& r, std::int32_t expect_m, std::int32_t expect_n,
                std::int32_t max_samples, double timeout_s, std::string& error);

}  // namespace sg::proto
