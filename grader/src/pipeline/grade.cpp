#include "pipeline/grade.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <regex>
#include <stdexcept>

#include "static_checks/static_checks.h"
#include "compare/diagnosis.h"
#include "compare/tolerance.h"
#include "backends/cpu/cpu_build.h"
#include "backends/cpu/source_structure.h"
#include "pipeline/case_report.h"
#include "backends/cpu/cpu_sanitizer.h"
#include "backends/gpu/device_lock.h"
#include "backends/gpu/gpu_oracle.h"
#include "pipeline/inputs.h"
#include "pipeline/runner_session.h"
#include "pipeline/submission.h"
#include "pipeline/timing.h"
#include "process/tool_run.h"
#include "process/process.h"

namespace fs = std::filesystem;

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kLogCap = 64 << 10;
constexpr double kCompileTimeout = 180;
constexpr double kLinkTimeout = 120;
// A deliberately low rate for the CPU backend's fibers (it runs ~0.4 GFLOP/s on 2 cores).
constexpr double kCpuFlopsPerSecondFloor = 1e8;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string find_program(const char* name, const std::vector<std::string>& extra) {
  if (const char* path = std::getenv("PATH")) {
    std::string p(path);
    std::size_t start = 0;
    while (start <= p.size()) {
      std::size_t end = p.find(':', start);
      if (end == std::string::npos) end = p.size();
      std::string cand = p.substr(start, end - start) + "/" + name;
      if (end > start && ::access(cand.c_str(), X_OK) == 0) return cand;
      start = end + 1;
    }
  }
  for (const auto& e : extra)
    if (::access(e.c_str(), X_OK) == 0) return e;
  return "";
}

// The private work folder of one grading, removed afterwards.
class WorkDir {
 public:
  WorkDir(const std::string& root, bool keep) : keep_(keep) {
    std::string base = root;
    if (base.empty()) base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    std::string tmpl = base + "/sgemm-grade-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a work folder under " + base);
    path_ = tmpl;
    ::chmod(path_.c_str(), 0711);  // the unprivileged runner may enter, not list
    for (const char* sub : {"build", "logs", "scratch"}) fs::create_directories(path_ + "/" + sub);
    ::chmod((path_ + "/build").c_str(), 0755);
    ::chmod((path_ + "/logs").c_str(), 0700);
    // The runner's only writable place; given to the runner user when we drop privileges.
    ::chmod((path_ + "/scratch").c_str(), 0777);
  }
  ~WorkDir() {
    if (keep_) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string sub(const std::string& s) const { return path_ + "/" + s; }

 private:
  std::string path_;
  bool keep_;
};

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

double round2(double x) { return std::round(x * 100.0) / 100.0; }

std::string gib(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

struct SanitizerRun {
  std::string tool;  // "check:memcheck"
  ToolRun result;
};

std::string sanitizer_summary(const std::string& tool, const ToolRun& r) {
  // The lines that say what was found, so the feedback is short.
  static const std::regex interesting(
      R"((Invalid (__global__|__shared__)[^\n]*|[^\n]*(hazard|Hazard|Race|race)[^\n]*|[^\n]*ERROR SUMMARY[^\n]*|[^\n]*RACECHECK SUMMARY[^\n]*|[^\n]*by thread[^\n]*))");
  std::string out;
  int lines = 0;
  for (std::sregex_iterator it(r.output.begin(), r.output.end(), interesting), end; it != end && lines < 12;
       ++it, ++lines)
    out += "  " + it->str() + "\n";
  if (out.empty()) out = r.output.substr(0, 2000);
  return tool + ": " + r.exit.describe() + "\n" + out;
}

struct PreparedCase {
  CaseInputs in;
  std::vector<double> c64, abs_ab;
};

// One checked launch, compared with the oracle (when the runner answered).
struct CheckedRun {
  CaseOutcome out;
  std::optional<Comparison> cmp;
  bool differs = false;  // a second launch on the same inputs gave other bits
};

class Grader {
 public:
  Grader(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths)
      : suite_(suite), opts_(opts), paths_(paths), work_(opts.work_root, opts.keep_work) {}

  GradeResult run();

 private:
  void log(const std::string& line) const {
    if (opts_.log) opts_.log(line);
  }
  bool wanted(Visibility v) const { return !opts_.public_only || v == Visibility::Public; }
  void add_all_tests();
  void fail_all(const std::string& state, const std::string& why);
  bool build_gpu(const std::string& kernel);
  bool build_cpu(const std::string& kernel);
  void structure_check(const std::string& ptx);
  void run_sanitizers();
  void finish_sanitizers();
  // A performance case that was checked and now waits for its timing; the
  // runner keeps it on the device under keep_slot.
  struct TimedCase {
    const Case* c;
    std::size_t pi;  // its performance test
    int keep_slot;
    PreparedCase prepared;
    int generation;  // the runner that keeps it
  };
  CheckedRun checked_run(const Case& c, const PreparedCase& prepared, int keep_slot);
  // Runs and records the correctness test r_.tests[ci]; true when correct.
  bool check_case(const Case& c, std::size_t ci, const PreparedCase& prepared, int keep_slot);
  void correctness_case(const Case& c, std::size_t ci);
  // The untimed half of a performance case: its correctness test, and the
  // case kept in the runner when it is right.
  std::optional<TimedCase> check_performance_case(const Case& c, std::size_t ci, int keep_slot,
                                                  PreparedCase prepared);
  // The timed half, run while this grading holds the GPU to itself.
  void time_case(TimedCase& timed);
  // Why a case cannot run on this GPU (too little memory), or empty.
  std::string too_big(const Case& c) const;
  // A case's inputs and FP64 oracle result. The second thread passes
  // own_hold: it takes a hold of its own whatever the main thread holds.
  PreparedCase prepare(const Case& c, bool own_hold = false);
  // A shared hold on the GPU for one untimed step (nothing while this grading
  // already holds it, or on the CPU backend). Only the main thread may ask
  // (a nested request would wait behind a timing that waits for us).
  std::unique_ptr<DeviceLock> untimed_gpu_hold();
  std::unique_ptr<DeviceLock> take_shared_hold();
  void diagnose_across_cases();
  TestResult* find(const std::string& name);

  const Suite& suite_;
  const GradeOptions& opts_;
  const GraderPaths& paths_;
  WorkDir work_;
  GradeResult r_;
  std::string runner_;       // the linked runner binary
  std::string ptx_;
  DeviceDescription device_;
  std::unique_ptr<GpuOracle> oracle_;
  // The judge's CUDA start-up (the device's description, then its oracle),
  // run beside the compiler.
  struct GpuStart {
    DeviceDescription device;
    std::unique_ptr<GpuOracle> oracle;
  };
  std::future<GpuStart> gpu_start_;
  std::string build_arch_;  // what the submission is compiled for first ("sm_90")
  // Starts the thread; `known` is the description run() already has, if any.
  void start_gpu(std::optional<DeviceDescription> known);
  // Waits for the thread and takes its device, oracle and free memory.
  void finish_gpu_start();
  RunnerConfig runner_config_;  // how this grading's runners are started
  std::unique_ptr<RunnerSession> session_;
  std::vector<SanitizerRun> sanitizers_;
  // The runner's --selftest exits with 100 + token % 100 only after its launch completed.
  unsigned selftest_token_ = static_cast<unsigned>(secret_seed() % 100000);
  std::vector<SizeOutcome> outcomes_;
  std::optional<DeviceLock> timing_;               // held from the first timed case to the last
  std::mutex oracle_mutex_;  // the timed cases' oracles are made on a second thread
  std::mutex hold_stats_mutex_;
  double shared_wait_s_ = 0;  // time spent waiting for untimed holds
  int shared_holds_ = 0;
};

TestResult* Grader::find(const std::string& name) {
  for (auto& t : r_.tests)
    if (t.name == name) return &t;
  return nullptr;
}

void Grader::add_all_tests() {
  for (const Case& c : suite_.cases) {
    if (!wanted(c.visibility)) continue;
    r_.tests.push_back(new_test(c));
    if (c.has_performance) r_.tests.push_back(new_performance_test(c));
  }
  for (const Check& c : suite_.checks)
    if (wanted(c.visibility)) r_.tests.push_back(new_check_test(c));
}

void Grader::fail_all(const std::string& state, const std::string& why) {
  r_.state = state;
  for (auto& t : r_.tests) mark_not_run(t, "not run: " + why);
}

void Grader::start_gpu(std::optional<DeviceDescription> known) {
  gpu_start_ = std::async(std::launch::async, [known] {
    GpuStart s;
    s.device = known ? *known : describe_device();
    if (s.device.present) s.oracle = std::make_unique<GpuOracle>();
    return s;
  });
}

void Grader::finish_gpu_start() {
  GpuStart started = gpu_start_.get();  // rethrows an internal CUDA error
  if (!started.device.present) throw UsageError("--backend gpu: no usable GPU (" + started.device.why_not + ")");
  device_ = started.device;
  oracle_ = std::move(started.oracle);
  device_.free_bytes = oracle_->free_device_bytes();
  r_.device = device_.name + " (" + device_.arch() + ")";
}

bool Grader::build_gpu(const std::string& kernel) {
  Toolchain tc;
  tc.nvcc = paths_.nvcc;
  tc.arch = build_arch_;
  const auto t0 = Clock::now();
  CompileResult cr = compile_submission(tc, kernel, work_.sub("build"), kCompileTimeout);
  finish_gpu_start();
  if (device_.arch() != tc.arch) {
    // The caller's --device-arch was not this GPU's: build again for the right one.
    log("building again for " + device_.arch() + " (not " + tc.arch + ")");
    tc.arch = device_.arch();
    cr = compile_submission(tc, kernel, work_.sub("build"), kCompileTimeout);
  }
  r_.build_log = cr.log;
  if (!cr.ok) {
    r_.compile_time = seconds_since(t0);
    fail_all("compile error", "the submission did not compile");
    return false;
  }
  ptx_ = cr.ptx;
  SymbolReport sym = check_symbols(tc, cr.object);
  if (!sym.ok) {
    r_.compile_time = seconds_since(t0);
    std::string why;
    for (const auto& p : sym.problems) why += (why.empty() ? "" : "; ") + p;
    r_.build_log += "\nrejected by the static checks:\n";
    for (const auto& p : sym.problems) r_.build_log += "  " + p + "\n";
    fail_all("rejected", "rejected: " + why);
    return false;
  }
  runner_ = work_.sub("build/runner");
  const std::string& o = paths_.runner_objects;
  ToolRun link = run_tool({paths_.nvcc, "-o", runner_, o + "/runner_main.o", o + "/ref_tiled.o", o + "/ref_naive.o",
                           o + "/protocol.o", cr.object, "-cudart", "static"},
                          scrubbed_environment(work_.sub("build")), work_.sub("build"), work_.sub("logs/link.txt"),
                          kLinkTimeout, false, kLogCap);
  r_.compile_time = seconds_since(t0);
  if (!link.ok()) {
    r_.build_log += "\nlinking the runner failed (" + (link.started ? link.exit.describe() : link.start_error) +
                    "):\n" + link.output;
    const bool dup = link.output.find("multiple definition") != std::string::npos;
    fail_all(dup ? "rejected" : "compile error",
             dup ? "rejected: the submission defines a symbol the grader or the CUDA runtime defines (see the link log)"
                 : "the runner could not be linked with the submission");
    return false;
  }
  ::chmod(runner_.c_str(), 0755);
  return true;
}

bool Grader::build_cpu(const std::string& kernel) {
  CpuPaths cp;
  cp.include_dir = paths_.cpu_include;
  cp.library = paths_.cpu_library;
  cp.runner_object = paths_.cpu_runner_object;
  const auto t0 = Clock::now();
  CpuBuildResult b = build_cpu_runner(kernel, work_.sub("build"), cp, kCompileTimeout);
  r_.compile_time = seconds_since(t0);
  r_.build_log = b.log;
  if (!b.ok) {
    fail_all("compile error", "the submission did not build for the CPU backend");
    return false;
  }
  runner_ = b.runner;
  ::chmod(runner_.c_str(), 0755);
  // Symbols and structure are still checked from an nvcc object where nvcc exists.
  if (!paths_.nvcc.empty()) {
    Toolchain tc;
    tc.nvcc = paths_.nvcc;
    CompileResult cr = compile_submission(tc, kernel, work_.sub("build"), kCompileTimeout);
    r_.compile_time = seconds_since(t0);
    if (!cr.ok) {
      r_.build_log += "\n" + cr.log;
      fail_all("compile error", "the submission did not compile with nvcc");
      return false;
    }
    SymbolReport sym = check_symbols(tc, cr.object);
    if (!sym.ok) {
      std::string why;
      for (const auto& p : sym.problems) why += (why.empty() ? "" : "; ") + p;
      fail_all("rejected", "rejected: " + why);
      return false;
    }
    ptx_ = cr.ptx;
  }
  return true;
}

void Grader::structure_check(const std::string& ptx) {
  for (const Check& c : suite_.checks) {
    if (c.kind != CheckKind::SharedAndBarrier) continue;
    TestResult* t = find(c.name);
    if (!t) continue;
    // From the PTX where nvcc exists, else from the source (e.g. on Gradescope).
    StructureReport s = ptx.empty() ? check_structure_source(read_text(work_.sub("build/kernel.cu")))
                                    : check_structure(ptx);
    const bool ok = s.found_kernel && s.uses_shared && s.uses_barrier;
    t->status = ok ? Status::Passed : Status::Failed;
    t->score = ok ? t->max_score : 0;
    if (!s.found_kernel) t->verdict = "mysgemm not found in the compiled code";
    else if (ok) t->verdict = "mysgemm uses shared memory and a barrier";
    else if (!s.uses_shared && !s.uses_barrier) t->verdict = "mysgemm uses neither shared memory nor __syncthreads";
    else if (!s.uses_shared) t->verdict = "mysgemm does not use shared memory";
    else t->verdict = "mysgemm never calls __syncthreads";
    t->detail = s.detail;
    if (!ok)
      t->diagnoses.push_back("the assignment asks for a tiled kernel: stage 16x16 tiles of A and B in __shared__ "
                             "arrays and separate loading from computing with __syncthreads");
  }
}

void Grader::run_sanitizers() {
  for (const Check& c : suite_.checks) {
    if (c.kind != CheckKind::Sanitizer) continue;
    TestResult* t = find(c.name);
    if (!t) continue;
    if (r_.backend != "gpu") {
      log("sanitizer (CPU backend: red zones and both thread orders)");
      cpu_sanitizer_check(c, runner_config_, work_.sub("logs/" + c.name), r_.seed, *t);
      t->score = t->status == Status::Passed ? t->max_score : 0;
      continue;
    }
    if (paths_.compute_sanitizer.empty()) {
      mark_not_run(*t, "not run: compute-sanitizer is not installed on this machine", Status::Skipped);
      t->max_score = 0;
      continue;
    }
    const std::vector<std::string> tools = {"memcheck", "racecheck"};
    std::vector<ToolCommand> commands;
    for (const std::string& tool : tools) {
      std::vector<std::string> argv = {paths_.compute_sanitizer, "--tool", tool, "--error-exitcode", "10",
                                       "--print-limit", "20"};
      if (tool == "memcheck") {
        argv.push_back("--check-device-heap");
        argv.push_back("yes");
      }
      for (const std::string& a : {runner_, std::string("--selftest"), std::to_string(c.m), std::to_string(c.k),
                                   std::to_string(c.n), std::to_string(r_.seed % 1000000),
                                   std::to_string(selftest_token_)})
        argv.push_back(a);
      commands.push_back({argv, work_.sub("logs/" + c.name + "-" + tool + ".txt"), c.timeout_s});
    }
    // Both tools at once, under one hold: most of a tool's time is its own
    // start-up on the CPU, which the two then overlap.
    log("sanitizer memcheck and racecheck");
    const auto hold = untimed_gpu_hold();
    std::vector<ToolRun> runs = run_tools(commands, scrubbed_environment(work_.sub("scratch")), work_.sub("scratch"),
                                          true, kLogCap, false);
    for (std::size_t i = 0; i < tools.size(); ++i) sanitizers_.push_back({c.name + ":" + tools[i], std::move(runs[i])});
  }
}

void Grader::finish_sanitizers() {
  for (auto& s : sanitizers_) {
    const std::string check = s.tool.substr(0, s.tool.find(':'));
    const std::string tool = s.tool.substr(s.tool.find(':') + 1);
    const ToolRun& run = s.result;
    TestResult* t = find(check);
    if (!t) continue;
    const int expected_code = 100 + static_cast<int>(selftest_token_ % 100);
    const bool clean = run.started && run.exit.exited && run.exit.code == expected_code;
    if (t->status == Status::Skipped && t->verdict.empty()) {  // first tool's result
      t->status = clean ? Status::Passed : Status::Failed;
      t->verdict = clean ? "compute-sanitizer memcheck and racecheck found no errors" : "";
    }
    if (!clean) {
      if (t->status == Status::Passed) t->verdict.clear();  // the first tool's "no errors" no longer holds
      t->status = Status::Failed;
      std::string what = !run.started ? "could not start: " + run.start_error
                         : run.exit.timed_out ? "timed out"
                         : (run.exit.exited && run.exit.code == 10) ? "found errors"
                         : (run.exit.exited && run.exit.code == 0)
                             ? "the program ended before its launch completed (exit with status 0)"
                             : "the program failed (" + run.exit.describe() + ")";
      t->verdict += std::string(t->verdict.empty() ? "" : "; ") + tool + " " + what;
      t->detail += sanitizer_summary(tool, run);
      t->diagnoses.push_back(tool == "racecheck" ? kRaceHint : kOutOfBoundsHint);
    }
    t->score = t->status == Status::Passed ? t->max_score : 0;
  }
  // A kernel that does nothing is trivially clean: the check only pays for
  // a kernel that computes something right.
  bool any_correct = false;
  for (const auto& t : r_.tests) any_correct |= (t.kind == "correctness" && t.status == Status::Passed);
  for (const Check& c : suite_.checks) {
    TestResult* t = c.kind == CheckKind::Sanitizer ? find(c.name) : nullptr;
    if (t && t->status == Status::Passed && !any_correct) {
      t->status = Status::Failed;
      t->score = 0;
      t->verdict = "no points: the sanitizer found nothing, but no correctness case passed "
                   "(a kernel that does no work is trivially clean)";
    }
  }
  sanitizers_.clear();
}

std::string Grader::too_big(const Case& c) const {
  if (r_.backend != "gpu") return "";
  const double mk = double(c.m) * c.k, kn = double(c.k) * c.n, mn = double(c.m) * c.n;
  const double runner_bytes = 4 * (mk + kn + 2 * mn) + 256.0 * (1 << 20);
  const double oracle_bytes = 8 * 2 * (mk + kn) + 8 * mn;
  const double need = runner_bytes + oracle_bytes;
  if (device_.free_bytes == 0 || need <= 0.9 * double(device_.free_bytes)) return "";
  return "not run: the case needs about " + gib(need) + " of GPU memory and the GPU has " +
         gib(double(device_.free_bytes)) + " free";
}

std::unique_ptr<DeviceLock> Grader::untimed_gpu_hold() {
  if (timing_) return nullptr;
  return take_shared_hold();
}

std::unique_ptr<DeviceLock> Grader::take_shared_hold() {
  if (r_.backend != "gpu" || opts_.gpu_lock.empty()) return nullptr;
  const auto t0 = Clock::now();
  auto hold = std::make_unique<DeviceLock>(opts_.gpu_lock, false);
  const std::lock_guard<std::mutex> stats(hold_stats_mutex_);
  shared_wait_s_ += seconds_since(t0);
  ++shared_holds_;
  return hold;
}

PreparedCase Grader::prepare(const Case& c, bool own_hold) {
  PreparedCase p;
  p.in = make_inputs(c, r_.seed);  // host work: no hold, so a waiting timing is not kept waiting
  if (oracle_) {
    const auto hold = own_hold ? take_shared_hold() : untimed_gpu_hold();
    const std::lock_guard<std::mutex> one_at_a_time(oracle_mutex_);
    oracle_->oracle(c.m, c.n, c.k, p.in.a.data(), p.in.b.data(), p.c64, p.abs_ab);
  } else {
    host_oracle(c.m, c.n, c.k, p.in.a.data(), p.in.b.data(), p.c64, p.abs_ab);
  }
  return p;
}

CheckedRun Grader::checked_run(const Case& c, const PreparedCase& prepared, int keep_slot) {
  CheckedRun run;
  const CaseInputs& in = prepared.in;
  const double timeout = case_time_limit(c, r_.backend);
  {
    const auto hold = untimed_gpu_hold();
    run.out = session_->run(c.m, c.k, c.n, in.a, in.b, timeout, keep_slot);
  }
  if (run.out.kind != CaseOutcome::Kind::Ok) return run;
  CompareInput ci_in;
  ci_in.m = c.m;
  ci_in.n = c.n;
  ci_in.k = c.k;
  ci_in.c = run.out.reply.c.data();
  ci_in.c64 = prepared.c64.data();
  ci_in.abs_ab = prepared.abs_ab.data();
  ci_in.factor = c.tolerance_factor;
  ci_in.exact = c.exact;
  run.cmp = compare(ci_in);
  if (run.cmp->wrong > 0 && r_.backend == "gpu" && double(c.m) * c.n * c.k <= 2e9) {
    // Run the same inputs again: an output that moves is a race, not a formula
    // bug. (The CPU backend's schedule is fixed: its output never moves.)
    const auto hold = untimed_gpu_hold();
    CaseOutcome again = session_->run(c.m, c.k, c.n, in.a, in.b, timeout);
    if (again.kind == CaseOutcome::Kind::Ok)
      run.differs = std::memcmp(again.reply.c.data(), run.out.reply.c.data(),
                                sizeof(float) * run.out.reply.c.size()) != 0;
  }
  return run;
}

bool Grader::check_case(const Case& c, std::size_t ci, const PreparedCase& prepared, int keep_slot) {
  TestResult& t = r_.tests[ci];
  const auto t0 = Clock::now();
  log("case " + c.name + " (" + std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n) + ")");
  CheckedRun run = checked_run(c, prepared, keep_slot);
  t.seconds = seconds_since(t0);
  if (run.out.kind != CaseOutcome::Kind::Ok) {
    record_runner_failure(t, run.out);
    outcomes_.push_back({c.m, c.k, c.n, false});
    return false;
  }
  const bool correct = run.cmp->wrong == 0;
  record_comparison(t, c, std::move(*run.cmp), run.differs);
  if (const unsigned sms = run.out.reply.header.checked_launch_sms; sms > 0)
    t.detail += "checked on a partition of " + std::to_string(sms) +
                " SMs (as every case after the runner failed once); timed launches use the whole GPU\n";
  if (!run.out.reply.message.empty()) note_out_of_bounds(t, run.out.reply.message);
  outcomes_.push_back({c.m, c.k, c.n, correct});
  return correct;
}

void Grader::correctness_case(const Case& c, std::size_t ci) {
  if (const std::string why = too_big(c); !why.empty()) {
    mark_not_run(r_.tests[ci], why, Status::Skipped);
    return;
  }
  check_case(c, ci, prepare(c), 0);
}

std::optional<Grader::TimedCase> Grader::check_performance_case(const Case& c, std::size_t ci, int keep_slot,
                                                                PreparedCase prepared) {
  const std::size_t pi = ci + 1;
  if (r_.backend == "cpu") {
    for (std::size_t i : {ci, pi}) {
      TestResult& x = r_.tests[i];
      mark_not_run(x, "not measured on the CPU backend (performance cases need a GPU)", Status::Skipped);
      x.detail = "worth " + std::to_string(x.max_score) + " points when graded on a GPU";
      x.max_score = 0;
    }
    return std::nullopt;
  }
  if (const std::string why = too_big(c); !why.empty()) {
    for (std::size_t i : {ci, pi}) mark_not_run(r_.tests[i], why, Status::Skipped);
    return std::nullopt;
  }
  if (prepared.in.a.empty()) prepared = prepare(c);  // not made ahead
  TimedCase timed{&c, pi, keep_slot, std::move(prepared), 0};
  if (!check_case(c, ci, timed.prepared, keep_slot)) {
    const TestResult& t = r_.tests[ci];
    mark_not_run(r_.tests[pi], t.comparison ? "no performance points: the case's result is wrong"
                                            : "not measured: " + t.verdict);
    return std::nullopt;
  }
  timed.generation = session_->generation();
  return timed;
}

void Grader::time_case(TimedCase& timed) {
  const Case& c = *timed.c;
  TestResult& p = r_.tests[timed.pi];
  const auto t0 = Clock::now();
  log("timing " + c.name);
  if (session_->generation() != timed.generation) {
    // A later case restarted the runner, which lost this one: check it again
    // (its result must still be right) so that there is something to time.
    CheckedRun again = checked_run(c, timed.prepared, timed.keep_slot);
    if (again.out.kind != CaseOutcome::Kind::Ok || again.cmp->wrong > 0) {
      mark_not_run(p, "not measured: the case failed when it was run again before timing (" +
                          (again.out.kind != CaseOutcome::Kind::Ok ? again.out.cause : std::string("wrong result")) +
                          ")");
      return;
    }
  }
  const int samples = c.performance.samples;
  CaseOutcome out = session_->time_kept(timed.keep_slot, c.m, c.k, c.n, samples, c.performance.warmups,
                                        case_time_limit(c, r_.backend));
  if (out.kind != CaseOutcome::Kind::Ok) {
    mark_not_run(p, "not measured: the timed launches failed: " + out.cause);
    p.seconds = seconds_since(t0);
    return;
  }
  const CaseInputs& in = timed.prepared.in;
  TimingEvidence e;
  e.m = c.m;
  e.k = c.k;
  e.n = c.n;
  e.student_ms = out.reply.student_ms;
  e.reference_ms = out.reply.reference_ms;
  e.naive_ms = out.reply.naive_ms;
  e.wall_ms = out.reply.wall_ms;
  e.timed_mismatch = out.reply.timed_mismatch;
  e.judge_wall_ms = out.judge_wall_ms;
  e.cublas_ms = oracle_->time_sgemm(c.m, c.n, c.k, in.a.data(), in.b.data(), std::max(5, samples / 2));
  Timing tm = evaluate_timing(e);
  p.score = round2(performance_points(c.performance, tm));
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "speedup %.3f vs the reference tiled kernel (%.3f ms vs %.3f ms; full points at %.2f, none at %.2f); "
                "%.0f GFLOP/s, %.1f%% of cuBLAS",
                tm.speedup, tm.student_ms, tm.reference_ms, c.performance.full_at, c.performance.zero_at,
                tm.student_gflops, tm.cublas_gflops > 0 ? 100.0 * tm.student_gflops / tm.cublas_gflops : 0.0);
  p.verdict = buf;
  std::snprintf(buf, sizeof buf,
                "median of %d samples; student %.3f ms (spread %.1f%%), reference %.3f ms, naive %.3f ms, cuBLAS %.3f ms\n",
                tm.samples, tm.student_ms, 100 * tm.student_spread, tm.reference_ms, tm.naive_ms, tm.cublas_ms);
  p.detail = buf;
  if (tm.implausible) {
    p.verdict = "implausible timing, no performance points: " + tm.implausible_reason;
    p.status = Status::Failed;
  } else {
    p.status = p.score >= p.max_score - 1e-9 ? Status::Passed : (p.score > 0 ? Status::Partial : Status::Failed);
    if (!r_.leaderboard_gflops || tm.student_gflops > *r_.leaderboard_gflops) r_.leaderboard_gflops = tm.student_gflops;
  }
  p.timing = tm;
  p.seconds = seconds_since(t0);
}

void Grader::diagnose_across_cases() {
  std::vector<std::string> across = diagnose_across(outcomes_);
  if (across.empty()) return;
  for (auto& t : r_.tests)
    if (t.kind == "correctness" && t.status == Status::Failed && t.comparison)
      for (const auto& d : across) t.diagnoses.push_back(d);
}

GradeResult Grader::run() {
  const auto t0 = Clock::now();
  auto phase_start = t0;
  auto end_phase = [&](const char* name) {
    r_.phase_seconds.emplace_back(name, seconds_since(phase_start));
    phase_start = Clock::now();
  };
  LocatedSubmission sub = locate_submission(opts_.submission);  // throws UsageError
  r_.submission = opts_.submission;
  r_.student = opts_.student.empty() ? fs::path(opts_.submission).filename().string() : opts_.student;
  if (r_.student.empty()) r_.student = fs::path(opts_.submission).parent_path().filename().string();
  r_.suite_name = suite_.name;
  r_.suite_path = suite_.path;
  r_.seed_given = opts_.seed.has_value();
  r_.seed = opts_.seed ? *opts_.seed : secret_seed();

  std::string backend = opts_.backend;
  if (!opts_.device_arch.empty() && backend != "cpu") {
    // The caller knows the GPU (grade batch): the GPU thread describes it
    // while the submission compiles for the architecture given.
    backend = "gpu";
    build_arch_ = opts_.device_arch;
  } else {
    device_ = describe_device();
    if (backend == "auto") backend = device_.present ? "gpu" : "cpu";
    if (backend == "gpu" && !device_.present) throw UsageError("--backend gpu: no usable GPU (" + device_.why_not + ")");
    build_arch_ = device_.arch();
  }
  if (backend == "gpu" && paths_.nvcc.empty()) throw UsageError("--backend gpu: nvcc not found (PATH, /usr/local/cuda/bin)");
  r_.backend = backend;
  if (backend == "cpu")
    r_.device = "host CPU (correctness only)";
  else if (device_.present)
    r_.device = device_.name + " (" + device_.arch() + ")";
  else
    r_.device = "a GPU for " + build_arch_ + " (not started: nothing was built)";
  add_all_tests();
  end_phase("setup");

  if (!sub.problem.empty()) {
    fail_all("invalid submission", sub.problem);
    r_.build_log = sub.problem;
    r_.execution_time = seconds_since(t0);
    return r_;
  }
  // CUDA starts (the oracle's context) while the submission compiles.
  if (backend == "gpu") start_gpu(device_.present ? std::optional<DeviceDescription>(device_) : std::nullopt);
  // Grade a private copy: the submission cannot change under us.
  const std::string kernel = work_.sub("build/kernel.cu");
  fs::copy_file(sub.kernel, kernel, fs::copy_options::overwrite_existing);

  log("building (" + backend + ")");
  if (!(backend == "gpu" ? build_gpu(kernel) : build_cpu(kernel))) {
    r_.execution_time = seconds_since(t0);
    return r_;
  }
  structure_check(ptx_);
  end_phase("build");

  RunnerConfig& rc = runner_config_;
  rc.argv = {runner_};
  rc.env = scrubbed_environment(work_.sub("scratch"));
  rc.scratch_dir = work_.sub("scratch");
  rc.log_dir = work_.sub("logs");
  rc.drop_privileges = true;
  // CUDA's driver does not work inside a fresh PID namespace (seen on the
  // H200 machine: cudaMalloc fails); GPU runners rely on the /proc sweep,
  // the process group and RLIMIT_NPROC instead.
  rc.pid_namespace = r_.backend != "gpu";
  // After a runner fails, the checked launches run on 16 SMs: a fault there
  // stalls the GPU for about 0.12 s instead of 0.72 s (all 132 SMs of an H100,
  // grader/bench/crash_cost.sh), while a correct kernel is only slowed in the
  // checked launch, not in the timed ones.
  rc.partition_sms_after_failure = r_.backend == "gpu" ? 16 : 0;
  session_ = std::make_unique<RunnerSession>(rc);

  // The sanitizer first (its tools start their own processes), then the
  // correctness cases and the timed cases in one runner: each CUDA process
  // started costs start-up time that several graders of one GPU queue for.
  // On a shared GPU each untimed step holds the GPU shared; the timed cases
  // hold it exclusive from the first to the last.
  // The timed cases' inputs and oracle results are made on a second thread
  // meanwhile: the judge mostly waits while the sanitizer runs.
  std::future<std::map<std::string, PreparedCase>> timed_inputs;
  if (r_.backend == "gpu")
    timed_inputs = std::async(std::launch::async, [this] {
      std::map<std::string, PreparedCase> made;
      for (const Case& c : suite_.cases)
        if (c.has_performance && wanted(c.visibility) && too_big(c).empty()) made.emplace(c.name, prepare(c, true));
      return made;
    });
  run_sanitizers();
  end_phase("sanitizer");
  auto index_of = [&](const Case& c) {
    std::size_t i = 0;
    while (r_.tests[i].name != c.name) ++i;
    return i;
  };
  // Each case holds the GPU shared on its own. (One hold over all of them
  // was tried: fewer waits for it, but longer ones for everybody's timings,
  // and fewer gradings per minute in all.)
  for (const Case& c : suite_.cases)
    if (wanted(c.visibility) && !c.has_performance) correctness_case(c, index_of(c));
  finish_sanitizers();  // its points need a correct case
  end_phase("correctness");
  // Performance cases: each is checked (untimed) and kept in the runner; then
  // all of them are timed in one exclusive hold, which covers the timed
  // launches only. (The runner keeps at most kMaxKeptSlots cases at once.)
  std::vector<TimedCase> to_time;
  auto time_kept_cases = [&](bool last) {
    if (last) end_phase("prepare");
    if (!to_time.empty()) {
      if (!opts_.gpu_lock.empty()) log("waiting for the GPU to itself (timed cases)");
      timing_.emplace(opts_.gpu_lock, true);
    }
    if (last) end_phase("gpu_wait");
    for (TimedCase& t : to_time) time_case(t);
    timing_.reset();  // the timings are done: let the next grading's timing start
    to_time.clear();
  };
  std::map<std::string, PreparedCase> made = timed_inputs.valid() ? timed_inputs.get() : decltype(made){};
  for (const Case& c : suite_.cases) {
    if (!wanted(c.visibility) || !c.has_performance) continue;
    if (to_time.size() == static_cast<std::size_t>(proto::kMaxKeptSlots)) time_kept_cases(false);
    const int slot = static_cast<int>(to_time.size()) + 1;
    auto it = made.find(c.name);
    PreparedCase prepared = it != made.end() ? std::move(it->second) : PreparedCase{};
    if (auto timed = check_performance_case(c, index_of(c), slot, std::move(prepared)))
      to_time.push_back(std::move(*timed));
  }
  time_kept_cases(true);
  if (shared_holds_ > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "shared GPU: %d untimed holds waited %.2f s in all", shared_holds_, shared_wait_s_);
    log(buf);
  }
  session_->stop();
  end_phase("performance");
  r_.student_output = session_->captured_output(kLogCap);
  session_.reset();
  kill_all_descendants();
  diagnose_across_cases();
  r_.execution_time = seconds_since(t0);
  return r_;
}

}  // namespace

double case_time_limit(const Case& c, const std::string& backend) {
  const double flop = 2.0 * c.m * double(c.n) * c.k;
  return c.timeout_s + (backend == "cpu" ? flop / kCpuFlopsPerSecondFloor : 0.0);
}

GraderPaths GraderPaths::discover() {
  GraderPaths p;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  p.home = ec ? fs::current_path().string() : exe.parent_path().string();
  p.source_root = fs::weakly_canonical(fs::path(p.home) / "..", ec).string();
  if (const char* root = std::getenv("SG_SOURCE_ROOT_OVERRIDE")) p.source_root = root;
  p.nvcc = std::getenv("NVCC") && ::access(std::getenv("NVCC"), X_OK) == 0
               ? std::getenv("NVCC")
               : find_program("nvcc", {"/usr/local/cuda/bin/nvcc"});
  std::vector<std::string> san_extra = {"/usr/local/cuda/bin/compute-sanitizer"};
  if (!p.nvcc.empty()) san_extra.insert(san_extra.begin(), fs::path(p.nvcc).parent_path().string() + "/compute-sanitizer");
  p.compute_sanitizer = find_program("compute-sanitizer", san_extra);
  p.runner_objects = p.home + "/runner";
  p.cpu_include = p.source_root + "/grader/src/backends/cpu/runtime/include";
  p.cpu_library = p.home + "/cpu/libcudacpu.a";
  p.cpu_runner_object = p.home + "/cpu/cpu_runner.o";
  return p;
}

GradeResult grade(const Suite& suite, const GradeOptions& opts, const GraderPaths& paths) {
  Grader g(suite, opts, paths);
  return g.run();
}

}  // namespace sg
