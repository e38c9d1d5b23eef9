// The runner <-> judge protocol: a handful of fixed-layout messages over two
// pipes (judge writes requests on the runner's fd 3, reads replies on fd 4).
// The runner (which hosts student code) only ever sends raw data back: the
// output of a launch and its digest. It decides nothing and times nothing.
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
// TimeSeeded: one timed sample, timed by the judge's clock around the whole
//   exchange. The runner flushes L2, makes A and B on the device from `seed`
//   (proto/seeded_inputs.h), poisons C, calls what `launch` names between
//   two CUDA events, synchronises the device and replies with the digest of
//   C, committing to its output before the judge asks for it, and the
//   events' time. No data follows either way.
// SeededOutput: C of a slot's last TimeSeeded (untimed; `seed` repeats that
//   sample's seed), written to the file seeded_output_name(seed) in the
//   runner's working directory, one file per sample; the reply
//   carries no data. The judge reads the file when it likes, also after the
//   runner has ended (the timed reply's digest vouches for it: the judge
//   checks it against the digest and with Freivalds' test,
//   compare/freivalds.h). Outputs of hundreds of MB then cost the exclusive
//   hold a copy into the page cache, not a trip through a pipe.
// Ping: answered at once with an empty Ok reply (m and n repeated): the
//   judge waits for a runner's start-up (its CUDA context) this way before
//   it holds a shared GPU for the runner's first real request.
// Selftest: the launch a tool (compute-sanitizer, ncu) watches: basicSgemm
//   once at m x k x n on inputs made on the host from `seed`, in buffers of
//   their own (plain cudaMalloc, so memcheck sees each one's exact end), C
//   poisoned by a copy rather than a kernel (under ncu every profiled kernel
//   is the submission's). The runner prints "selftest: shape MxKxN" on
//   stderr first; the reply (no data) comes once the launch has completed.
//   The tools start the runner exactly as a checked run does (no argument
//   says which run it is): what it is asked comes through this channel,
//   after its start-up.
// Partition: checked launches from now on run on a partition of m SMs
//   (backends/gpu/sm_partition.h); the reply is Ok, with a message when no
//   partition could be made (the cases then run on the whole GPU). Sent to
//   runners that replace a failed one, as their first request.
enum class RequestType : std::uint32_t {
  RunCase = 1,
  Quit = 2,
  TimeSeeded = 4,
  SeededOutput = 5,
  Ping = 6,
  Selftest = 7,
  Partition = 8
};

// What a TimeSeeded sample launches. Naive exists only in the grader's
// baseline runner (built from the reference kernels, never from student
// code); a student's runner answers BadRequest to it.
enum class Launch : std::int32_t { None = 0, BasicSgemm = 1, Naive = 2 };

constexpr std::int32_t kMaxSeededSlots = 64;  // output buffers of timed samples per runner

struct RunCaseRequest {
  std::uint32_t magic = kMagic;
  RequestType type = RequestType::RunCase;
  std::int32_t m = 0, k = 0, n = 0;
  Launch launch = Launch::None;  // TimeSeeded only
  // TimeSeeded: which output buffer the sample writes; SeededOutput: which
  // sample's output to write. Samples run back to back (nothing between them,
  // which let the GPU idle and clock down); outputs are written and checked afterwards.
  std::int32_t slot = 0;
  std::uint64_t seed = 0;        // TimeSeeded: the sample's inputs; SeededOutput: the sample's;
                                 // Selftest: the inputs';
                                 // RunCase on the CPU backend: the seed of the blocks' turns
  std::uint64_t nonce = 0;       // echoed back so a stale or injected reply is noticed
  // RunCase on the CPU backend: 1 runs each block's threads in ascending
  // order between barriers (the race check's second run), 0 descending.
  std::uint32_t ascending = 0;
  std::uint32_t reserved = 0;
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

// The two requests without a case: a Ping (m, k, n of 1, which the runner's
// size check wants) and a Quit.
inline RunCaseRequest ping_request() {
  RunCaseRequest q;
  q.type = RequestType::Ping;
  q.m = q.k = q.n = 1;
  return q;
}
inline RunCaseRequest quit_request() {
  RunCaseRequest q;
  q.type = RequestType::Quit;
  return q;
}

// What a runner knows of a fault that ended a case (LaunchFacts::fault).
enum class FaultKind : std::uint32_t {
  None = 0,
  // The GPU's illegal address (cudaErrorIllegalAddress): the GPU does not say which access.
  IllegalAddress = 1,
  // The CPU layer: a kernel thread's access outside an allocation, named in the message with
  // the thread and its block's shape; fault_shared and fault_elements describe the allocation.
  OutOfBounds = 2,
  // The CPU layer: another fault of a kernel thread (a wild address, a division by zero, a
  // stack overflow), named in the message with the thread and its block's shape too.
  ThreadFault = 3
};

// The submission's launch and its fault as facts, for the judge's words
// (words/case_report.cpp): the judge never reads them out of a message.
// 0 where the runner does not know.
struct LaunchFacts {
  // Block shape and grid (x, y): on the GPU the first launch of basicSgemm in
  // a RunCase; on the CPU backend the launch whose thread faulted.
  std::uint32_t block_x = 0, block_y = 0, grid_x = 0, grid_y = 0;
  FaultKind fault = FaultKind::None;
  // OutOfBounds only: 1 when the allocation is a __shared__ array the kernel
  // declares (not a launch's dynamic shared memory), and its element count
  // (0 where the CPU layer names no element type: types other than float,
  // double and int, dynamic shared memory, buffers the submission allocates).
  std::uint32_t fault_shared = 0;
  std::uint64_t fault_elements = 0;
};

// Followed on the wire by: message (message_len bytes), block_race
// (block_race_len bytes), then C (m*n floats) in an Ok reply to RunCase. Every figure here is the
// runner's claim: it goes into a report, must match what the judge computes
// itself (the digest), or is bounded by the judge's own clock (the event time).
struct ReplyHeader {
  std::uint32_t magic = kMagic;
  ReplyStatus status = ReplyStatus::Ok;
  std::uint64_t nonce = 0;
  std::int32_t m = 0, n = 0;
  std::uint32_t message_len = 0;
  // SMs the checked launch could use when it ran on a partition of the GPU
  // (a runner started after a crash, see backends/gpu/sm_partition.h); 0: the whole
  // GPU, or the CPU.
  std::uint32_t checked_launch_sms = 0;
  double checked_launch_wall_ms = 0;  // host clock around the first (checked) launch incl. synchronise
  std::uint64_t digest_a = 0, digest_b = 0;  // TimeSeeded: the digest of C
  // TimeSeeded: CUDA events around the launch, in ms (steadier than any host
  // clock; measure/timing.h never lets it fall below the judge's own bound).
  double launch_event_ms = 0;
  // RunCase on the CPU backend, counted by the CPU layer in the runner:
  // global loads of the kernels basicSgemm launched, as warp-level
  // instructions, the launches, and the stores that raced with another
  // block's (block_race names the first). 0 on the GPU, where ncu counts.
  double global_loads = 0;
  std::uint32_t kernel_launches = 0;
  std::uint32_t block_race_len = 0;
  std::uint64_t racing_stores = 0;
  // A RunCase's launch and fault (a CudaError, LaunchError or OutOfMemory reply says what ended
  // the case; an Ok one may carry the launch too).
  LaunchFacts launch;
};

// The file a SeededOutput of the sample of `seed` writes: m*n floats,
// row-major, native byte order, nothing else.
std::string seeded_output_name(std::uint64_t seed);

struct Reply {
  ReplyHeader header;
  std::string message;
  std::string block_race;  // CPU backend: the first race between blocks, e.g. "blocks (3,1) and (3,2) both wrote ..."
  std::vector<float> c;
};

// Blocking helpers over raw fds (retry on EINTR / short I/O). Return false on EOF or error.
bool write_all(int fd, const void* data, std::size_t bytes);
bool read_all(int fd, void* data, std::size_t bytes);

// Serialise / parse a whole reply. read_reply validates magic and sizes
// against the expected m, n, so a garbled stream is an error, not a crash.
// write_reply sends C when the reply is Ok and C is not empty; the reader says
// whether it expects C (an Ok reply to RunCase) or not.
bool write_reply(int fd, const Reply& r);
bool read_reply(int fd, Reply& r, std::int32_t expect_m, std::int32_t expect_n, std::string& error);

// Deadline-bounded variants for the judge, which must never wait on the runner
// without a limit (a runner that stops reading A and B, or stops half-way
// through a reply, would otherwise hang it). They give up after timeout_s
// seconds in total and return false; read_reply then says "timed out" in `error`.
bool write_all(int fd, const void* data, std::size_t bytes, double timeout_s);
bool read_all(int fd, void* data, std::size_t bytes, double timeout_s);
bool read_reply(int fd, Reply& r, std::int32_t expect_m, std::int32_t expect_n, double timeout_s,
                std::string& error, bool expect_c = true);

}  // namespace sg::proto
