// The runner <-> judge protocol: a handful of fixed-layout messages over two
// pipes (judge writes requests on the runner's fd 3, reads replies on fd 4).
// The runner (which hosts student code) only ever sends raw data back: the
// output of the checked launch and raw timings. It decides nothing.
// Free of CUDA (protocol.cpp is linked into the judge, the GPU runner and the
// CPU runner alike).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sg::proto {

constexpr std::uint32_t kMagic = 0x53474d31;  // "SGM1"
constexpr int kRequestFd = 3;                 // runner reads requests here
constexpr int kReplyFd = 4;                   // runner writes replies here

// RunCase: one checked launch on A and B, which follow the request on the
//   wire (A: m*k floats, then B: k*n floats, row-major); the reply carries C.
//   With keep_slot > 0 the runner keeps the case's device buffers (inputs and
//   the checked output) under that slot for a later TimeKept.
// TimeKept: timed launches on the case kept under keep_slot (m, k, n must
//   match it); no data follows, and the reply carries the timings but no C.
//   Splitting the two lets a shared GPU be held exclusively for the timings alone.
enum class RequestType : std::uint32_t { RunCase = 1, Quit = 2, TimeKept = 3 };

constexpr std::int32_t kMaxKeptSlots = 8;

struct RunCaseRequest {
  std::uint32_t magic = kMagic;
  RequestType type = RequestType::RunCase;
  std::int32_t m = 0, k = 0, n = 0;
  std::int32_t samples = 0;   // TimeKept: timed samples per kernel (RunCase: 0)
  std::int32_t warmups = 0;   // TimeKept: untimed launches first
  std::int32_t keep_slot = 0; // 0, or 1..kMaxKeptSlots
  std::uint64_t nonce = 0;    // echoed back so a stale or injected reply is noticed
};

enum class ReplyStatus : std::uint32_t {
  Ok = 1,
  CudaError = 2,      // a CUDA call failed; `message` names it (sticky errors end the runner)
  LaunchError = 3,    // basicSgemm's launch failed (cudaGetLastError after it); the runner ends
  OutOfMemory = 4,    // the case's buffers did not fit on the device
  BadRequest = 5,
  LaunchRefused = 6   // the launch failed but the device still works (a zero-sized grid,
                      // too many threads per block): the runner carries on
};

// Followed on the wire by: message (message_len bytes), C of the checked launch
// (m*n floats, only in an Ok reply to RunCase), then `samples` doubles of student_ms and
// of reference_ms, `naive_samples` (at most `samples`) doubles of naive_ms,
// `samples` doubles of wall_ms (host clock around the student sample, from
// before the launch to after the device-wide synchronise), and `samples` int64
// of timed_mismatch (elements of each timed student launch's output that
// differ bitwise from the checked launch's output).
struct ReplyHeader {
  std::uint32_t magic = kMagic;
  ReplyStatus status = ReplyStatus::Ok;
  std::uint64_t nonce = 0;
  std::int32_t m = 0, n = 0;
  std::int32_t samples = 0;
  std::int32_t naive_samples = 0;  // the naive baseline is timed in fewer rounds
  std::uint32_t message_len = 0;
  // SMs the checked launch could use when it ran on a partition of the GPU
  // (a runner started after a crash, see backends/gpu/sm_partition.h); 0: the whole
  // GPU, or the CPU. The runner's claim, so it only ever goes into a report.
  std::uint32_t checked_launch_sms = 0;
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
// the expected m, n and a sane sample count, so a garbled stream is an error,
// not a crash. write_reply sends C when the reply is Ok and C is not empty;
// the reader says whether it expects C (an Ok reply to RunCase) or not.
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
                std::int32_t max_samples, double timeout_s, std::string& error, bool expect_c = true);

}  // namespace sg::proto
