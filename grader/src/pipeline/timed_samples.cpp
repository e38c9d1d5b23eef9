#include "pipeline/timed_samples.h"

#include <algorithm>
#include <random>
#include <thread>

#include "compare/freivalds.h"
#include "proto/seeded_digest.h"

namespace sg {
namespace {

// Seeds nobody can predict, so no runner can have a product ready.
class FreshSeeds {
 public:
  std::uint64_t next() { return (std::uint64_t{device_()} << 32) ^ device_(); }

 private:
  std::random_device device_;
};

}  // namespace

std::string check_timed_output(int m, int k, int n, std::uint64_t seed, const std::vector<float>& c,
                               const proto::ReplyHeader& committed, std::uint64_t x_seed, double factor) {
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  const seeded::Digest d = seeded::host_digest(c.data(), c.size(), threads);
  if (d.a != committed.digest_a || d.b != committed.digest_b)
    return "the output sent afterwards was not the one the timed request committed to";
  FreivaldsInput in;
  in.m = m;
  in.k = k;
  in.n = n;
  in.seed = seed;
  in.c = c.data();
  in.x_seed = x_seed;
  in.factor = factor;
  in.threads = threads;
  const FreivaldsResult r = freivalds_check(in);
  return r.ok ? "" : r.summary();
}

std::string time_student_samples(RunnerSession& student, const Case& c, double limit_s, TimingEvidence& e,
                                 std::vector<FetchedOutput>& fetched) {
  FreshSeeds seeds;
  // Warm-ups into every slot the samples will use: a slot's first sample
  // allocates its buffer, which no timed sample may pay for.
  const int slots = std::clamp(c.performance.samples, 1, proto::kMaxSeededSlots);
  for (int w = 0; w < std::max(c.performance.warmups, slots); ++w) {
    const CaseOutcome out =
        student.time_seeded(c.m, c.k, c.n, seeds.next(), proto::Launch::BasicSgemm, limit_s, w % slots);
    if (out.kind != CaseOutcome::Kind::Ok) return out.cause;
  }
  std::vector<PendingOutput> pending;
  for (int s = 0; s < c.performance.samples; ++s) {
    // Every output slot holds an unfetched sample (a suite of more samples
    // than slots): fetch those now, at the cost of one pause.
    if (pending.size() == static_cast<std::size_t>(proto::kMaxSeededSlots)) {
      const std::string failed = fetch_student_outputs(student, c, limit_s, pending, fetched);
      if (!failed.empty()) return failed;
      pending.clear();
    }
    const std::uint64_t seed = seeds.next();
    const int slot = s % proto::kMaxSeededSlots;
    const CaseOutcome timed = student.time_seeded(c.m, c.k, c.n, seed, proto::Launch::BasicSgemm, limit_s, slot);
    if (timed.kind != CaseOutcome::Kind::Ok) return timed.cause;
    e.student_ms.push_back(timed.judge_ms);
    e.student_event_ms.push_back(timed.reply.header.launch_event_ms);
    pending.push_back({slot, seed, timed.reply.header});
  }
  return fetch_student_outputs(student, c, limit_s, pending, fetched);
}

std::string fetch_student_outputs(RunnerSession& student, const Case& c, double limit_s,
                                  const std::vector<PendingOutput>& pending, std::vector<FetchedOutput>& fetched) {
  for (const PendingOutput& p : pending) {
    CaseOutcome output = student.seeded_output(c.m, c.k, c.n, limit_s, p.slot);
    if (output.kind != CaseOutcome::Kind::Ok) return output.cause;
    fetched.push_back({p.seed, p.committed, std::move(output.reply.c)});
  }
  return "";
}

void check_student_outputs(const Case& c, const std::vector<FetchedOutput>& fetched, TimingEvidence& e) {
  FreshSeeds seeds;
  for (const FetchedOutput& f : fetched) {
    // x is drawn only now, after the runner has sent its output.
    const std::string wrong =
        check_timed_output(c.m, c.k, c.n, f.seed, f.c, f.committed, seeds.next(), c.tolerance_factor);
    if (!wrong.empty() && e.wrong_outputs++ == 0) e.first_wrong_output = wrong;
  }
}

std::string time_baseline_samples(RunnerSession& baseline, const Case& c, double limit_s, TimingEvidence& e) {
  FreshSeeds seeds;
  // Launch::None is the request overhead; the naive kernel is only a
  // landmark in the report and the slowest: a few samples of it are enough.
  constexpr proto::Launch kKinds[3] = {proto::Launch::None, proto::Launch::BasicSgemm, proto::Launch::Naive};
  constexpr int kNaive = 2, kNaiveSamples = 3;
  std::vector<double>* series[3] = {&e.overhead_ms, &e.reference_ms, &e.naive_ms};
  std::vector<double>* events[3] = {nullptr, &e.reference_event_ms, &e.naive_event_ms};
  std::string failure;
  std::uint64_t last_seed = 0;
  proto::ReplyHeader last_reference;
  auto sample = [&](int kind, bool keep) {
    const std::uint64_t seed = seeds.next();
    const CaseOutcome out = baseline.time_seeded(c.m, c.k, c.n, seed, kKinds[kind], limit_s, kind);
    if (out.kind != CaseOutcome::Kind::Ok) {
      failure = out.cause;
      return false;
    }
    if (keep) series[kind]->push_back(out.judge_ms);
    if (keep && events[kind]) events[kind]->push_back(out.reply.header.launch_event_ms);
    if (kKinds[kind] == proto::Launch::BasicSgemm) {
      last_seed = seed;
      last_reference = out.reply.header;
    }
    return true;
  };
  for (int w = 0; w < std::max(1, c.performance.warmups); ++w)
    for (int kind = 0; kind < 3; ++kind)
      if ((kind != kNaive || w == 0) && !sample(kind, false)) return failure;
  // Interleaved, the order rotating, so that no kind always follows another.
  for (int s = 0; s < c.performance.samples; ++s)
    for (int j = 0; j < 3; ++j) {
      const int kind = (s + j) % 3;
      if (kind == kNaive && s >= kNaiveSamples) continue;
      if (!sample(kind, true)) return failure;
    }
  // The reference's last output held to the same test as the student's: a
  // baseline runner that computed something else would show here.
  const CaseOutcome output = baseline.seeded_output(c.m, c.k, c.n, limit_s, 1);
  if (output.kind != CaseOutcome::Kind::Ok) return output.cause;
  const std::string wrong =
      check_timed_output(c.m, c.k, c.n, last_seed, output.reply.c, last_reference, seeds.next(), c.tolerance_factor);
  return wrong.empty() ? "" : "the reference's own timed output failed the check: " + wrong;
}

}  // namespace sg
