// A stand-in for a runner under a tool (process/tool_run.h's gated
// commands), on the host: it answers the judge's Ping, Selftest requests and
// Quit over fds 3 and 4 as the GPU runner does, and leaves marks in a folder
// so a test can see where it was when the judge's turn was taken or given back.
//   gate_runner DIR MODE START_MS
// waits START_MS, marks DIR/at-gate and serves. Modes:
//   ok        answers every request, exits 6 on Quit
//   ok_wait   the same, but at Quit waits (up to 10 s) for DIR/released
//             before it marks DIR/done and exits
//   refuse    answers its first Selftest LaunchError "boom at the launch", exits 5
//   hang      prints "working" at its first Selftest and sleeps
//   end_early exits 0 at its first Selftest, unanswered
//   hang_start prints "starting" and sleeps before it reads anything
// Each Selftest is marked DIR/request-N (N from 0) when it arrives.
// Built and driven by grader/tests/gated_tools_test.cpp.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "proto/protocol.h"

namespace {

void mark(const std::string& dir, const std::string& name) { std::ofstream(dir + "/" + name) << "x"; }

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

bool answer(const sg::proto::RunCaseRequest& q, sg::proto::ReplyStatus status, const std::string& message = "") {
  sg::proto::Reply r;
  r.header.nonce = q.nonce;
  r.header.m = q.m;
  r.header.n = q.n;
  r.header.status = status;
  r.message = message;
  return sg::proto::write_reply(sg::proto::kReplyFd, r);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gate_runner DIR MODE START_MS\n");
    return 2;
  }
  const std::string dir = argv[1], mode = argv[2];
  if (mode == "hang_start") {
    std::printf("starting\n");
    std::fflush(stdout);
    sleep(60);
    return 1;
  }
  usleep(static_cast<useconds_t>(std::atoi(argv[3])) * 1000);
  mark(dir, "at-gate");
  int selftests = 0;
  for (;;) {
    sg::proto::RunCaseRequest q;
    if (!sg::proto::read_all(sg::proto::kRequestFd, &q, sizeof(q))) return 7;
    if (q.type == sg::proto::RequestType::Quit) {
      if (mode == "ok_wait") {
        for (int i = 0; i < 200 && !exists(dir + "/released"); ++i) usleep(50 * 1000);
        mark(dir, "done");
      }
      return 6;
    }
    if (q.type == sg::proto::RequestType::Ping) {
      if (!answer(q, sg::proto::ReplyStatus::Ok)) return 4;
      continue;
    }
    if (q.type != sg::proto::RequestType::Selftest) return 8;
    mark(dir, "request-" + std::to_string(selftests++));
    if (mode == "refuse") {
      answer(q, sg::proto::ReplyStatus::LaunchError, "boom at the launch");
      return 5;
    }
    if (mode == "hang") {
      std::printf("working\n");
      std::fflush(stdout);
      sleep(60);
      return 1;
    }
    if (mode == "end_early") return 0;
    if (!answer(q, sg::proto::ReplyStatus::Ok)) return 4;
  }
}
