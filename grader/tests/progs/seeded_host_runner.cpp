// A stand-in runner for the judge's side of timed samples, on the host (no
// GPU): it answers TimeSeeded and SeededOutput as the GPU runner does, with
// C = A B computed in FP32 from the seeded inputs. Modes (argv[1]):
//   honest   every sample computed
//   replay   the first sample computed, later ones answered with that same C
//   late     the timed reply commits to an unwritten C; the product is only
//            computed when the judge asks for the output
//   link     every output file is a symbolic link to /etc/passwd
//   short    every output file holds half of C
// and to RunCase (a checked launch; C all zeros):
//   slow     counts a "block" every 20 ms for 2.4 s in CUDACPU_PROGRESS_FILE
//            (as the CPU layer does), then answers
//   stuck    never answers and counts nothing
//   tail     sends the first 64 bytes of its reply at once, the rest 1.5 s later
//   tail_stuck  sends the first 64 bytes of its reply, then nothing more
// Every mode says on stderr when a slot is first used ("slot S first used by
// request R"), as the GPU runner allocates a slot's buffer then.
// Built and driven by grader/tests/timed_samples_test.cpp.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "proto/protocol.h"
#include "proto/seeded_digest.h"
#include "proto/seeded_inputs.h"

namespace {

std::vector<float> product(const sg::proto::RunCaseRequest& q) {
  const std::uint64_t ka = sg::seeded::stream_key(q.seed, sg::seeded::kStreamA);
  const std::uint64_t kb = sg::seeded::stream_key(q.seed, sg::seeded::kStreamB);
  std::vector<float> c(static_cast<std::size_t>(q.m) * q.n, 0.0f);
  for (int i = 0; i < q.m; ++i)
    for (int j = 0; j < q.n; ++j) {
      float s = 0;
      for (int l = 0; l < q.k; ++l)
        s += sg::seeded::value(ka, std::uint64_t(i) * q.k + l) * sg::seeded::value(kb, std::uint64_t(l) * q.n + j);
      c[std::size_t(i) * q.n + j] = s;
    }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "honest";
  // One output and seed per slot, as the GPU runner keeps them.
  std::map<int, std::vector<float>> outputs;
  std::map<int, std::uint64_t> seeds;
  bool have_first = false;
  for (long request = 1;; ++request) {
    sg::proto::RunCaseRequest q;
    if (!sg::proto::read_all(sg::proto::kRequestFd, &q, sizeof q)) return 0;
    if (q.type == sg::proto::RequestType::Quit) return 0;
    sg::proto::Reply r;
    r.header.nonce = q.nonce;
    r.header.m = q.m;
    r.header.n = q.n;
    if (q.type == sg::proto::RequestType::Ping) {
      r.header.status = sg::proto::ReplyStatus::Ok;
      if (!sg::proto::write_reply(sg::proto::kReplyFd, r)) return 4;
      continue;
    }
    if (q.type == sg::proto::RequestType::RunCase) {
      std::vector<float> ab(std::size_t(q.m) * q.k + std::size_t(q.k) * q.n);
      if (!sg::proto::read_all(sg::proto::kRequestFd, ab.data(), sizeof(float) * ab.size())) return 0;
      const char* path = std::getenv("CUDACPU_PROGRESS_FILE");
      // The count is overwritten in place, never truncated first (as the CPU
      // layer's mapped counter): a judge reading between a truncation and the
      // write would see no progress and end the case (seen once in make test).
      const int progress = mode == "slow" && path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;
      for (int block = 1; mode == "slow" && block <= 120; ++block) {
        usleep(20000);
        const std::uint64_t done = static_cast<std::uint64_t>(block);
        if (progress >= 0 && pwrite(progress, &done, sizeof done, 0) != static_cast<ssize_t>(sizeof done)) return 5;
      }
      if (progress >= 0) close(progress);
      while (mode == "stuck") pause();
      r.c.assign(std::size_t(q.m) * q.n, 0.0f);
      if (mode == "tail" || mode == "tail_stuck") {
        // The reply as bytes (written to a memory file), sent in two parts.
        const int mem = memfd_create("reply", 0);
        if (mem < 0 || !sg::proto::write_reply(mem, r)) return 4;
        std::vector<char> bytes(static_cast<std::size_t>(lseek(mem, 0, SEEK_CUR)));
        if (pread(mem, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) return 4;
        close(mem);
        if (!sg::proto::write_all(sg::proto::kReplyFd, bytes.data(), 64)) return 4;
        while (mode == "tail_stuck") pause();
        usleep(1500000);
        if (!sg::proto::write_all(sg::proto::kReplyFd, bytes.data() + 64, bytes.size() - 64)) return 4;
        continue;
      }
      if (!sg::proto::write_reply(sg::proto::kReplyFd, r)) return 4;
      continue;
    }
    if (q.type == sg::proto::RequestType::TimeSeeded && outputs.count(q.slot) == 0)
      std::fprintf(stderr, "slot %d first used by request %ld\n", q.slot, request);
    std::vector<float>& c = outputs[q.slot];
    if (q.type == sg::proto::RequestType::TimeSeeded) {
      seeds[q.slot] = q.seed;
      if (q.launch == sg::proto::Launch::BasicSgemm) std::fprintf(stderr, "request %ld launches basicSgemm\n", request);
      if (q.launch == sg::proto::Launch::None) {
        c.assign(std::size_t(q.m) * q.n, 0.0f);
        std::memset(c.data(), 0xFF, c.size() * sizeof(float));
      } else if (mode == "late") {
        c.assign(std::size_t(q.m) * q.n, 0.0f);
        std::memset(c.data(), 0xFF, c.size() * sizeof(float));
      } else if (mode == "replay" && have_first) {
        c = outputs[-1];  // the first output again
      } else {
        const auto t0 = std::chrono::steady_clock::now();
        c = product(q);
        r.header.launch_event_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!have_first) outputs[-1] = c;
        have_first = true;
      }
      const sg::seeded::Digest d = sg::seeded::host_digest(c.data(), c.size());
      r.header.digest_a = d.a;
      r.header.digest_b = d.b;
    } else if (q.type == sg::proto::RequestType::SeededOutput && seeds[q.slot] == q.seed) {
      if (mode == "late") c = product(q);
      // The output goes to its file (proto SeededOutput), as the GPU runner writes it.
      const std::string name = sg::proto::seeded_output_name(q.seed);
      std::remove(name.c_str());
      if (mode == "link") {
        if (symlink("/etc/passwd", name.c_str()) != 0) return 5;
      } else {
        std::FILE* f = std::fopen(name.c_str(), "wb");
        const std::size_t count = mode == "short" ? c.size() / 2 : c.size();
        if (!f || std::fwrite(c.data(), sizeof(float), count, f) != count || std::fclose(f) != 0) return 5;
      }
    } else {
      r.header.status = sg::proto::ReplyStatus::BadRequest;
    }
    if (!sg::proto::write_reply(sg::proto::kReplyFd, r)) return 4;
  }
}
