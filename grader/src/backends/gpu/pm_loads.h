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
  // The counter's host-side set-up on the judge's current CUDA device (the
  // profiler, the chip's name, the load metric's configuration), or nullptr
  // and why not. It reads nothing of the device's counters, so it is made
  // before the exclusive hold (grader/bench/RESULTS.md: an earlier set-up that
  // also read the device's counter availability there saw
  // CUPTI_ERROR_HARDWARE_BUSY in 4 of 24 gradings; this one, in none of 46).
  static std::unique_ptr<PmLoadCounter> prepare(std::string& why);
  // PM sampling enabled on the device with the prepared configuration. It
  // keeps every other profiler off the device: enable it inside an exclusive
  // hold and destroy the counter before the hold ends (a grading alone, which
  // shares the device with no other, enables it before its counted case).
  bool enable(std::string& why);
  bool enabled() const;
  // prepare, then enable.
  static std::unique_ptr<PmLoadCounter> open(std::string& why);
  ~PmLoadCounter();
  PmLoadCounter(const PmLoadCounter&) = delete;
  PmLoadCounter& operator=(const PmLoadCounter&) = delete;

  // Starts a window.
  bool start(std::string& why);
  // Ends it: the warp-level global (and local) load instructions every SM
  // executed in it, or nullopt and why (samples lost, a CUPTI call failed).
  std::optional<double> stop(std::string& why);
  // The set-up's times, in seconds: prepare (before the hold) and enable (inside it).
  double prepare_seconds() const { return prepare_s_; }
  double enable_seconds() const { return enable_s_; }

  struct State;

 private:
  explicit PmLoadCounter(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
  double prepare_s_ = 0, enable_s_ = 0;
};

}  // namespace sg
