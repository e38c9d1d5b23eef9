// The untrusted runner: linked with one student's object, it runs the cases
// the judge sends over fd 3 and sends raw data back over fd 4 (proto/protocol.h).
// It decides nothing: no comparison with an oracle, no score, no report.
//
// With --partition-sms N (the judge passes it to runners that replace a
// crashed one) the checked launches run on a partition of N SMs and the
// timed ones on the whole GPU (backends/gpu/sm_partition.h says why).
//
// Also has a one-shot mode for compute-sanitizer and ncu, --selftest
// (runner_selftest.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/gpu/device_pool.h"
#include "backends/gpu/runner_selftest.h"
#include "backends/gpu/sm_partition.h"
#include "proto/protocol.h"

// The submission's entry point and the reference baselines linked beside it
// (reference/kernel.cu and reference/naive.cu compiled with renaming -D flags).
void basicSgemm(int m, int n, int k, const float* A, const float* B, float* C);
void ref_tiled_sgemm(int m, int n, int k, const float* A, const float* B, float* C);
void ref_naive_sgemm(int m, int n, int k, const float* A, const float* B, float* C);

namespace {

using Clock = std::chrono::steady_clock;
using SgemmFn = void (*)(int, int, int, const float*, const float*, float*);

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A failed CUDA call, named, with the error; sticky errors end the runner.
struct CudaFailure {
  sg::proto::ReplyStatus status;
  std::string message;
};

bool check(cudaError_t err, const char* call, CudaFailure& f) {
  if (err == cudaSuccess) return true;
  f.status = (err == cudaErrorMemoryAllocation) ? sg::proto::ReplyStatus::OutOfMemory
                                                : sg::proto::ReplyStatus::CudaError;
  f.message = std::string(call) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  return false;
}
#define RUNNER_CHECK(call) check((call), #call, fail)

// Counts elements of `now` that differ bitwise from `first`: a timed launch
// must reproduce the checked output exactly (caching or skipped work shows up here).
__global__ void count_mismatch(const std::uint32_t* first, const std::uint32_t* now, std::size_t count,
                               unsigned long long* mismatches) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < count;
       i += (std::size_t)gridDim.x * blockDim.x)
    local += (first[i] != now[i]);
  if (local) atomicAdd(mismatches, local);
}

// Device buffers for one case, freed on every path.
struct DeviceBuffers {
  float *a = nullptr, *b = nullptr, *c = nullptr, *first = nullptr;
  unsigned long long* mismatches = nullptr;
  bool pooled = true;  // from sg::gpu::device_alloc; the selftest's are plain cudaMalloc (the sanitizer's case)
  ~DeviceBuffers() {
    for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(first),
                    static_cast<void*>(mismatches)})
      pooled ? sg::gpu::device_free(p) : cudaFree(p);
  }
};

// State kept for the life of the runner.
struct Timer {
  cudaEvent_t start = nullptr, stop = nullptr;
  void* flush = nullptr;  // larger than L2, written before each timed launch
  std::size_t flush_bytes = 0;
};

bool init_timer(Timer& t, CudaFailure& fail) {
  if (t.start) return true;
  int device = 0, l2 = 0;
  if (!RUNNER_CHECK(cudaGetDevice(&device))) return false;
  if (!RUNNER_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device))) return false;
  t.flush_bytes = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), 8u << 20);
  return RUNNER_CHECK(cudaMalloc(&t.flush, t.flush_bytes)) && RUNNER_CHECK(cudaEventCreate(&t.start)) &&
         RUNNER_CHECK(cudaEventCreate(&t.stop));
}

// One timed sample of `fn`: poison C, flush L2, events around the call, then a
// device-wide synchronise so work the call left running is finished too.
bool timed_sample(SgemmFn fn, const sg::proto::RunCaseRequest& q, DeviceBuffers& d, Timer& t, double& event_ms,
                  double& wall_ms, CudaFailure& fail) {
  const std::size_t c_bytes = sizeof(float) * q.m * static_cast<std::size_t>(q.n);
  if (!RUNNER_CHECK(cudaMemset(d.c, 0xFF, c_bytes))) return false;
  if (!RUNNER_CHECK(cudaMemset(t.flush, 0x5A, t.flush_bytes))) return false;
  if (!RUNNER_CHECK(cudaDeviceSynchronize())) return false;
  const auto t0 = Clock::now();
  if (!RUNNER_CHECK(cudaEventRecord(t.start))) return false;
  fn(q.m, q.n, q.k, d.a, d.b, d.c);
  if (!RUNNER_CHECK(cudaGetLastError())) return false;
  if (!RUNNER_CHECK(cudaEventRecord(t.stop))) return false;
  if (!RUNNER_CHECK(cudaDeviceSynchronize())) return false;
  wall_ms = ms_since(t0);
  float ms = 0;
  if (!RUNNER_CHECK(cudaEventElapsedTime(&ms, t.start, t.stop))) return false;
  event_ms = ms;
  return true;
}

// A case's device buffers kept after its checked launch, for timing later.
struct KeptCase {
  int m = 0, k = 0, n = 0;
  std::unique_ptr<DeviceBuffers> d;
};

// The checked launch: upload A and B, poison C, call basicSgemm once, copy C
// back. With `keep`, the buffers and a copy of the checked output stay on
// the device for TimeKept.
bool run_case(const sg::proto::RunCaseRequest& q, const std::vector<float>& a, const std::vector<float>& b,
              KeptCase* keep, const sg::gpu::SmPartition& partition, sg::proto::Reply& r, CudaFailure& fail) {
  const std::size_t mn = static_cast<std::size_t>(q.m) * q.n;
  auto d = std::make_unique<DeviceBuffers>();
  if (!RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d->a), sizeof(float) * a.size())) ||
      !RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d->b), sizeof(float) * b.size())) ||
      !RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d->c), sizeof(float) * mn)))
    return false;
  if (!RUNNER_CHECK(cudaMemcpy(d->a, a.data(), sizeof(float) * a.size(), cudaMemcpyHostToDevice)) ||
      !RUNNER_CHECK(cudaMemcpy(d->b, b.data(), sizeof(float) * b.size(), cudaMemcpyHostToDevice)) ||
      !RUNNER_CHECK(cudaMemset(d->c, 0xFF, sizeof(float) * mn)) || !RUNNER_CHECK(cudaDeviceSynchronize()))
    return false;

  const auto t0 = Clock::now();
  basicSgemm(q.m, q.n, q.k, d->a, d->b, d->c);
  cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) {
    // A refused launch (bad grid or block) leaves the context usable; the
    // runner carries on when the device still synchronises cleanly, which
    // spares the judge a new runner (a CUDA start-up) per such case.
    const bool usable = cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess;
    fail.status = usable ? sg::proto::ReplyStatus::LaunchRefused : sg::proto::ReplyStatus::LaunchError;
    fail.message = std::string("launch error after basicSgemm: ") + cudaGetErrorName(launch) + " (" +
                   cudaGetErrorString(launch) + ")";
    return false;
  }
  if (!RUNNER_CHECK(cudaDeviceSynchronize())) return false;
  r.header.checked_launch_wall_ms = ms_since(t0);
  r.header.checked_launch_sms = partition.sms();
  r.c.resize(mn);
  if (!RUNNER_CHECK(cudaMemcpy(r.c.data(), d->c, sizeof(float) * mn, cudaMemcpyDeviceToHost))) return false;
  if (!keep) return true;
  if (!RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d->first), sizeof(float) * mn)) ||
      !RUNNER_CHECK(sg::gpu::device_alloc(reinterpret_cast<void**>(&d->mismatches), sizeof(unsigned long long))) ||
      !RUNNER_CHECK(cudaMemcpy(d->first, d->c, sizeof(float) * mn, cudaMemcpyDeviceToDevice)))
    return false;
  keep->m = q.m;
  keep->k = q.k;
  keep->n = q.n;
  keep->d = std::move(d);
  return true;
}

// Timed launches on a kept case: student, reference and naive interleaved
// (the order rotates so no kernel always runs first after the flush), each
// student output compared bitwise with the checked one.
bool time_kept(const sg::proto::RunCaseRequest& q, KeptCase& kept, Timer& timer, sg::proto::Reply& r,
               CudaFailure& fail) {
  if (!init_timer(timer, fail)) return false;
  DeviceBuffers& d = *kept.d;
  const std::size_t mn = static_cast<std::size_t>(q.m) * q.n;
  const SgemmFn fns[3] = {basicSgemm, ref_tiled_sgemm, ref_naive_sgemm};
  std::vector<double>* series[3] = {&r.student_ms, &r.reference_ms, &r.naive_ms};
  // The naive kernel is only a landmark in the report and the slowest of the
  // three: a few samples of it are enough, and the GPU is held for less time.
  constexpr int kNaive = 2, kNaiveSamples = 3, kNaiveWarmups = 1;
  double ev = 0, wall = 0;
  for (int w = 0; w < q.warmups; ++w)
    for (int j = 0; j < 3; ++j)
      if ((j != kNaive || w < kNaiveWarmups) && !timed_sample(fns[j], q, d, timer, ev, wall, fail)) return false;
  for (int s = 0; s < q.samples; ++s) {
    for (int j = 0; j < 3; ++j) {
      const int which = (s + j) % 3;
      if (which == kNaive && s >= kNaiveSamples) continue;
      if (!timed_sample(fns[which], q, d, timer, ev, wall, fail)) return false;
      series[which]->push_back(ev);
      if (which != 0) continue;
      r.wall_ms.push_back(wall);
      unsigned long long bad = 0;
      if (!RUNNER_CHECK(cudaMemset(d.mismatches, 0, sizeof(bad)))) return false;
      count_mismatch<<<256, 256>>>(reinterpret_cast<const std::uint32_t*>(d.first),
                                   reinterpret_cast<const std::uint32_t*>(d.c), mn, d.mismatches);
      if (!RUNNER_CHECK(cudaGetLastError()) ||
          !RUNNER_CHECK(cudaMemcpy(&bad, d.mismatches, sizeof(bad), cudaMemcpyDeviceToHost)))
        return false;
      r.timed_mismatch.push_back(static_cast<std::int64_t>(bad));
    }
  }
  r.header.samples = q.samples;
  return true;
}

bool sane(const sg::proto::RunCaseRequest& q) {
  using sg::proto::RequestType;
  if (q.m <= 0 || q.k <= 0 || q.n <= 0 || q.keep_slot < 0 || q.keep_slot > sg::proto::kMaxKeptSlots) return false;
  if (q.type == RequestType::RunCase) return q.samples == 0 && q.warmups == 0;
  return q.type == RequestType::TimeKept && q.keep_slot > 0 && q.samples > 0 && q.samples <= 1000 &&
         q.warmups >= 0 && q.warmups <= 100;
}

// Makes the partition (or the whole GPU) current; a no-op without a partition.
bool switch_to(const sg::gpu::SmPartition& partition, bool on_partition, CudaFailure& fail) {
  if (on_partition ? partition.enter() : partition.leave()) return true;
  fail.status = sg::proto::ReplyStatus::CudaError;
  fail.message = on_partition ? "cuCtxSetCurrent (the partition) failed" : "cuCtxSetCurrent (the whole GPU) failed";
  return false;
}

int serve(const sg::gpu::SmPartition& partition) {
  Timer timer;
  KeptCase kept[sg::proto::kMaxKeptSlots + 1];
  for (;;) {
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
    CudaFailure fail;
    bool ok = false;
    if (q.type == sg::proto::RequestType::RunCase) {
      std::vector<float> a(static_cast<std::size_t>(q.m) * q.k), b(static_cast<std::size_t>(q.k) * q.n);
      if (!sg::proto::read_all(sg::proto::kRequestFd, a.data(), sizeof(float) * a.size()) ||
          !sg::proto::read_all(sg::proto::kRequestFd, b.data(), sizeof(float) * b.size()))
        return 4;
      KeptCase* keep = q.keep_slot > 0 ? &kept[q.keep_slot] : nullptr;
      if (keep) keep->d.reset();  // a slot holds one case: free the old one first
      ok = run_case(q, a, b, keep, partition, r, fail);
    } else {
      KeptCase& k = kept[q.keep_slot];
      if (!k.d || k.m != q.m || k.k != q.k || k.n != q.n) {
        r.header.status = sg::proto::ReplyStatus::BadRequest;
        r.message = "no case of this size is kept in slot " + std::to_string(q.keep_slot);
        if (!sg::proto::write_reply(sg::proto::kReplyFd, r)) return 4;
        continue;
      }
      // Timed on the whole GPU once everything on the partition has finished,
      // then back to the partition (both no-ops without one).
      ok = RUNNER_CHECK(cudaDeviceSynchronize()) && switch_to(partition, false, fail) &&
           time_kept(q, k, timer, r, fail);
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
      r.c.clear();
      r.student_ms.clear();
      r.reference_ms.clear();
      r.naive_ms.clear();
      r.wall_ms.clear();
      r.timed_mismatch.clear();
      r.header.samples = 0;
    }
    if (!sg::proto::write_reply(sg::proto::kReplyFd, r)) return 4;
    // After a sticky error the context is unusable: end, the judge starts a fresh runner.
    if (r.header.status == sg::proto::ReplyStatus::CudaError || r.header.status == sg::proto::ReplyStatus::LaunchError)
      return 5;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--selftest") == 0) return sg::gpu::run_selftest(argc, argv);
  unsigned partition_sms = 0;
  if (argc == 3 && std::strcmp(argv[1], "--partition-sms") == 0) {
    partition_sms = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: runner [--partition-sms N]   (serve the judge on fds 3/4)\n"
                         "       runner --selftest SEED TOKEN M K N [M K N ...]\n");
    return 2;
  }
  // Create the CUDA context now, before the judge's first request: the judge
  // starts the runner of the timed cases ahead of its exclusive hold on a
  // shared GPU, so that this (a few hundred ms) overlaps the wait. An error
  // here shows again on the first real call, which reports it.
  (void)cudaFree(nullptr);
  (void)sg::gpu::keep_freed_memory();  // a failure only costs speed
  sg::gpu::SmPartition partition;
  std::string why;
  // Without a partition the cases run on the whole GPU, as before a crash.
  if (partition_sms > 0 && !partition.create(partition_sms, why))
    std::fprintf(stderr, "runner: checked launches on the whole GPU: no partition of %u SMs (%s)\n", partition_sms,
                 why.c_str());
  return serve(partition);
}
