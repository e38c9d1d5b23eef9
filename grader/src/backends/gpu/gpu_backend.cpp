#include "backends/gpu/gpu_backend.h"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <cstdlib>
#include <functional>
#include <future>
#include <random>
#include <stdexcept>
#include <thread>

#include "backends/gpu/device_lock.h"
#include "backends/gpu/ncu_reuse.h"
#include "backends/gpu/pm_loads.h"
#include "backends/gpu/pm_reuse.h"
#include "backends/gpu/runner_files.h"
#include "backends/gpu/sanitizer_shapes.h"
#include "compare/diagnosis_catalogue.h"
#include "words/build_report.h"
#include "words/case_report.h"
#include "words/check_report.h"
#include "words/gpu_backend_lines.h"
#include "words/sanitizer_report.h"
#include "words/structure_report.h"
#include "words/symbol_report.h"
#include "services/limits.h"
#include "services/elapsed.h"
#include "services/submission.h"
#include "process/tool_run.h"

namespace fs = std::filesystem;

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kLogCap = 64 << 10;
constexpr double kCompileTimeout = 180;
// After a runner fails, the checked launches run on 16 SMs: a fault there
// stalls a few SMs instead of the whole GPU (grader/bench/crash_cost.sh), while
// a correct kernel is only slowed in the checked launch, not in the timed ones.
constexpr unsigned kPartitionSmsAfterFailure = 16;
// A sanitizer run whose output has not grown for this long is hung: far
// longer than a small shape takes under memcheck, even in a batch.
constexpr double kSanitizerQuietS = 30;
// The same for ncu from its turn on (it prints as it profiles, and one launch
// at the structure check's shape is short): a kernel that hangs
// there would otherwise keep the GPU's one profiler to the check's limit.
constexpr double kNcuQuietS = 60;

class GpuBackend final : public Backend {
 public:
  GpuBackend(const BackendSetup& s, std::optional<DeviceDescription> known)
      : setup_(s), paths_(*s.paths) {
    if (known) {
      device_ = *known;
      build_arch_ = device_.arch();
    } else {
      build_arch_ = s.device_arch;
    }
  }

  BackendKind kind() const override { return BackendKind::Gpu; }

  std::string device() const override {
    if (device_.present) return gpu_device_name(device_.name, device_.arch());
    return gpu_not_started_name(build_arch_);
  }

  BuildOutput build(const std::string& kernel, const WorkDir& work) override;

  RunnerConfig runner_config(const std::string& runner, const WorkDir& work,
                             const std::string& scratch) const override {
    RunnerConfig rc;
    rc.argv = {runner};
    rc.scratch_dir = work.sub(scratch);
    rc.env = runner_environment(rc.scratch_dir);
    rc.log_dir = work.sub("logs");
    rc.drop_privileges = true;
    // bubblewrap's own PID namespace (with its /proc) contains the runner;
    // the judge's bare CLONE_NEWPID does not suit CUDA's driver (seen on the
    // H200 machine: cudaMalloc fails), so it is not used on top.
    rc.pid_namespace = false;
    rc.partition_sms_after_failure = kPartitionSmsAfterFailure;
    rc.sandbox = runner_sandbox(paths_.sandbox, runner, rc.scratch_dir);
    rc.scratch_quota = work.place(scratch);
    rc.work_quota = work.place("");
    return rc;
  }

  std::string cannot_run(const Case& c) const override { return memory_short(c, device_.free_bytes); }
  std::string cannot_run_now(const Case& c) override { return memory_short(c, oracle().free_device_bytes()); }

  double case_time_limit(const Case& c) const override { return sg::case_time_limit(c, BackendKind::Gpu); }
  double case_time_limit_after_hang(const Case& c) const override {
    return sg::case_time_limit_after_hang(c, BackendKind::Gpu);
  }

  void oracle(const Case& c, const CaseInputs& in, std::vector<double>& c64, std::vector<double>& abs_ab) override {
    oracle().oracle(c.m, c.n, c.k, in.a.data(), in.b.data(), c64, abs_ab);
  }

  bool launches_can_differ() const override { return true; }

  void sanitizer(const Check& c, const SanitizerContext& ctx, TestResult& t) override;
  // compute-sanitizer's memcheck runs every small case (sanitizer_shapes.h).
  bool sanitizer_runs_cases() const override { return true; }
  ReuseMeasurement measure_reuse(const Check& c, const SanitizerContext& ctx) override;
  // With PM sampling the count is a checked launch through the student's own
  // runner, so it waits for the cases (the runner is started and warm by then).
  bool reuse_after_cases() const override { return pm_counts_; }
  bool counts_from_outside() const override { return pm_counts_; }
  std::unique_ptr<LoadWindows> load_windows() override { return pm_windows(setup_.log); }
  std::optional<ReuseMeasurement> measure_reuse_pm(const Check& c, const SanitizerContext& ctx, std::string& why);
  ReuseMeasurement measure_reuse_ncu(const Check& c, const SanitizerContext& ctx);
  Sandbox tool_sandbox(const SanitizerContext& ctx) const;
  Sandbox ncu_sandbox(const SanitizerContext& ctx) const;

  std::string why_not_timed() const override { return ""; }

  double roofline_ms(const Case& c, const CaseInputs& in, int samples) override {
    return oracle().time_sgemm(c.m, c.n, c.k, in.a.data(), in.b.data(), samples);
  }
  double roofline_ms_beside_build(const Case& c, const CaseInputs& in, int samples) override {
    const std::shared_ptr<Started> s = started_.get();  // waits; rethrows an internal CUDA error
    return s->oracle ? s->oracle->time_sgemm(c.m, c.n, c.k, in.a.data(), in.b.data(), samples) : 0;
  }

  // CUDA start-up (the device's description, then the oracle's context) on
  // a second thread beside the compiler, once.
  void start_beside_build() override {
    if (started_.valid()) return;
    if (setup_.keep) {
      // A worker's later grading: its context, started by an earlier one.
      if (auto kept = std::dynamic_pointer_cast<Started>(setup_.keep->state)) {
        std::promise<std::shared_ptr<Started>> ready;
        ready.set_value(std::move(kept));
        started_ = ready.get_future().share();
        log(judge_context_kept_log_line());
        return;
      }
    }
    const std::optional<DeviceDescription> known =
        device_.present ? std::optional<DeviceDescription>(device_) : std::nullopt;
    started_ = std::async(std::launch::async, [known] {
      auto s = std::make_shared<Started>();
      s->device = known ? *known : describe_device();
      if (s->device.present) s->oracle = std::make_unique<GpuOracle>();
      return s;
    }).share();
  }

  std::string place_baseline_runner(const WorkDir& work, std::string& log) override;

  std::unique_ptr<DeviceHold> shared_hold(SharedHold length) override {
    if (setup_.gpu_lock.empty()) return nullptr;
    return std::make_unique<LockHold>(setup_.gpu_lock, length == SharedHold::Long ? LockMode::SharedLong : LockMode::Shared,
                                      nullptr, setup_.log);
  }
  std::unique_ptr<DeviceHold> exclusive_hold() override {
    return std::make_unique<LockHold>(setup_.gpu_lock, LockMode::Exclusive, &exclusive_s_, setup_.log, kGpuExclusive);
  }
  double exclusive_seconds() const override { return exclusive_s_; }

 private:
  // The judge's CUDA start-up; what a worker keeps for its next grading.
  struct Started final : KeptState {
    DeviceDescription device;
    std::unique_ptr<GpuOracle> oracle;
    bool ready_for_another() override { return oracle && oracle->ready_for_another(); }
  };
  void log(const std::string& line) const {
    if (setup_.log) setup_.log(line);
  }
  void finish_start() {
    const std::shared_ptr<Started> s = started_.get();  // rethrows an internal CUDA error
    if (!s->device.present && setup_.cpu_if_no_gpu) throw NoGpuAfterAll(s->device.why_not);
    if (!s->device.present) throw UsageError(no_usable_gpu(s->device.why_not));
    device_ = s->device;
    device_.free_bytes = s->oracle->free_device_bytes();
    if (setup_.keep) setup_.keep->state = s;
  }
  // Why case c needs more device memory than `free_bytes` (0: not known) leaves, or "".
  static std::string memory_short(const Case& c, std::size_t free_bytes) {
    const double mk = double(c.m) * c.k, kn = double(c.k) * c.n, mn = double(c.m) * c.n;
    const double runner_bytes = 4 * (mk + kn + 2 * mn) + 256.0 * (1 << 20);
    const double oracle_bytes = 8 * 2 * (mk + kn) + 8 * mn;
    const double need = runner_bytes + oracle_bytes;
    if (free_bytes == 0 || need <= 0.9 * double(free_bytes)) return "";
    return gpu_memory_short(need, double(free_bytes));
  }
  // The judge's context, once started (every caller's thread waits for it;
  // only build() may have seen it fail, so it is there).
  GpuOracle& oracle() const { return *started_.get()->oracle; }

  BackendSetup setup_;
  const GraderPaths& paths_;
  DeviceDescription device_;
  std::string build_arch_;  // what the submission is compiled for first ("sm_90")
  // CUDA's start-up (start_beside_build): read through copies or const
  // calls only, from any thread.
  std::shared_future<std::shared_ptr<Started>> started_;
  // Seconds held to itself (exclusive_seconds). Only the grading's main
  // thread asks for exclusive holds, so a plain sum will do.
  double exclusive_s_ = 0;
  std::string baseline_copy_;  // place_baseline_runner's, once made
  // The structure check's loads from the GPU's counters (PM sampling; ncu
  // where they cannot be read): no tool run a submission could tell apart,
  // half the batch time. SG_STRUCTURE_COUNTER=ncu asks for ncu alone.
  const bool pm_counts_ = PmLoadCounter::built() && [] {
    const char* v = std::getenv("SG_STRUCTURE_COUNTER");
    return !v || std::string(v) != "ncu";
  }();
};

BuildOutput GpuBackend::build(const std::string& kernel, const WorkDir& work) {
  BuildOutput out;
  start_beside_build();
  Toolchain tc;
  tc.nvcc = paths_.nvcc;
  tc.arch = build_arch_;
  tc.sandbox = paths_.sandbox;
  const auto t0 = Clock::now();
  CompileResult cr = compile_submission(tc, kernel, work.sub("build"), kCompileTimeout);
  finish_start();
  if (device_.arch() != tc.arch) {
    // The caller's --device-arch was not this GPU's: build again for the right one.
    log(building_again_log_line(device_.arch(), tc.arch));
    tc.arch = device_.arch();
    cr = compile_submission(tc, kernel, work.sub("build"), kCompileTimeout);
  }
  out.log = compile_log(cr);
  if (!cr.ok) {
    out.seconds = seconds_since(t0);
    out.why = did_not_compile_why();
    return out;
  }
  SymbolReport sym = check_symbols(tc, cr.object);
  if (!sym.ok) {
    out.seconds = seconds_since(t0);
    const std::vector<std::string> problems = symbol_problem_lines(sym);
    out.log += static_check_rejection_log(problems);
    out.state = GradeState::Rejected;
    out.why = rejected_why(problems);
    return out;
  }
  out.symbols_checked = true;
  if (std::string err = localise_helpers(cr.object, out.helpers, tc.nm); !err.empty()) {
    out.seconds = seconds_since(t0);
    out.log += "\n" + err + "\n";
    out.why = runner_not_linked_why();
    return out;
  }
  out.structure = with_ptx_detail(check_structure(cr.ptx));
  ToolRun link = link_student_runner(paths_, cr.object, work);
  out.seconds = seconds_since(t0);
  if (!link.ok()) {
    out.log += gpu_runner_link_failed_log(link.started ? link.exit.describe() : link.start_error, link.output);
    const bool dup = link.output.find("multiple definition") != std::string::npos;
    out.state = dup ? GradeState::Rejected : GradeState::CompileError;
    out.why = dup ? defines_grader_symbol_why() : runner_not_linked_why();
    return out;
  }
  const std::string baseline = place_baseline_runner(work, out.log);
  if (baseline.empty()) {
    out.why = baseline_runner_missing_why();
    return out;
  }
  out.baseline_runner = baseline;
  out.ok = true;
  out.state = GradeState::Graded;
  out.runner = work.sub("build/runner");
  return out;
}

std::string GpuBackend::place_baseline_runner(const WorkDir& work, std::string& log) {
  // Once: it may already run (started while the submission builds), and
  // writing over it then would fail.
  if (baseline_copy_.empty()) baseline_copy_ = copy_baseline_runner(paths_, work, log);
  return baseline_copy_;
}

void GpuBackend::sanitizer(const Check& c, const SanitizerContext& ctx, TestResult& t) {
  if (paths_.compute_sanitizer.empty()) {
    mark_not_run(t, sanitizer_not_installed(), Status::Skipped);
    t.max_score = 0;
    return;
  }
  // memcheck: one process over every small case, so an out-of-bounds access
  // on any of their shapes is found; racecheck: one shape drawn per grading.
  const std::vector<SanitizerShape> mem_shapes = memcheck_shapes(c, ctx.cases);
  const SanitizerShape race_shape = racecheck_shape(ctx.seed);
  const std::vector<std::string> tools = {"memcheck", "racecheck"};
  const std::vector<std::vector<SanitizerShape>> shapes = {mem_shapes, {race_shape}};
  std::vector<ToolCommand> commands;
  for (std::size_t i = 0; i < tools.size(); ++i) {
    std::vector<std::string> argv = {paths_.compute_sanitizer, "--tool", tools[i], "--error-exitcode", "10",
                                     "--print-limit", "20"};
    if (tools[i] == "memcheck") argv.insert(argv.end(), {"--check-device-heap", "yes"});
    argv.push_back(ctx.runner);  // started as for a checked run; its launches are asked for after its start-up
    // The runner prints each shape as it starts it: a tool whose output has
    // not grown for kSanitizerQuietS is hung there. It is stopped then rather
    // than at the check's limit, since it holds the shared GPU (every other
    // grading's timing waits behind it).
    commands.push_back({argv, ctx.log_dir + "/" + c.name + "-" + tools[i] + ".txt", c.timeout_s, kSanitizerQuietS,
                        selftest_requests(shapes[i], ctx.seed)});
  }
  // Both tools at once: most of a tool's time is its own start-up on the
  // CPU, which the two then overlap. The GPU is held (shared) from when both
  // runners have answered their Ping, their CUDA contexts made, until their
  // last checked launch has answered: a timing elsewhere waits for those
  // launches only, not for the tools' start-up or ending, and waits at the
  // lock's gate for long holds, the other gradings' cases going on meanwhile.
  log(gpu_sanitizer_log_line(mem_shapes.size(), race_shape.label));
  const auto t0 = Clock::now();
  const std::string& scratch = ctx.runner_config->scratch_dir;
  const Sandbox sandbox = tool_sandbox(ctx);
  const std::vector<std::string> env = runner_environment(scratch);
  std::vector<ToolRun> runs = run_tools(commands, env, scratch, true, kLogCap, false, sandbox, [this]() {
    GateTurn turn;
    turn.critical = shared_hold(SharedHold::Long);
    return turn;
  }, ctx.live_runners());
  // A tool that hung while other gradings shared the GPU may have waited on
  // their kernels: it counts only once seen alone, with the GPU to itself.
  // The hung tools run again together, in one exclusive turn: each costs its
  // quiet limit again, and one after the other they would hold the GPU twice as long.
  std::string again;
  std::vector<std::size_t> hung;
  for (std::size_t i = 0; i < tools.size() && !setup_.gpu_lock.empty(); ++i)
    if (sanitizer_tool_outcome(runs[i], shapes[i], kSanitizerQuietS).hung) hung.push_back(i);
  if (!hung.empty()) {
    std::vector<ToolCommand> rerun;
    for (std::size_t i : hung) {
      log(sanitizer_hung_log_line(tools[i]));
      rerun.push_back(commands[i]);
    }
    std::vector<ToolRun> alone = run_tools(rerun, env, scratch, true, kLogCap, false, sandbox, [this]() {
      GateTurn turn;
      turn.whole = exclusive_hold();
      return turn;
    }, ctx.live_runners());
    for (std::size_t j = 0; j < hung.size(); ++j) {
      runs[hung[j]] = std::move(alone[j]);
      again += sanitizer_ran_again_line(tools[hung[j]]);
    }
  }
  t.seconds = seconds_since(t0);
  if (const std::optional<QuotaOverrun> over = check_tool_runs(*ctx.runner_config, runs, "compute-sanitizer")) {
    t.status = Status::Failed;
    t.verdict = quota_verdict(*over);
    return;
  }
  std::vector<std::string> labels, findings;  // each tool's finding, in the tools' order
  for (const SanitizerShape& s : mem_shapes) labels.push_back(s.label);
  t.detail = gpu_sanitizer_detail(labels, race_shape.label, again, t.seconds);
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const std::string& tool = tools[i];
    const SanitizerToolOutcome o = sanitizer_tool_outcome(runs[i], shapes[i], kSanitizerQuietS);
    if (o.clean) continue;
    findings.push_back(sanitizer_finding(tool, o.what, o.shape));
    t.detail += sanitizer_summary(tool, runs[i]);
    const Diagnosis hint = make_diagnosis(o.hung ? DiagnosisId::HangTimeout
                                          : tool == "racecheck" ? DiagnosisId::RaceSharedMemory : DiagnosisId::MemoryOutOfBounds);
    if (std::find(t.diagnoses.begin(), t.diagnoses.end(), hint) == t.diagnoses.end()) t.diagnoses.push_back(hint);
  }
  t.status = findings.empty() ? Status::Passed : Status::Failed;
  t.verdict = findings.empty() ? gpu_sanitizer_clean_verdict(mem_shapes.size(), race_shape.label, t.seconds)
                               : gpu_sanitizer_failed_verdict(findings, t.seconds);
}

// compute-sanitizer and ncu start the runner (the student's code) and talk
// to it: one sandbox for the tool and the runner, with the runner's folders,
// in the sanitize profile (processes allowed).
Sandbox GpuBackend::tool_sandbox(const SanitizerContext& ctx) const {
  Sandbox sandbox = runner_sandbox(paths_.sandbox, ctx.runner, ctx.runner_config->scratch_dir);
  sandbox.profile = SandboxProfile::Sanitize;
  return sandbox;
}

Sandbox GpuBackend::ncu_sandbox(const SanitizerContext& ctx) const {
  Sandbox sandbox = tool_sandbox(ctx);
  // The toolkit's `ncu` is a launcher that finds Nsight Compute in its own
  // folder's parent or under /opt/nvidia (seen on the H100 machine): both read-only.
  std::error_code ec;
  for (const std::string& dir : {fs::canonical(paths_.ncu, ec).parent_path().parent_path().string(),
                                 std::string("/opt/nvidia")})
    if (!dir.empty() && dir != "/" && fs::is_directory(dir, ec)) sandbox.read_only.push_back(dir);
  return sandbox;
}

ReuseMeasurement GpuBackend::measure_reuse(const Check& c, const SanitizerContext& ctx) {
  if (pm_counts_ && ctx.session) {
    std::string why;
    if (std::optional<ReuseMeasurement> r = measure_reuse_pm(c, ctx, why)) return *r;
    log(counters_unread_log_line(why));
  }
  return measure_reuse_ncu(c, ctx);
}

std::optional<ReuseMeasurement> GpuBackend::measure_reuse_pm(const Check& c, const SanitizerContext& ctx,
                                                             std::string& why) {
  Case shape;  // a correctness case of the check's shape: its time limit
  shape.m = c.m;
  shape.k = c.k;
  shape.n = c.n;
  const PmReuseRun run{[this] { return exclusive_hold(); }, [this] { return load_windows(); },
                       case_time_limit(shape), setup_.log};
  return reuse_from_counters(c, ctx, run, why);
}

ReuseMeasurement GpuBackend::measure_reuse_ncu(const Check& c, const SanitizerContext& ctx) {
  ReuseMeasurement r;
  r.source = ReuseSource::Ncu;
  if (paths_.ncu.empty()) {
    r.why = ncu_not_installed();
    return r;
  }
  // Whether counters need an administrator is read here, by the judge: an
  // ERR_NVGPUCTRPERM that the submission prints itself is no reason to fall back.
  // (ncu runs as the runner's unprivileged user, never as an administrator.)
  const std::optional<bool> admin_only = counters_admin_only();
  if (admin_only.value_or(false)) {
    r.why = ncu_counters_admin_only(true);
    return r;
  }
  r.naive_loads = naive_global_loads(c.m, c.n, c.k);
  const std::string& scratch = ctx.runner_config->scratch_dir;
  // TMPDIR is the scratch folder: ncu's lock and temporary files, where the runner user may write.
  const std::vector<std::string> env = runner_environment(scratch);
  log(ncu_loads_log_line(c.m, c.k, c.n));
  const auto t0 = Clock::now();
  ToolRun run;
  // The profiler is one per GPU: two ncu at once can fail with "a driver
  // resource was unavailable" (grader/bench/RESULTS.md). The gradings of a batch take
  // turns through a lock of their own beside the GPU's (taken first, so that
  // no one holds the GPU while waiting for it); a grading that shares no lock
  // (two TAs' `grade` at once) is tried again after a random pause. The GPU
  // hold is shared, as for the sanitizer: ncu's runner never overlaps a
  // timing. Both are taken only once ncu and its runner's CUDA context have
  // started and the runner has answered its Ping (ncu's start-up and the
  // runner's under it are no part of the turn); the profiler is given back
  // when the runner has answered for its launch, the GPU when ncu has ended.
  const Sandbox sandbox = ncu_sandbox(ctx);
  const std::string gpu_lock = setup_.gpu_lock;
  // In this order: no one holds the GPU while waiting for the profiler. With
  // `alone` the GPU is held to itself (and counted as such).
  auto turn_for = [this, gpu_lock](bool alone) -> TakeTurn {
    return [this, gpu_lock, alone, log = setup_.log]() {  // LockHold logs nothing without a lock
      GateTurn turn;
      turn.critical = std::make_shared<LockHold>(gpu_lock.empty() ? "" : gpu_lock + ".ncu", LockMode::Exclusive,
                                                 nullptr, log, kProfiler);
      if (alone)
        turn.whole = std::shared_ptr<DeviceHold>(exclusive_hold());
      else
        turn.whole = std::make_shared<DeviceLock>(gpu_lock, LockMode::SharedLong);
      return turn;
    };
  };
  const ToolCommand command{ncu_command(paths_.ncu, ctx.runner), ctx.log_dir + "/" + c.name + "-ncu.txt", c.timeout_s,
                            kNcuQuietS, selftest_requests({SanitizerShape{c.m, c.k, c.n, ""}}, ctx.seed)};
  constexpr int kTries = 5;
  std::random_device pause_source;
  bool alone = false;
  for (int attempt = 1; attempt <= kTries; ++attempt) {
    run = run_tools({command}, env, scratch, true, kLogCap, false, sandbox, turn_for(alone), ctx.live_runners()).front();
    if (run.output.find("driver resource was unavailable") == std::string::npos) {
      // A run that hung while other gradings shared the GPU may have waited on
      // their kernels: only a hang seen alone leaves the count to the static check.
      const bool hung = run.started && (run.exit.timed_out || run.went_quiet);
      if (!hung || alone || gpu_lock.empty()) break;
      log(ncu_hung_log_line());
      alone = true;
      continue;
    }
    if (attempt == kTries) {
      r.seconds = seconds_since(t0);
      r.why = ncu_profiler_busy(kTries);
      return r;  // Unavailable: the static check stands in
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500 * attempt + pause_source() % 1500));
  }
  const std::optional<QuotaOverrun> quota = check_tool_runs(*ctx.runner_config, {run}, "ncu");
  const std::string over = quota ? quota_verdict(*quota) : "";
  return ncu_reuse_outcome(c, run, over, admin_only, kNcuQuietS, seconds_since(t0));
}

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(const BackendSetup& setup, std::optional<DeviceDescription> known) {
  return std::make_unique<GpuBackend>(setup, std::move(known));
}

}  // namespace sg
