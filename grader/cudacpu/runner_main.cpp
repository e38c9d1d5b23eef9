// The CPU runner: the CPU backend's counterpart of the GPU runner. Linked
// with one student's kernel.cu (compiled through the CUDA-on-CPU layer), it
// runs the cases the judge sends over fd 3 and sends C back over fd 4
// (proto/protocol.h). It never times anything (replies carry no samples) and
// decides nothing. An out-of-bounds access that the kernel went on from is
// named in an Ok reply's message, a race between blocks in its block_race,
// and the kernels' global loads (the structure check's figure) in its
// header. A fatal fault ends the case with a CudaError reply that names it in
// its message and gives the faulting launch and allocation as facts in its
// header (proto::LaunchFacts). The judge's race check sends the same case
// with `ascending` set.
//
// The request's seed fixes the schedule (which resident blocks take turns
// when, cudacpu::set_schedule): a submission's results and messages are the
// same on every run of a case, even when its blocks race with each other.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cudacpu.h"
#include "cudacpu/ext.h"
#include "proto/protocol.h"

void basicSgemm(int m, int n, int k, const float* A, const float* B, float* C);

namespace {

namespace proto = sg::proto;
using Clock = std::chrono::steady_clock;

// Exit statuses besides 0 (judge said Quit, or closed the pipe).
constexpr int kExitProtocol = 2;   // unreadable request or reply pipe gone
constexpr int kExitStickyError = 3;  // the emulated device is dead, as after a sticky CUDA error

// Filled in before each case so that a fault inside the kernel can still be
// reported over the protocol from the signal handler (no allocation there:
// the message buffer is reserved up front).
struct FaultReply {
  proto::Reply reply;
};

void send_fault(const char* message, const cudacpu::FaultFacts& facts, void* user) {
  auto* f = static_cast<FaultReply*>(user);
  f->reply.message.assign(message);
  proto::LaunchFacts& launch = f->reply.header.launch;
  if (facts.in_kernel) {
    launch.block_x = facts.block_x;
    launch.block_y = facts.block_y;
    launch.grid_x = facts.grid_x;
    launch.grid_y = facts.grid_y;
    launch.fault = facts.out_of_bounds ? proto::FaultKind::OutOfBounds : proto::FaultKind::ThreadFault;
  }
  if (facts.in_kernel && facts.out_of_bounds) {
    launch.fault_shared = facts.shared_array ? 1 : 0;
    launch.fault_elements = facts.elements;
  }
  proto::write_reply(proto::kReplyFd, f->reply);
}

// What the reply's facts call a failed call's error (none but an illegal address here).
proto::FaultKind fault_of(cudaError_t err) {
  return err == cudaErrorIllegalAddress ? proto::FaultKind::IllegalAddress : proto::FaultKind::None;
}

std::string describe(cudaError_t err) {
  std::string text = std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
  const std::string detail = cudacpu::last_error_detail();
  if (!detail.empty()) text += ": " + detail;
  return text;
}

// Frees what is left of the case's buffers when a case ends early (the normal
// path frees them itself and checks).
struct Buffers {
  float *a = nullptr, *b = nullptr, *c = nullptr;
  ~Buffers() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
};

bool send(proto::Reply& r) { return proto::write_reply(proto::kReplyFd, r); }

// Runs one case; returns the process exit status to end with, or -1 to go on.
int run_case(const proto::RunCaseRequest& q, FaultReply& fault) {
  proto::Reply r;
  r.header.nonce = q.nonce;
  r.header.m = q.m;
  r.header.n = q.n;
  const std::size_t mk = std::size_t(q.m) * q.k, kn = std::size_t(q.k) * q.n, mn = std::size_t(q.m) * q.n;
  std::vector<float> a(mk), b(kn);
  if (!proto::read_all(proto::kRequestFd, a.data(), mk * sizeof(float)) ||
      !proto::read_all(proto::kRequestFd, b.data(), kn * sizeof(float)))
    return kExitProtocol;

  fault.reply.header = r.header;
  fault.reply.header.status = proto::ReplyStatus::CudaError;

  // Any failure below ends the case with a reply naming the call.
  auto fail = [&](cudaError_t err, const char* call) {
    r.header.status = err == cudaErrorMemoryAllocation ? proto::ReplyStatus::OutOfMemory : proto::ReplyStatus::CudaError;
    r.header.launch.fault = fault_of(err);
    r.message = std::string(call) + " failed: " + describe(err);
    if (!send(r)) return kExitProtocol;
    return err == cudaErrorMemoryAllocation ? -1 : kExitStickyError;
  };
  Buffers d;
  cudaError_t err;
  if ((err = cudaMalloc(&d.a, mk * sizeof(float))) != cudaSuccess) return fail(err, "cudaMalloc(A)");
  if ((err = cudaMalloc(&d.b, kn * sizeof(float))) != cudaSuccess) return fail(err, "cudaMalloc(B)");
  if ((err = cudaMalloc(&d.c, mn * sizeof(float))) != cudaSuccess) return fail(err, "cudaMalloc(C)");
  cudacpu::name_allocation(d.a, "A", "float", sizeof(float));
  cudacpu::name_allocation(d.b, "B", "float", sizeof(float));
  cudacpu::name_allocation(d.c, "C", "float", sizeof(float), static_cast<std::size_t>(q.n));
  if ((err = cudaMemcpy(d.a, a.data(), mk * sizeof(float), cudaMemcpyHostToDevice)) != cudaSuccess)
    return fail(err, "cudaMemcpy(A)");
  if ((err = cudaMemcpy(d.b, b.data(), kn * sizeof(float), cudaMemcpyHostToDevice)) != cudaSuccess)
    return fail(err, "cudaMemcpy(B)");
  // NaN bytes: an element the kernel never writes cannot pass.
  if ((err = cudaMemset(d.c, 0xFF, mn * sizeof(float))) != cudaSuccess) return fail(err, "cudaMemset(C)");

  cudacpu::set_schedule(q.ascending != 0, q.seed);
  (void)cudacpu::take_load_count();  // what the copies above counted is no kernel's
  (void)cudacpu::take_block_race_report();
  const auto t0 = Clock::now();
  basicSgemm(q.m, q.n, q.k, d.a, d.b, d.c);
  if ((err = cudaGetLastError()) != cudaSuccess) {
    // As on the GPU: a refused launch leaves the device usable, and the runner carries on.
    const bool usable = cudaDeviceSynchronize() == cudaSuccess;
    r.header.status = usable ? proto::ReplyStatus::LaunchRefused : proto::ReplyStatus::LaunchError;
    r.message = "basicSgemm's kernel launch failed: " + describe(err);
    if (!send(r)) return kExitProtocol;
    return usable ? -1 : kExitStickyError;
  }
  if ((err = cudaDeviceSynchronize()) != cudaSuccess) return fail(err, "cudaDeviceSynchronize after basicSgemm");
  r.header.checked_launch_wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::fflush(stdout);
  r.message = cudacpu::take_out_of_bounds_report();
  const cudacpu::LoadCount loads = cudacpu::take_load_count();
  r.header.global_loads = loads.warp_loads;
  r.header.kernel_launches = loads.launches;
  unsigned long long racing = 0;
  r.block_race = cudacpu::take_block_race_report(&racing);
  r.header.racing_stores = racing;

  r.c.resize(mn);
  if ((err = cudaMemcpy(r.c.data(), d.c, mn * sizeof(float), cudaMemcpyDeviceToHost)) != cudaSuccess)
    return fail(err, "cudaMemcpy(C)");
  for (auto [ptr, name] : {std::pair<float**, const char*>{&d.a, "cudaFree(A)"}, {&d.b, "cudaFree(B)"},
                           {&d.c, "cudaFree(C)"}}) {
    err = cudaFree(*ptr);
    *ptr = nullptr;
    if (err != cudaSuccess) return fail(err, name);
  }
  r.header.status = proto::ReplyStatus::Ok;
  return send(r) ? -1 : kExitProtocol;
}

bool valid_size(const proto::RunCaseRequest& q) {
  constexpr std::int64_t kMaxElements = std::int64_t(1) << 31;  // per matrix
  return q.m > 0 && q.k > 0 && q.n > 0 && std::int64_t(q.m) * q.k <= kMaxElements &&
         std::int64_t(q.k) * q.n <= kMaxElements && std::int64_t(q.m) * q.n <= kMaxElements;
}

}  // namespace

int main(int argc, char**) {
  // Line-buffered, so the submission's printf output is in the log even when
  // a fault ends the process.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc != 1) {
    std::fprintf(stderr, "usage: runner   (serves the judge on fds 3 and 4; no arguments)\n");
    return kExitProtocol;
  }
  FaultReply fault;
  fault.reply.message.reserve(1024);
  cudacpu::set_fatal_hook(send_fault, &fault);
  for (;;) {
    proto::RunCaseRequest q;
    if (!proto::read_all(proto::kRequestFd, &q, sizeof q)) return 0;  // judge closed the pipe
    if (q.magic == proto::kMagic && q.type == proto::RequestType::Quit) return 0;
    if (q.magic == proto::kMagic && q.type == proto::RequestType::Ping && valid_size(q)) {
      proto::Reply r;
      r.header.status = proto::ReplyStatus::Ok;
      r.header.nonce = q.nonce;
      r.header.m = q.m;
      r.header.n = q.n;
      send(r);
      continue;
    }
    if (q.magic != proto::kMagic || q.type != proto::RequestType::RunCase || !valid_size(q)) {
      // The stream cannot be trusted past a bad request: answer and stop.
      proto::Reply r;
      r.header.status = proto::ReplyStatus::BadRequest;
      r.header.nonce = q.nonce;
      r.header.m = q.m > 0 ? q.m : 0;
      r.header.n = q.n > 0 ? q.n : 0;
      r.message = "bad request (magic, type or sizes m=" + std::to_string(q.m) + " k=" + std::to_string(q.k) +
                  " n=" + std::to_string(q.n) + ")";
      send(r);
      return kExitProtocol;
    }
    const int status = run_case(q, fault);
    if (status >= 0) return status;
  }
}
