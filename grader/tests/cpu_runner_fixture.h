// Helpers of the tests that build kernels for the CPU backend and talk to
// the runner through the protocol (cpu_backend_test.cpp, cpu_model_test.cpp):
// kernel variants, inputs, an FP64 check, a build in a scratch folder, one
// runner process serving one case. Needs the layer built by make
// (SG_BUILD_DIR/cpu/libcudacpu.a and cpu_runner.o) and a host compiler; no GPU.
#pragma once
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cpu/cpu_build.h"
#include "process/tool_run.h"
#include "proto/protocol.h"
#include "services/runner_session.h"

#ifndef SG_SOURCE_ROOT
#error "compile with -DSG_SOURCE_ROOT='\"/path/to/repo\"'"
#endif
#ifndef SG_BUILD_DIR
#error "compile with -DSG_BUILD_DIR='\"/path/to/build\"'"
#endif

namespace cpu_fixture {

namespace fs = std::filesystem;

// Replaces the one occurrence of `from`; a missing one is a test bug.
inline std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "test kernel lacks `" << from << "`";
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// A plain 16x16 tiled kernel that the bug variants below are derived from.
// Line 19 holds the first barrier, line 22 the second (asserted in a test).
inline const char* const kTiled = R"(#include <cstdio>
#define TILE_SIZE 16

__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE_SIZE][TILE_SIZE];
  __shared__ float Bs[TILE_SIZE][TILE_SIZE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_SIZE + ty;
  const int col = blockIdx.x * TILE_SIZE + tx;
  float sum = 0.0f;
  for (int p = 0; p < (k + TILE_SIZE - 1) / TILE_SIZE; ++p) {
    const int a_col = p * TILE_SIZE + tx;
    const int b_row = p * TILE_SIZE + ty;
    // LOAD_A
    As[ty][tx] = (row < m && a_col < k) ? A[row * k + a_col] : 0.0f;
    // LOAD_B
    Bs[ty][tx] = (b_row < k && col < n) ? B[b_row * n + col] : 0.0f;
    // EARLY_EXIT
    __syncthreads();  // FIRST_BARRIER
    for (int e = 0; e < TILE_SIZE; ++e)
      sum += As[ty][e] * Bs[e][tx];
    __syncthreads();  // SECOND_BARRIER
  }
  if (row < m && col < n) C[row * n + col] = sum;
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  dim3 block(TILE_SIZE, TILE_SIZE);
  dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
)";

inline std::string tiled_variant(const std::string& from, const std::string& to) { return replace_once(kTiled, from, to); }

struct Matrices {
  int m = 0, k = 0, n = 0;
  std::vector<float> a, b;
};

inline Matrices random_inputs(int m, int k, int n, unsigned seed) {
  Matrices x{m, k, n, std::vector<float>(std::size_t(m) * k), std::vector<float>(std::size_t(k) * n)};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& v : x.a) v = u(gen);
  for (float& v : x.b) v = u(gen);
  return x;
}

// Elements of c outside 2 * gamma_k * (|A||B|)_ij of the FP64 product (NaN counts as wrong).
inline long long wrong_elements(const Matrices& x, const std::vector<float>& c) {
  const double u = std::ldexp(1.0, -24);
  const double gamma = x.k * u / (1 - x.k * u);
  long long wrong = 0;
  std::vector<double> exact(x.n), magnitude(x.n);
  for (int i = 0; i < x.m; ++i) {
    std::fill(exact.begin(), exact.end(), 0.0);
    std::fill(magnitude.begin(), magnitude.end(), 0.0);
    for (int p = 0; p < x.k; ++p) {
      const double a = x.a[std::size_t(i) * x.k + p];
      const float* brow = &x.b[std::size_t(p) * x.n];
      for (int j = 0; j < x.n; ++j) {
        exact[j] += a * brow[j];
        magnitude[j] += std::fabs(a * brow[j]);
      }
    }
    for (int j = 0; j < x.n; ++j) {
      const double got = c[std::size_t(i) * x.n + j];
      if (!(std::fabs(got - exact[j]) <= 2 * gamma * magnitude[j])) ++wrong;
    }
  }
  return wrong;
}

// A scratch folder removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "sg-cpu-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

inline sg::CpuPaths layer_paths() {
  sg::CpuPaths p;
  p.include_dir = std::string(SG_SOURCE_ROOT) + "/grader/cudacpu/include";
  p.library = std::string(SG_BUILD_DIR) + "/cpu/libcudacpu.a";
  p.runner_object = std::string(SG_BUILD_DIR) + "/cpu/cpu_runner.o";
  return p;
}

// Builds a runner from kernel source text; the build is a test failure.
struct Built {
  TempDir dir;
  sg::CpuBuildResult build;
};

inline void build_kernel(const std::string& source, Built& out) {
  ASSERT_FALSE(out.dir.path.empty()) << "could not create a temporary folder";
  const fs::path kernel = out.dir.path / "submission" / "kernel.cu";
  fs::create_directories(kernel.parent_path());
  std::ofstream(kernel) << source;
  out.build = sg::build_cpu_runner(kernel.string(), (out.dir.path / "build").string(), layer_paths(), 120);
}

#define BUILD_OR_FAIL(source, built)                                                  \
  do {                                                                                \
    build_kernel((source), (built));                                                  \
    if (HasFatalFailure()) return;                                                    \
    ASSERT_TRUE((built).build.ok) << "CPU build failed:\n" << (built).build.log;       \
  } while (0)

// What one runner process did with one case (sent `times` times).
struct RunOutcome {
  bool replied = false;                  // to every request
  sg::proto::Reply reply;                // the first reply
  std::vector<sg::proto::Reply> replies; // all of them
  std::string error;   // why there was no reply
  int exit_code = -1;  // when it exited normally
  int signal = 0;
  std::string output;  // its stdout and stderr
};

// Starts the runner with the protocol pipes on fds 3 and 4, sends one case
// (`times` times over, with the schedule's seed and order), reads the
// replies, then closes the request pipe so that it exits.
inline RunOutcome run_case(const std::string& runner, const Matrices& x, const std::vector<std::string>& env = {},
                    int times = 1, std::uint64_t seed = 0, bool ascending = false) {
  RunOutcome out;
  signal(SIGPIPE, SIG_IGN);  // a runner that dies early must not kill the test
  int req[2], rep[2];
  if (pipe(req) != 0 || pipe(rep) != 0) {
    out.error = "pipe failed";
    return out;
  }
  const std::string log = runner + ".out";
  const pid_t pid = fork();
  if (pid == 0) {
    // Move the pipe ends out of the way before placing them on 3 and 4.
    const int r = fcntl(req[0], F_DUPFD, 10), w = fcntl(rep[1], F_DUPFD, 10);
    dup2(r, sg::proto::kRequestFd);
    dup2(w, sg::proto::kReplyFd);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    for (int i = 5; i < 64; ++i) close(i);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    execl(runner.c_str(), runner.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(req[0]);
  close(rep[1]);
  sg::proto::RunCaseRequest q;
  q.m = x.m;
  q.k = x.k;
  q.n = x.n;
  q.nonce = 0x5eed;
  q.seed = seed;
  q.ascending = ascending ? 1 : 0;
  for (int i = 0; i < times; ++i) {
    const bool sent = sg::proto::write_all(req[1], &q, sizeof q) &&
                      sg::proto::write_all(req[1], x.a.data(), x.a.size() * sizeof(float)) &&
                      sg::proto::write_all(req[1], x.b.data(), x.b.size() * sizeof(float));
    pollfd p{rep[0], POLLIN, 0};
    sg::proto::Reply reply;
    out.replied = false;
    if (!sent) {
      out.error = "the runner stopped reading the case";
    } else if (poll(&p, 1, 120000) <= 0) {
      out.error = "no reply within 120 s";
      kill(pid, SIGKILL);
    } else {
      out.replied = sg::proto::read_reply(rep[0], reply, x.m, x.n, out.error);
    }
    if (!out.replied) break;
    if (i == 0) out.reply = reply;
    out.replies.push_back(std::move(reply));
  }
  close(req[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  close(rep[0]);
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  std::ifstream in(log);
  std::ostringstream ss;
  ss << in.rdbuf();
  out.output = ss.str();
  EXPECT_EQ(out.reply.header.nonce, out.replied ? q.nonce : out.reply.header.nonce);
  return out;
}

// Runs a case that must succeed and returns the number of wrong elements.
inline long long wrong_after_run(const std::string& runner, const Matrices& x, std::vector<float>* c_out = nullptr) {
  const RunOutcome r = run_case(runner, x);
  EXPECT_TRUE(r.replied) << r.error << "\n" << r.output;
  if (!r.replied) return -1;
  EXPECT_EQ(r.reply.header.status, sg::proto::ReplyStatus::Ok) << r.reply.message;
  EXPECT_EQ(r.reply.header.digest_a | r.reply.header.digest_b, 0u) << "the CPU backend never times";
  if (r.reply.header.status != sg::proto::ReplyStatus::Ok) return -1;
  if (c_out) *c_out = r.reply.c;
  return wrong_elements(x, r.reply.c);
}

// A judge's runner session over a built CPU runner, its logs in the build's folder.
inline sg::RunnerConfig session_config(const Built& b) {
  sg::RunnerConfig rc;
  rc.argv = {b.build.runner};
  rc.env = sg::scrubbed_environment(b.dir.path.string());
  rc.scratch_dir = rc.log_dir = b.dir.path.string();
  rc.drop_privileges = false;
  rc.pid_namespace = false;
  return rc;
}

}  // namespace cpu_fixture
