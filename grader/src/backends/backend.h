// What the grading pipeline (pipeline/grade.cpp) asks of a backend: build the
// submission into a runner, say how runners start, compute the oracle, run
// the sanitizer check, hold a shared device, time. The pipeline never asks
// which backend it has; everything that differs between the GPU and the CPU
// lives behind this interface (backends/gpu/, backends/cpu/), and
// backends/registry.cpp is where a backend is chosen.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/result.h"
#include "model/suite.h"
#include "services/grader_paths.h"
#include "services/inputs.h"
#include "services/runner_session.h"
#include "services/work_dir.h"
#include "static_checks/static_checks.h"

namespace sg {

// Trusted state a backend keeps across the gradings of one `grade worker`
// process (cli/grade_worker.h): the judge's own (the GPU backend's CUDA
// context and oracle), never anything a submission made or could reach. A
// worker's gradings run one after another, so one grading uses it at a time.
class KeptState {
 public:
  virtual ~KeptState() = default;
  // After a grading: gives back what that grading used (its device memory)
  // and says whether the state can serve another grading (no error of its
  // own, such as a CUDA error in the judge's context). A worker ends where not.
  virtual bool ready_for_another() = 0;
};
struct BackendKeep {
  std::shared_ptr<KeptState> state;  // empty until a backend made some
};

struct BackendSetup {
  const GraderPaths* paths = nullptr;
  BackendKeep* keep = nullptr;  // a worker's (cli/grade_worker.h); nullptr in a grade process of its own
  std::string gpu_lock;     // a GPU shared by a batch: flock(2) this file around GPU work
  std::string device_arch;  // the GPU's architecture when the caller knows it ("sm_90")
  std::function<void(const std::string&)> log;  // progress lines (may be empty)
  // --backend unset, the GPU not yet described: where none is usable, the
  // backend throws NoGpuAfterAll instead of a UsageError.
  bool cpu_if_no_gpu = false;
};

// A backend made before the device was described found no usable GPU, and
// --backend was unset: the grading starts again on the cpu backend
// (pipeline/grade.cpp). what(): why there is none.
struct NoGpuAfterAll : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a build produced.
struct BuildOutput {
  bool ok = false;
  GradeState state = GradeState::CompileError;  // when !ok: CompileError or Rejected
  std::string why;        // when !ok: the reason every test's verdict gives
  std::string log;        // compiler and linker output (capped)
  std::string runner;     // the linked runner binary
  // The grader's own runner of the baselines (reference and naive kernels,
  // no student code), started like `runner` for the timed cases; "" where
  // the backend does not time.
  std::string baseline_runner;
  std::optional<StructureReport> structure;  // how mysgemm uses shared memory and barriers
  bool symbols_checked = false;  // the symbol policy read an object of the submission (nvcc's or the CPU layer's)
  std::vector<std::string> helpers;  // the student's global names the build made local (a style note)
  double seconds = 0;
};

// A hold on a device shared with other gradings, released when destroyed.
class DeviceHold {
 public:
  virtual ~DeviceHold() = default;
};

// A correctness case's checked launch as the CPU layer counted it (the
// runner's claim, like everything it reports): the structure check's figure
// where the suite has a case of the check's shape.
struct CountedCase {
  int m = 0, k = 0, n = 0;
  bool completed = false;   // the runner answered (else verdict says what happened)
  std::string verdict;      // when not completed: what happened
  double warp_loads = 0;    // global loads as warp-level instructions
  unsigned launches = 0;    // 0 where the counter cannot tell launches apart (the GPU's)
  // Counted from outside the runner (the GPU's counters): false when the
  // counter failed (counter_failed says why), so no count stands for this case.
  bool counted = true;
  std::string counter_failed;
};

// The loads of a checked launch counted from outside the runner's process
// (the GPU's performance monitors), open for exactly one checked launch.
class LoadWindow {
 public:
  virtual ~LoadWindow() = default;
  // The warp-level global loads since the window opened, or nullopt and why.
  virtual std::optional<double> close(std::string& why) = 0;
};

// The windows of one counted launch (backends/load_count.h): the counter's
// host-side set-up is made with this object, before the exclusive hold; the
// first window enables it on the device, inside the hold; it is disabled with
// this object, before the hold ends.
class LoadWindows {
 public:
  virtual ~LoadWindows() = default;
  // A window, or nullptr and why where it cannot open.
  virtual std::unique_ptr<LoadWindow> open(std::string& why) = 0;
  // Enables the counter now, before the hold: only where no other grading
  // shares the device (it keeps every other profiler off it). A failure
  // here is tried again by the first window.
  virtual void enable_now() {}
};

// Where the sanitizer and structure checks run: the grading's runner and its settings.
struct SanitizerContext {
  std::string runner;        // the runner binary
  const RunnerConfig* runner_config = nullptr;
  std::string log_dir;       // captures go under here
  std::uint64_t seed = 0;    // the grading's seed
  std::vector<Case> cases;   // the correctness cases this grading runs (memcheck covers the small ones)
  std::vector<CountedCase> counted;  // after the cases: what the CPU layer counted in each
  RunnerSession* session = nullptr;  // after the cases: the student's runner, started
  // The grader's baseline runner, where it already runs (started while the
  // submission built: pipeline/early_baselines.h).
  const RunnerSession* baseline = nullptr;
  // What a tool's final sweep must leave alive: the runners of both, if any.
  std::vector<pid_t> live_runners() const {
    std::vector<pid_t> live = session ? session->live_runners() : std::vector<pid_t>{};
    if (baseline) live.push_back(baseline->pid());
    return live;
  }
};

// Warp-level global loads of the naive kernel: two loads (A and B) per
// multiply-add, one instruction per 32 threads (its warps are full when n is
// a multiple of 16, as in every shape the suite measures at). Both backends'
// counts are held to it.
inline double naive_global_loads(int m, int n, int k) { return 2.0 * m * n * k / 32.0; }

// The kernel's global loads at the structure check's shape, as a backend counted them.
struct ReuseMeasurement {
  enum class Outcome {
    Measured,     // loads and naive_loads hold the counts
    Unavailable,  // no counter here (tool absent, no permission, CPU layer): the static check stands in
    NotMeasured   // the counter ran but gave no trustworthy count (why): no points
  };
  Outcome outcome = Outcome::Unavailable;
  ReuseSource source = ReuseSource::Static;
  double loads = 0, naive_loads = 0;
  int kernels = 0;           // kernel launches counted
  std::string why;           // Unavailable / NotMeasured: the reason, for the report
  std::string fallback = "the PTX";  // Unavailable: what the static check reads instead
  double seconds = 0;
};

enum class SharedHold { Short, Long };

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  // The device as reports name it ("NVIDIA H100 80GB HBM3 (sm_90)", "host CPU (correctness only)").
  virtual std::string device() const = 0;

  // Builds the private copy `kernel` of the submission into a runner under work.sub("build").
  virtual BuildOutput build(const std::string& kernel, const WorkDir& work) = 0;
  // Begins what starts beside the build (a GPU: CUDA's start-up on a second
  // thread), once; build() begins it too. Called first from the thread that
  // builds, it lets roofline_ms_beside_build run on another.
  virtual void start_beside_build() {}
  // The grader's baseline runner copied into work (once), where the runners'
  // user can run it; "" and why (appended to `log`) where it cannot be.
  virtual std::string place_baseline_runner(const WorkDir&, std::string&) { return ""; }
  // How this backend's runners start (argv[0] is `runner`), with the
  // scratch folder work.sub(scratch): the baseline runner gets one of its own,
  // so that nothing a student's runner left in its folder reaches it.
  virtual RunnerConfig runner_config(const std::string& runner, const WorkDir& work,
                                     const std::string& scratch = "scratch") const = 0;

  // Why the case cannot run here (e.g. too big for the device's memory), or "".
  virtual std::string cannot_run(const Case& c) const = 0;
  // The same asked from any thread, where the backend's own description of
  // its device may not be known yet (the cases made while a submission
  // builds): from the device as it is now.
  virtual std::string cannot_run_now(const Case& c) { return cannot_run(c); }
  // Wall time one run of the case may take.
  virtual double case_time_limit(const Case& c) const = 0;
  // The same once an earlier case of the grading has hung (services/limits.h).
  virtual double case_time_limit_after_hang(const Case& c) const = 0;
  // C64 = A*B and |A||B| in FP64, row-major.
  virtual void oracle(const Case& c, const CaseInputs& in, std::vector<double>& c64,
                      std::vector<double>& abs_ab) = 0;
  // Whether the oracle is host work that can run beside a case's run (the
  // CPU backend's runner keeps one core busy; a GPU's oracle shares the GPU).
  virtual bool oracle_on_host() const { return false; }
  // Can two launches on the same inputs give different bits (a race)? Then a
  // wrong result is run again to tell a race from a formula bug.
  virtual bool launches_can_differ() const = 0;

  // The sanitizer check on its case: fills t's status, verdict, detail and
  // diagnoses (the pipeline scores it). A tool that is absent leaves t
  // Skipped with max_score 0 and says why.
  virtual void sanitizer(const Check& c, const SanitizerContext& ctx, TestResult& t) = 0;

  // Whether sanitizer() runs the small correctness cases itself (memcheck
  // over them on a GPU); where not, the pipeline holds the check to the
  // cases' own runs.
  virtual bool sanitizer_runs_cases() const { return false; }

  // Counts the kernel's global loads at check c's shape (the structure check).
  virtual ReuseMeasurement measure_reuse(const Check& c, const SanitizerContext& ctx) = 0;
  // Whether measure_reuse needs the correctness cases' counts (ctx.counted):
  // then the structure check is graded after the cases.
  virtual bool reuse_after_cases() const { return false; }
  // Whether checked launches can be counted by load_windows (else the
  // runner's reply counts, where it does: the CPU layer).
  virtual bool counts_from_outside() const { return false; }
  // Windows on the device's load counter for one counted launch, made before
  // an exclusive hold (it counts the whole device: its windows open inside
  // it) and ended before the hold ends; nullptr where this backend counts
  // nothing from outside.
  virtual std::unique_ptr<LoadWindows> load_windows() { return nullptr; }

  // Empty when performance is measured here, else why not (for the report).
  virtual std::string why_not_timed() const = 0;
  // The judge's own roofline: cuBLAS SGEMM on the same inputs, median ms.
  virtual double roofline_ms(const Case& c, const CaseInputs& in, int samples) = 0;
  // The same from a second thread while the submission builds, once
  // start_beside_build has begun (it waits for that start-up); 0 where none.
  virtual double roofline_ms_beside_build(const Case&, const CaseInputs&, int) { return 0; }

  // Holds on a device that other gradings share. A shared hold is nullptr
  // when the device is not shared; an exclusive one may be a hold on nothing
  // that only counts its time. While holding one, never wait for anything
  // that may itself wait for a hold: an exclusive request waits for every
  // shared hold, and holds the lock's turnstile while it waits, so the whole
  // GPU would stall (grader/bench/RESULTS.md, "Runners begun before the sanitizer").
  // A Long shared hold is one that holds the device long while using little
  // of it (a runner that fails and ends in it, a sanitizer's launches): an
  // exclusive request waits for it without keeping the short ones waiting.
  virtual std::unique_ptr<DeviceHold> shared_hold(SharedHold length) = 0;
  virtual std::unique_ptr<DeviceHold> exclusive_hold() = 0;
  // Seconds this grading held the device to itself (or would have, were it
  // shared): gradings that share one GPU finish at most 60 / this a minute.
  virtual double exclusive_seconds() const = 0;
};

}  // namespace sg
