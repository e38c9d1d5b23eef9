// The baselines of a grading alone, timed while its submission builds: the
// GPU idles then (nvcc runs on the CPU), and nothing of the submission runs
// yet. The baseline runner starts before the compiler and times each
// performance case's baselines (an empty request, the reference, the naive
// kernel; cuBLAS in the judge) on a second thread; each quiet take whose
// reference output is right becomes a record, which stands for the case's
// baselines after the student's samples under the rule of a batch's records
// (measure/baseline_book.h: the student's reference launches must show the
// GPU at the record's pace, else the baselines are timed there as before).
// In a batch the GPU is shared while a submission builds: the batch's
// records serve instead.
#pragma once
#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "measure/baseline_book.h"
#include "services/runner_session.h"

namespace sg {

struct Grading;

class EarlyBaselines {
 public:
  // Nothing where the grading is part of a batch, its backend times nothing,
  // it times no case, or the baseline runner cannot be placed. Called on the
  // grading's main thread (the runner is spawned there: it must outlive the
  // thread that spawns it).
  static std::unique_ptr<EarlyBaselines> start(Grading& g);
  ~EarlyBaselines();  // stops after the request in flight and waits
  EarlyBaselines(const EarlyBaselines&) = delete;
  EarlyBaselines& operator=(const EarlyBaselines&) = delete;

  // Once the build is done: stops after the request in flight, waits, and
  // hands the grading the records and the runner (g.baseline), if it never
  // failed; else the runner ends here, and the correctness stage starts one.
  void finish(Grading& g);
  // Ready once the thread's device work (takes, cuBLAS) is over.
  std::shared_future<void> done() const { return done_future_; }

 private:
  struct Outcome {
    std::vector<BaselineRecord> records;
    bool runner_healthy = false;
  };
  EarlyBaselines(Grading& g, std::unique_ptr<RunnerSession> runner);
  Outcome run(Grading& g);
  void wait();

  std::unique_ptr<RunnerSession> runner_;
  std::atomic<bool> stop_{false};
  std::promise<void> done_;
  std::shared_future<void> done_future_ = done_.get_future().share();
  std::future<Outcome> thread_;
  Outcome outcome_;
};

}  // namespace sg
