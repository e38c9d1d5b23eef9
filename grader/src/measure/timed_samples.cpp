#include "measure/timed_samples.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>
#include <random>
#include <thread>

#include "compare/freivalds.h"
#include "proto/seeded_digest.h"
#include "services/limits.h"

namespace sg {
namespace {

// Seeds nobody can predict, so no runner can have a product ready.
class FreshSeeds {
 public:
  std::uint64_t next() { return (std::uint64_t{device_()} << 32) ^ device_(); }

 private:
  std::random_device device_;
};

// The output file of the sample of `seed` in `dir` into c, then removed; a fault of kind None, or why not.
OutputFault read_output_file(const std::string& dir, std::uint64_t seed, int m, int n, std::vector<float>& c) {
  const std::string name = proto::seeded_output_name(seed);
  const std::string path = dir + "/" + name;
  // Made by the runner: no link is followed and nothing but a regular file
  // of exactly the output's size is read (a FIFO would block, a device or a
  // huge file would never end).
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  // The judge out of descriptors or memory: the machine's failure, not a wrong output.
  if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOMEM))
    throw MachineFailure("the judge could not open a timed output file: " + std::string(std::strerror(errno)));
  OutputFault why;
  why.file = name;
  if (fd < 0) {
    why.kind = OutputFault::Kind::CannotOpen;
    why.error = errno;
    return why;
  }
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(m) * n;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why.kind = OutputFault::Kind::NotRegularFile;
  } else if (static_cast<std::size_t>(st.st_size) != bytes) {
    why.kind = OutputFault::Kind::WrongSize;
    why.bytes = st.st_size;
    why.expected_bytes = static_cast<std::int64_t>(bytes);
  } else {
    c.resize(static_cast<std::size_t>(m) * n);
    if (!proto::read_all(fd, c.data(), bytes)) {
      why.kind = OutputFault::Kind::ShortRead;
      c.clear();
    }
  }
  close(fd);
  unlink(path.c_str());
  return why;
}

unsigned cores() { return std::clamp(std::thread::hardware_concurrency(), 1u, 16u); }

// body(i) for every i in [0, count), on up to cores() threads at once, each
// taking the next index; the first exception is thrown on here, after every
// thread has ended.
template <typename Body>
void for_each_index(std::size_t count, Body body) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr first;
  std::mutex first_mutex;
  auto work = [&] {
    for (std::size_t i; (i = next++) < count;) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(first_mutex);
        if (!first) first = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  const std::size_t workers = std::min<std::size_t>(cores(), count);
  for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (first) std::rethrow_exception(first);
}

// Slot of the reference's samples in the baseline runner (time_baseline_samples' kinds).
constexpr int kReferenceSlot = 1;

// One reference launch in the baseline runner, its event time into `into`;
// nothing, or the request that failed.
std::optional<CaseOutcome> time_reference(RunnerSession& baseline, const Case& c, std::uint64_t seed, double limit_s,
                                          std::vector<double>* into) {
  CaseOutcome out = baseline.time_seeded(c.m, c.k, c.n, seed, proto::Launch::BasicSgemm, limit_s, kReferenceSlot);
  if (out.kind != CaseOutcome::Kind::Ok) return out;
  if (into) into->push_back(out.reply.header.launch_event_ms);
  return std::nullopt;
}

TimedFailure failed_at(TimedStep step, CaseOutcome request) {
  TimedFailure f;
  f.step = step;
  f.request = std::move(request);
  return f;
}

}  // namespace

OutputFault check_timed_output(int m, int k, int n, std::uint64_t seed, const std::vector<float>& c,
                               const proto::ReplyHeader& committed, std::uint64_t x_seed, double factor) {
  return check_timed_output(m, k, n, seed, c, committed, x_seed, factor, cores());
}

OutputFault check_timed_output(int m, int k, int n, std::uint64_t seed, const std::vector<float>& c,
                               const proto::ReplyHeader& committed, std::uint64_t x_seed, double factor,
                               unsigned threads) {
  OutputFault fault;
  const seeded::Digest d = seeded::host_digest(c.data(), c.size(), threads);
  if (d.a != committed.digest_a || d.b != committed.digest_b) {
    fault.kind = OutputFault::Kind::NotCommitted;
    return fault;
  }
  FreivaldsInput in;
  in.m = m;
  in.k = k;
  in.n = n;
  in.seed = seed;
  in.c = c.data();
  in.x_seed = x_seed;
  in.factor = factor;
  in.threads = threads;
  fault.freivalds = freivalds_check(in);
  if (!fault.freivalds.ok) fault.kind = OutputFault::Kind::FreivaldsFailed;
  return fault;
}

std::optional<TimedFailure> time_yardstick(RunnerSession& baseline, const Case& c, double limit_s, TimingEvidence& e) {
  FreshSeeds seeds;
  for (int s = 0; s < std::max(1, c.performance.warmups) + kYardstickSamples; ++s) {
    const bool kept = s >= std::max(1, c.performance.warmups);
    if (std::optional<CaseOutcome> failed =
            time_reference(baseline, c, seeds.next(), limit_s, kept ? &e.yardstick_event_ms : nullptr))
      return failed_at(TimedStep::Yardstick, std::move(*failed));
  }
  return std::nullopt;
}

std::optional<TimedFailure> time_student_samples(RunnerSession& student, const Case& c, double limit_s,
                                                 TimingEvidence& e, std::vector<TimedOutput>& outputs,
                                                 RunnerSession* probes) {
  FreshSeeds seeds;
  // The suite's warm-ups launch basicSgemm; then every slot the samples will
  // use that no warm-up wrote is allocated by a request that launches nothing
  // (a slot's first request allocates its buffer, which no timed sample may
  // pay for; launching the kernel there too only lengthened the exclusive hold).
  const int slots = std::clamp(c.performance.samples, 1, proto::kMaxSeededSlots);
  for (int w = 0; w < std::max(c.performance.warmups, slots); ++w) {
    const proto::Launch launch = w < c.performance.warmups ? proto::Launch::BasicSgemm : proto::Launch::None;
    CaseOutcome out = student.time_seeded(c.m, c.k, c.n, seeds.next(), launch, limit_s, w % slots);
    if (out.kind != CaseOutcome::Kind::Ok) return failed_at(TimedStep::StudentSamples, std::move(out));
  }
  bool probed = false;  // the last request was a probe
  for (int s = 0; s < c.performance.samples; ++s) {
    const int slot = s % proto::kMaxSeededSlots;
    // Every slot holds a sample (a suite of more samples than slots): their
    // files are written now, before the slots are used again.
    if (s > 0 && slot == 0)
      if (std::optional<CaseOutcome> failed = write_output_files(student, c, limit_s, outputs))
        return failed_at(TimedStep::StudentSamples, std::move(*failed));
    const std::uint64_t seed = seeds.next();
    CaseOutcome timed = student.time_seeded(c.m, c.k, c.n, seed, proto::Launch::BasicSgemm, limit_s, slot);
    if (timed.kind != CaseOutcome::Kind::Ok) return failed_at(TimedStep::StudentSamples, std::move(timed));
    e.student_ms.push_back(timed.judge_ms);
    e.student_event_ms.push_back(timed.reply.header.launch_event_ms);
    e.student_after_probe.push_back(probed);
    TimedOutput out;
    out.slot = slot;
    out.seed = seed;
    out.committed = timed.reply.header;
    outputs.push_back(std::move(out));
    probed = probes && s % kProbeEvery == kProbeEvery - 1;
    if (probed)
      if (std::optional<CaseOutcome> failed = time_reference(*probes, c, seeds.next(), limit_s, &e.probe_event_ms))
        return failed_at(TimedStep::Probe, std::move(*failed));
  }
  if (std::optional<CaseOutcome> failed = write_output_files(student, c, limit_s, outputs))
    return failed_at(TimedStep::StudentSamples, std::move(*failed));
  return std::nullopt;
}

std::optional<CaseOutcome> write_output_files(RunnerSession& runner, const Case& c, double limit_s,
                                              std::vector<TimedOutput>& outputs) {
  for (TimedOutput& o : outputs) {
    if (o.written) continue;
    CaseOutcome written = runner.seeded_output(c.m, c.k, c.n, limit_s, o.slot, o.seed);
    if (written.kind != CaseOutcome::Kind::Ok) return written;
    o.written = true;
  }
  return std::nullopt;
}

void read_output_files(const std::string& dir, const Case& c, std::vector<TimedOutput>& outputs) {
  for_each_index(outputs.size(), [&](std::size_t i) {
    TimedOutput& o = outputs[i];
    if (o.written && o.c.empty() && !o.unreadable.wrong()) o.unreadable = read_output_file(dir, o.seed, c.m, c.n, o.c);
  });
}

void discard_output_files(const std::string& dir, const std::vector<TimedOutput>& outputs) {
  for (const TimedOutput& o : outputs)
    if (o.written) unlink((dir + "/" + proto::seeded_output_name(o.seed)).c_str());
}

void check_student_outputs(const Case& c, const std::vector<TimedOutput>& outputs, TimingEvidence& e) {
  // x is drawn only now, after the runner has written its outputs.
  FreshSeeds seeds;
  std::vector<std::uint64_t> x_seeds(outputs.size());
  for (std::uint64_t& x : x_seeds) x = seeds.next();
  // One output a core, each checked on one thread: the outputs are many and
  // alike, so no core waits for another's share of one output.
  std::vector<OutputFault> faults(outputs.size());
  for_each_index(outputs.size(), [&](std::size_t i) {
    const TimedOutput& o = outputs[i];
    OutputFault& wrong = faults[i];
    wrong = o.unreadable;
    if (!wrong.wrong() && o.c.empty()) wrong.kind = OutputFault::Kind::NeverWritten;
    if (!wrong.wrong())
      wrong = check_timed_output(c.m, c.k, c.n, o.seed, o.c, o.committed, x_seeds[i], c.tolerance_factor, 1);
  });
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (faults[i].wrong() && e.wrong_outputs++ == 0) e.first_wrong_output = faults[i];
    e.unreadable_outputs += outputs[i].unreadable.unreadable();
  }
}

std::optional<TimedFailure> time_baseline_samples(RunnerSession& baseline, const Case& c, double limit_s,
                                                  TimingEvidence& e, TimedOutput& reference) {
  FreshSeeds seeds;
  // Launch::None is the request overhead; the naive kernel is only a
  // landmark in the report and the slowest: a few samples of it are enough.
  constexpr proto::Launch kKinds[3] = {proto::Launch::None, proto::Launch::BasicSgemm, proto::Launch::Naive};
  static_assert(kKinds[kReferenceSlot] == proto::Launch::BasicSgemm,
                "the yardstick and the probes use the reference's slot");
  constexpr int kNaive = 2, kNaiveSamples = 3;
  std::vector<double>* series[3] = {&e.overhead_ms, &e.reference_ms, &e.naive_ms};
  std::vector<double>* events[3] = {nullptr, &e.reference_event_ms, &e.naive_event_ms};
  std::optional<TimedFailure> failure;
  std::uint64_t last_seed = 0;
  proto::ReplyHeader last_reference;
  auto sample = [&](int kind, bool keep) {
    const std::uint64_t seed = seeds.next();
    CaseOutcome out = baseline.time_seeded(c.m, c.k, c.n, seed, kKinds[kind], limit_s, kind);
    if (out.kind != CaseOutcome::Kind::Ok) {
      failure = failed_at(TimedStep::Baselines, std::move(out));
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
  // The reference's last output, written to its file now and held to the
  // student's test after the hold (check_reference_output): a baseline
  // runner that computed something else would show there.
  CaseOutcome output = baseline.seeded_output(c.m, c.k, c.n, limit_s, kReferenceSlot, last_seed);
  if (output.kind != CaseOutcome::Kind::Ok) return failed_at(TimedStep::Baselines, std::move(output));
  reference = TimedOutput{};
  reference.slot = kReferenceSlot;
  reference.seed = last_seed;
  reference.committed = last_reference;
  reference.written = true;
  return std::nullopt;
}

std::optional<TimedFailure> check_reference_output(const std::string& dir, const Case& c, TimedOutput& reference) {
  if (!reference.written) return std::nullopt;  // no baselines were taken
  OutputFault wrong = read_output_file(dir, reference.seed, c.m, c.n, reference.c);
  if (!wrong.wrong())
    wrong = check_timed_output(c.m, c.k, c.n, reference.seed, reference.c, reference.committed, FreshSeeds().next(),
                               c.tolerance_factor);
  reference.c = {};
  if (!wrong.wrong()) return std::nullopt;
  TimedFailure f;
  f.step = TimedStep::ReferenceOutput;
  f.reference_wrong = wrong;
  return f;
}

}  // namespace sg
