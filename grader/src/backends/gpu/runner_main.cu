// The untrusted runner: linked with one student's object, it runs the cases
// the judge sends over fd 3 and sends raw data back over fd 4 (proto/protocol.h).
// It decides nothing and times nothing: no comparison with an oracle, no
// score, no report, and the judge's own clock times its timed samples.
//
// The same source, built with -DSG_BASELINE_RUNNER and linked with the
// reference kernels only (never with student code), is the grader's baseline
// runner: its basicSgemm is reference/kernel.cu, and it can also launch the
// naive kernel (proto Launch::Naive).
//
// It takes no argument: checked, timed, sanitizer and ncu runs start it
// alike, and what it is asked comes through the protocol after its start-up
// (a Partition request for runners that replace a crashed one, Selftest for
// the tools' launches, runner_selftest.h), so that a submission cannot tell
// a tool's run from the others by its command line.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/gpu/device_pool.h"
#include "backends/gpu/runner_cuda.h"
#include "backends/gpu/runner_selftest.h"
#include "backends/gpu/sm_partition.h"
#include "proto/protocol.h"
#include "proto/seeded_inputs.h"

// The submission's entry point (in the baseline runner: the reference's).
void basicSgemm(int m, int n, int k, const float* A, const float* B, float* C);
#ifdef SG_BASELINE_RUNNER
// reference/naive.cu compiled with renaming -D flags (Makefile).
void ref_naive_sgemm(int m, int n, int k, const float* A, const float* B, float* C);
#endif

#ifndef SG_BASELINE_RUNNER
// The first launch of a checked call, for the report of a case that faults:
// a 256x1 block for a kernel written for 16x16 blocks is a common bug that an
// illegal address alone does not show (the CPU backend names the block in its
// own fault message). Every kernel<<<grid, block>>> calls
// __cudaPushCallConfiguration with the shape first (nvcc 13's launch stubs;
// the launch itself is __cudaLaunchKernel, which carries no shape), and the
// judge links the student's runner with
// -Xlinker --wrap=__cudaPushCallConfiguration, so those calls come here
// first. A process-wide note: an interposed call has no other way to reach
// the runner. Without --wrap (other links of this object) nothing calls it,
// and the weak __real_ stays unresolved.
struct LaunchNote {
  bool armed = false, seen = false;
  dim3 grid, block;
};
LaunchNote g_launch_note;

extern "C" __attribute__((weak)) unsigned __real___cudaPushCallConfiguration(dim3 grid, dim3 block,
                                                                            size_t shared_bytes,
                                                                            struct CUstream_st* stream);
extern "C" unsigned __wrap___cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes,
                                                       struct CUstream_st* stream) {
  if (g_launch_note.armed && !g_launch_note.seen) {
    g_launch_note.seen = true;
    g_launch_note.grid = grid;
    g_launch_note.block = block;
  }
  return __real___cudaPushCallConfiguration(grid, block, shared_bytes, stream);
}
#endif

namespace {

using Clock = std::chrono::steady_clock;
using SgemmFn = void (*)(int, int, int, const float*, const float*, float*);

// basicSgemm, noting its first launch's shape where the link allows (above).
void checked_basic_sgemm(const sg::proto::RunCaseRequest& q, const float* a, const float* b, float* c) {
#ifndef SG_BASELINE_RUNNER
  g_launch_note = LaunchNote{true, false, {}, {}};
#endif
  basicSgemm(q.m, q.n, q.k, a, b, c);
#ifndef SG_BASELINE_RUNNER
  g_launch_note.armed = false;
#endif
}

// The first launch's block shape and grid as the reply's facts (the judge's
// words/case_report.cpp says them); left 0 when no launch was seen.
void note_launch_shape(sg::proto::LaunchFacts& facts) {
#ifndef SG_BASELINE_RUNNER
  if (!g_launch_note.seen) return;
  const LaunchNote& n = g_launch_note;
  facts.block_x = n.block.x;
  facts.block_y = n.block.y;
  facts.grid_x = n.grid.x;
  facts.grid_y = n.grid.y;
#else
  (void)facts;
#endif
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Checked launches start with shared memory zeroed, as the CPU backend's do:
// a tile the kernel never loads then reads zeros on both backends (C comes out
// exactly zero where only that tile's products were missing, which
// compare/diagnosis.cpp names), not what an earlier kernel left there, which
// no hypothesis can predict and which may differ between the two runs of a
// failing case (read as a race). One block per SM with every byte of shared
// memory a block may have; twice the SM count so that a block landing on a
// busy SM is no gap. Timed launches are not preceded by it.
__global__ void zero_shared_memory(unsigned words) {
  extern __shared__ unsigned shared_words[];
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) shared_words[i] = 0;
}

bool zero_shared(CudaFailure& fail) {
  int device = 0, bytes = 0, sms = 0;
  if (!RUNNER_CHECK(cudaGetDevice(&device)) ||
      !RUNNER_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device)) ||
      !RUNNER_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) ||
      !RUNNER_CHECK(cudaFuncSetAttribute(zero_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)))
    return false;
  zero_shared_memory<<<2 * sms, 1024, static_cast<std::size_t>(bytes)>>>(static_cast<unsigned>(bytes) / 4);
  return RUNNER_CHECK(cudaGetLastError());
}

// The checked launch: upload A and B, poison C, zero shared memory, call
// basicSgemm once, copy C back.
bool run_case(const sg::proto::RunCaseRequest& q, const std::vector<float>& a, const std::vector<float>& b,
              const sg::gpu::SmPartition& partition, sg::proto::Reply& r, CudaFailure& fail) {
  const std::size_t mn = static_cast<std::size_t>(q.m) * q.n;
  DeviceBuffers d;
  if (!RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d.a), sizeof(float) * a.size())) ||
      !RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d.b), sizeof(float) * b.size())) ||
      !RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d.c), sizeof(float) * mn)))
    return false;
  if (!RUNNER_CHECK(cudaMemcpy(d.a, a.data(), sizeof(float) * a.size(), cudaMemcpyHostToDevice)) ||
      !RUNNER_CHECK(cudaMemcpy(d.b, b.data(), sizeof(float) * b.size(), cudaMemcpyHostToDevice)) ||
      !RUNNER_CHECK(cudaMemset(d.c, 0xFF, sizeof(float) * mn)) || !zero_shared(fail) ||
      !RUNNER_CHECK(cudaDeviceSynchronize()))
    return false;

  const auto t0 = Clock::now();
  checked_basic_sgemm(q, d.a, d.b, d.c);
  note_launch_shape(r.header.launch);
  if (!launch_ok(fail) || !RUNNER_CHECK(cudaDeviceSynchronize())) return false;
  r.header.checked_launch_wall_ms = ms_since(t0);
  r.header.checked_launch_sms = partition.sms();
  r.c.resize(mn);
  return RUNNER_CHECK(cudaMemcpy(r.c.data(), d.c, sizeof(float) * mn, cudaMemcpyDeviceToHost));
}

// ---- timed samples (TimeSeeded): every step here is the same in the
// student's runner and the baseline runner, and the judge subtracts what they
// cost (a sample with Launch::None) from both sides.

__global__ void generate(float* out, std::uint64_t count, std::uint64_t key) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    out[i] = sg::seeded::value(key, i);
}

constexpr unsigned kDigestThreads = 256;
// Lane chains of the digest (proto/seeded_inputs.h, digest_lane), with four
// loads in flight per thread: the same steps in the same order.
__global__ void digest_lanes(const std::uint32_t* c, std::uint64_t count, std::uint64_t* lane_a,
                             std::uint64_t* lane_b) {
  constexpr std::uint64_t L = sg::seeded::kDigestLanes;
  const std::uint32_t lane = blockIdx.x * blockDim.x + threadIdx.x;
  if (lane >= L) return;
  std::uint64_t a = sg::seeded::splitmix64(lane + 1);
  std::uint64_t b = sg::seeded::splitmix64(a);
  std::uint64_t i = lane;
  for (; i + 3 * L < count; i += 4 * L) {
    const std::uint32_t w0 = c[i], w1 = c[i + L], w2 = c[i + 2 * L], w3 = c[i + 3 * L];
    sg::seeded::digest_step(a, b, w0, i);
    sg::seeded::digest_step(a, b, w1, i + L);
    sg::seeded::digest_step(a, b, w2, i + 2 * L);
    sg::seeded::digest_step(a, b, w3, i + 3 * L);
  }
  for (; i < count; i += L) sg::seeded::digest_step(a, b, c[i], i);
  lane_a[lane] = a;
  lane_b[lane] = b;
}

// The two folds and the finish, one thread per first-level fold.
__global__ void digest_combine(const std::uint64_t* lane_a, const std::uint64_t* lane_b, std::uint64_t* out) {
  using namespace sg::seeded;
  __shared__ std::uint64_t fold_a[kDigestFolds], fold_b[kDigestFolds];
  __shared__ std::uint64_t fold2_a[kDigestFolds2], fold2_b[kDigestFolds2];
  const unsigned p = threadIdx.x;
  digest_fold(lane_a, lane_b, p * kDigestFold, kDigestFold, 1, fold_a[p], fold_b[p]);
  __syncthreads();
  if (p < kDigestFolds2) digest_fold(fold_a, fold_b, p * kDigestFold2, kDigestFold2, 2, fold2_a[p], fold2_b[p]);
  __syncthreads();
  if (p != 0) return;
  const Digest d = digest_finish(fold2_a, fold2_b);
  out[0] = d.a;
  out[1] = d.b;
}

// Buffers of the timed samples, kept for the life of the runner (the first
// sample of a shape, a warm-up, allocates them), and the L2 flush buffer.
struct SeededState {
  int m = 0, k = 0, n = 0;
  std::unique_ptr<DeviceBuffers> d;
  std::uint64_t* lanes = nullptr;  // 2 * kDigestLanes, then the 2 words of the digest
  void* flush = nullptr;           // larger than L2, written first in each sample
  std::size_t flush_bytes = 0;
  cudaEvent_t before = nullptr, after = nullptr;  // around each sample's launch
  // One output buffer per slot (allocated when first used), so that samples
  // run back to back and their outputs are sent afterwards.
  float* out[sg::proto::kMaxSeededSlots] = {};
  bool sampled[sg::proto::kMaxSeededSlots] = {};
  std::uint64_t seed[sg::proto::kMaxSeededSlots] = {};  // each slot's sample
  // Pinned host memory that outputs pass through on their way to their file.
  float* staging = nullptr;
  std::size_t staging_bytes = 0;
  void free_outputs() {
    for (int i = 0; i < sg::proto::kMaxSeededSlots; ++i) {
      sg::gpu::device_free(out[i]);
      out[i] = nullptr;
      sampled[i] = false;
    }
  }
  ~SeededState() {
    free_outputs();
    cudaFree(lanes);
    cudaFree(flush);
    if (staging) cudaFreeHost(staging);
    if (before) cudaEventDestroy(before);
    if (after) cudaEventDestroy(after);
  }
};

// SeededOutput: the slot's C to its file in the working directory
// (proto::seeded_output_name), through pinned memory: a fast copy off the
// device, then one write into the page cache.
bool write_seeded_output(SeededState& s, const sg::proto::RunCaseRequest& q, CudaFailure& fail) {
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(q.m) * q.n;
  if (s.staging_bytes < bytes) {
    if (s.staging) cudaFreeHost(s.staging);
    s.staging = nullptr;
    s.staging_bytes = 0;
    if (!RUNNER_CHECK(cudaMallocHost(reinterpret_cast<void**>(&s.staging), bytes))) return false;
    s.staging_bytes = bytes;
  }
  if (!RUNNER_CHECK(cudaMemcpy(s.staging, s.out[q.slot], bytes, cudaMemcpyDeviceToHost))) return false;
  const std::string name = sg::proto::seeded_output_name(q.seed);
  const int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const bool written = fd >= 0 && sg::proto::write_all(fd, s.staging, bytes);
  const int err = errno;
  if (fd >= 0) close(fd);
  if (written) return true;
  fail.status = sg::proto::ReplyStatus::BadRequest;
  fail.message = "could not write " + name + " (" + std::strerror(err) + ")";
  return false;
}

bool prepare_seeded(SeededState& s, const sg::proto::RunCaseRequest& q, CudaFailure& fail) {
  if (!s.flush) {
    int device = 0, l2 = 0;
    if (!RUNNER_CHECK(cudaGetDevice(&device)) ||
        !RUNNER_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device)))
      return false;
    s.flush_bytes = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), 8u << 20);
    if (!RUNNER_CHECK(cudaMalloc(&s.flush, s.flush_bytes)) ||
        !RUNNER_CHECK(cudaMalloc(reinterpret_cast<void**>(&s.lanes),
                                 sizeof(std::uint64_t) * (2 * sg::seeded::kDigestLanes + 2))) ||
        !RUNNER_CHECK(cudaEventCreate(&s.before)) || !RUNNER_CHECK(cudaEventCreate(&s.after)))
      return false;
  }
  const std::size_t out_bytes = sizeof(float) * static_cast<std::size_t>(q.m) * q.n;
  if (s.d && s.m == q.m && s.k == q.k && s.n == q.n)
    return s.out[q.slot] || RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&s.out[q.slot]), out_bytes));
  s.d.reset();
  s.free_outputs();
  auto d = std::make_unique<DeviceBuffers>();
  const std::size_t mk = static_cast<std::size_t>(q.m) * q.k, kn = static_cast<std::size_t>(q.k) * q.n;
  if (!RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d->a), sizeof(float) * mk)) ||
      !RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d->b), sizeof(float) * kn)))
    return false;
  s.d = std::move(d);
  s.m = q.m;
  s.k = q.k;
  s.n = q.n;
  return RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&s.out[q.slot]), out_bytes));
}

// One timed sample: flush L2, make A and B from the seed, poison C, launch,
// synchronise the whole device (work the call left running is finished
// too), then the digest of C.
bool time_seeded(const sg::proto::RunCaseRequest& q, SeededState& s, sg::proto::Reply& r, CudaFailure& fail) {
  if (!prepare_seeded(s, q, fail)) return false;
  DeviceBuffers& d = *s.d;
  float* c = s.out[q.slot];
  const std::uint64_t mk = static_cast<std::uint64_t>(q.m) * q.k, kn = static_cast<std::uint64_t>(q.k) * q.n,
                      mn = static_cast<std::uint64_t>(q.m) * q.n;
  s.sampled[q.slot] = false;
  if (!RUNNER_CHECK(cudaMemsetAsync(s.flush, 0x5A, s.flush_bytes))) return false;
  generate<<<1024, 256>>>(d.a, mk, sg::seeded::stream_key(q.seed, sg::seeded::kStreamA));
  generate<<<1024, 256>>>(d.b, kn, sg::seeded::stream_key(q.seed, sg::seeded::kStreamB));
  if (!RUNNER_CHECK(cudaGetLastError()) || !RUNNER_CHECK(cudaMemsetAsync(c, 0xFF, sizeof(float) * mn)) ||
      !RUNNER_CHECK(cudaEventRecord(s.before)))
    return false;
  switch (q.launch) {
    case sg::proto::Launch::None: break;
    case sg::proto::Launch::BasicSgemm: basicSgemm(q.m, q.n, q.k, d.a, d.b, c); break;
    case sg::proto::Launch::Naive:
#ifdef SG_BASELINE_RUNNER
      ref_naive_sgemm(q.m, q.n, q.k, d.a, d.b, c);
#endif
      break;
  }
  float event_ms = 0;
  if (!launch_ok(fail) || !RUNNER_CHECK(cudaEventRecord(s.after)) || !RUNNER_CHECK(cudaDeviceSynchronize()) ||
      !RUNNER_CHECK(cudaEventElapsedTime(&event_ms, s.before, s.after)))
    return false;
  r.header.launch_event_ms = event_ms;
  std::uint64_t* lane_a = s.lanes;
  std::uint64_t* lane_b = s.lanes + sg::seeded::kDigestLanes;
  std::uint64_t* digest = s.lanes + 2 * sg::seeded::kDigestLanes;
  digest_lanes<<<sg::seeded::kDigestLanes / kDigestThreads, kDigestThreads>>>(
      reinterpret_cast<const std::uint32_t*>(c), mn, lane_a, lane_b);
  digest_combine<<<1, sg::seeded::kDigestFolds>>>(lane_a, lane_b, digest);
  std::uint64_t words[2] = {0, 0};
  if (!RUNNER_CHECK(cudaGetLastError()) ||
      !RUNNER_CHECK(cudaMemcpy(words, digest, sizeof words, cudaMemcpyDeviceToHost)))
    return false;
  r.header.digest_a = words[0];
  r.header.digest_b = words[1];
  s.sampled[q.slot] = true;
  s.seed[q.slot] = q.seed;
  return true;
}

bool sane(const sg::proto::RunCaseRequest& q) {
  using sg::proto::Launch;
  using sg::proto::RequestType;
  if (q.m <= 0 || q.k <= 0 || q.n <= 0 || q.slot < 0 || q.slot >= sg::proto::kMaxSeededSlots) return false;
  switch (q.type) {
    case RequestType::RunCase:
    case RequestType::SeededOutput: return q.launch == Launch::None;
    case RequestType::TimeSeeded:
#ifdef SG_BASELINE_RUNNER
      return q.launch == Launch::None || q.launch == Launch::BasicSgemm || q.launch == Launch::Naive;
#else
      return q.launch == Launch::None || q.launch == Launch::BasicSgemm;
#endif
    case RequestType::Selftest:
    case RequestType::Partition: return q.launch == Launch::None;
    case RequestType::Quit:
    case RequestType::Ping: return true;
  }
  return false;
}

// Makes the partition (or the whole GPU) current; a no-op without a partition.
bool switch_to(const sg::gpu::SmPartition& partition, bool on_partition, CudaFailure& fail) {
  if (on_partition ? partition.enter() : partition.leave()) return true;
  fail.status = sg::proto::ReplyStatus::CudaError;
  fail.message = on_partition ? "cuCtxSetCurrent (the partition) failed" : "cuCtxSetCurrent (the whole GPU) failed";
  return false;
}

// Partition: the checked launches from now on run on a partition of q.m SMs
// and the timed ones on the whole GPU (backends/gpu/sm_partition.h says
// why); without one they all run on the whole GPU, which the reply says.
void make_partition(const sg::proto::RunCaseRequest& q, sg::gpu::SmPartition& partition, sg::proto::Reply& r) {
  std::string why;
  if (partition.sms() == 0 && !partition.create(static_cast<unsigned>(q.m), why))
    r.message = "checked launches on the whole GPU: no partition of " + std::to_string(q.m) + " SMs (" + why + ")";
}

// After a timed request the next one (the take's next sample, or the one
// after a probe) is watched for without sleeping, for a while: a runner woken
// from sleep adds its wake-up's jitter to the judge's clock of that request.
constexpr double kNextRequestSpinS = 0.02;
void spin_for_request(double spin_s) {
  const auto t0 = Clock::now();
  while (ms_since(t0) < 1000 * spin_s) {
    pollfd p{sg::proto::kRequestFd, POLLIN, 0};
    if (poll(&p, 1, 0) != 0) return;
  }
}

int serve() {
  sg::gpu::SmPartition partition;
  SeededState seeded;
  bool timed_last = false;
  for (;;) {
    if (timed_last) spin_for_request(kNextRequestSpinS);
    sg::proto::RunCaseRequest q;
    if (!sg::proto::read_all(sg::proto::kRequestFd, &q, sizeof(q))) return 0;  // judge closed the pipe
    if (q.magic != sg::proto::kMagic) return 4;
    if (q.type == sg::proto::RequestType::Quit) return 0;
    sg::proto::Reply r;
    r.header.nonce = q.nonce;
    r.header.m = q.m;
    r.header.n = q.n;
    if (!sane(q)) {
      r.header.status = sg::proto::ReplyStatus::BadRequest;
      r.message = "malformed request";
      sg::proto::write_reply(sg::proto::kReplyFd, r);
      return 4;
    }
    if (q.type == sg::proto::RequestType::Ping) {
      r.header.status = sg::proto::ReplyStatus::Ok;
      if (!sg::proto::write_reply(sg::proto::kReplyFd, r)) return 4;
      continue;
    }
    if (q.type == sg::proto::RequestType::Partition) {
      make_partition(q, partition, r);
      r.header.status = sg::proto::ReplyStatus::Ok;
      if (!sg::proto::write_reply(sg::proto::kReplyFd, r)) return 4;
      continue;
    }
    CudaFailure fail;
    bool ok = false;
    if (q.type == sg::proto::RequestType::Selftest) {
      fail.status = sg::proto::ReplyStatus::LaunchError;
      ok = sg::gpu::selftest_launch(q, fail.message);
    } else if (q.type == sg::proto::RequestType::RunCase) {
      std::vector<float> a(static_cast<std::size_t>(q.m) * q.k), b(static_cast<std::size_t>(q.k) * q.n);
      if (!sg::proto::read_all(sg::proto::kRequestFd, a.data(), sizeof(float) * a.size()) ||
          !sg::proto::read_all(sg::proto::kRequestFd, b.data(), sizeof(float) * b.size()))
        return 4;
      ok = run_case(q, a, b, partition, r, fail);
    } else if (q.type == sg::proto::RequestType::SeededOutput) {
      if (!seeded.sampled[q.slot] || seeded.seed[q.slot] != q.seed || seeded.m != q.m || seeded.k != q.k ||
          seeded.n != q.n) {
        r.header.status = sg::proto::ReplyStatus::BadRequest;
        r.message = "no timed sample of this size and seed to return";
        if (!sg::proto::write_reply(sg::proto::kReplyFd, r)) return 4;
        continue;
      }
      ok = write_seeded_output(seeded, q, fail);
    } else {
      // Timed on the whole GPU once everything on the partition has finished,
      // then back to the partition (both no-ops without one).
      ok = RUNNER_CHECK(cudaDeviceSynchronize()) && switch_to(partition, false, fail) &&
           time_seeded(q, seeded, r, fail);
      CudaFailure back;
      if (!switch_to(partition, true, back) && ok) {
        ok = false;
        fail = back;
      }
    }
    if (ok) {
      r.header.status = sg::proto::ReplyStatus::Ok;
    } else {
      r.header.status = fail.status;
      r.message = fail.message;
      if (fail.error == cudaErrorIllegalAddress) r.header.launch.fault = sg::proto::FaultKind::IllegalAddress;
      r.c.clear();
      r.header.digest_a = r.header.digest_b = 0;
    }
    if (!sg::proto::write_reply(sg::proto::kReplyFd, r)) return 4;
    timed_last = q.type == sg::proto::RequestType::TimeSeeded;
    // After a sticky error the context is unusable: end, the judge starts a fresh runner.
    if (r.header.status == sg::proto::ReplyStatus::CudaError || r.header.status == sg::proto::ReplyStatus::LaunchError)
      return 5;
  }
}

}  // namespace

int main(int argc, char**) {
  if (argc != 1) {
    std::fprintf(stderr, "usage: runner   (serves the judge on fds 3 and 4; it takes no argument)\n");
    return 2;
  }
  // Create the CUDA context now, before the judge's first request: the judge
  // starts the runner of the timed cases ahead of its exclusive hold on a
  // shared GPU, so that this (a few hundred ms) overlaps the wait. An error
  // here shows again on the first real call, which reports it.
  (void)cudaFree(nullptr);
  (void)sg::gpu::keep_freed_memory();  // a failure only costs speed
  return serve();
}
