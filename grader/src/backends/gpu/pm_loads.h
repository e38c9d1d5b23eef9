// The kernel's global loads counted by the GPU's own performance monitors
// (CUPTI's PM sampling), read by the judge while the student's runner makes
// an ordinary checked launch: no profiler process, nothing in the runner's
// process or its launch differs from a correctness case's.
//
// PM sampling counts the whole device, so a window is trustworthy only while
// the grading holds the GPU to itself, and whatever else runs in it (the
// student's own background work) can only add loads, never hide them.
#pragma once
#include <memory>
#include <optional>
#include <string>

namespace sg {

class PmLoadCounter {
 public:
  // Whether this judge was built with CUPTI's PM sampling (CUDA 12.6 or later).
  static bool built();
  // PM sampling enabled on the judge's current CUDA device, or nullptr and
  // why not (no permission, another profiler holds the device, not
  // supported). Enabled PM sampling keeps every other profiler off the
  // device: open it inside an exclusive hold and destroy it before the hold ends.
  // All of it: even its host-side set-up, made before the hold, keeps another
  // process's counter from enabling (CUPTI_ERROR_HARDWARE_BUSY, grader/bench/RESULTS.md).
  static std::unique_ptr<PmLoadCounter> open(std::string& why);
  ~PmLoadCounter();
  PmLoadCounter(const PmLoadCounter&) = delete;
  PmLoadCounter& operator=(const PmLoadCounter&) = delete;

  // Starts a window.
  bool start(std::string& why);
  // Ends it: the warp-level global (and local) load instructions every SM
  // executed in it, or nullopt and why (samples lost, a CUPTI call failed).
  std::optional<double> stop(std::string& why);
  // The counter's set-up time (open), in seconds.
  double setup_seconds() const { return setup_s_; }

  struct State;

 private:
  explicit PmLoadCounter(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
  double setup_s_ = 0;
};

}  // namespace sg
