// `grade`: grades one submission and writes the reports (grader/ARCHITECTURE.md).
// Exit codes: 0 graded (whatever the score), 2 usage or suite error, 3 internal error.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include "backends/gpu/cuda_connections.h"
#include "cli/batch_cli.h"
#include "cli/options.h"
#include "pipeline/grade.h"
#include "services/limits.h"
#include "services/submission.h"
#include "report/writers.h"
#include "process/process.h"
#include "suite/suite_loader.h"

namespace fs = std::filesystem;

namespace {

// Ends the whole grading if it runs far past what the suite allows: no
// submission can keep the grader from finishing.
class Watchdog {
 public:
  explicit Watchdog(double seconds) : thread_([this, seconds] { watch(seconds); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void watch(double seconds) {
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) return;
    std::fprintf(stderr, "grade: internal error: grading exceeded its %.0f s watchdog; stopping\n", seconds);
    sg::kill_all_descendants();
    std::_Exit(3);
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Fail early, before any grading work, when the reports could not be written,
// or could be written somewhere else: the folder must be a real folder of
// this user, not a link or a folder someone else made (in /tmp, say).
std::string check_output_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create output folder " + dir + ": " + ec.message();
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return "cannot examine output folder " + dir;
  if (S_ISLNK(st.st_mode)) return "output folder " + dir + " is a symbolic link; give the real folder";
  if (st.st_uid != ::geteuid())
    return "output folder " + dir + " belongs to another user (uid " + std::to_string(st.st_uid) +
           "); give a folder of your own";
  const std::string probe = dir + "/.grade-write-test";
  {
    std::ofstream f(probe);
    if (!f) return "cannot write into output folder " + dir;
  }
  fs::remove(probe, ec);
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread (setenv is not thread-safe) and before CUDA starts
  // here: the judge's own context asks for one work queue, as its runners do
  // (backends/gpu/cuda_connections.h); a batch's grade processes inherit it.
  ::setenv(sg::kCudaConnectionsVariable, sg::kCudaConnections, 1);
  if (argc > 1 && std::string(argv[1]) == "batch") return sg::batch_main(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "merge") return sg::merge_main(argc - 1, argv + 1);
  sg::CliOptions cli;
  std::string error;
  if (!sg::parse_cli(argc, argv, cli, error)) {
    std::fprintf(stderr, "grade: %s\n\n%s", error.c_str(), sg::usage_text().c_str());
    return 2;
  }
  if (cli.help) {
    std::fputs(sg::usage_text().c_str(), stdout);
    return 0;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a runner that dies mid-write must not kill the judge
  sg::become_subreaper();
  // Before any thread starts (a mount namespace is per thread): where it may,
  // this process mounts its grading's disk quotas where no one else sees them.
  const char* no_quota = std::getenv("SG_NO_DISK_QUOTA");
  const sg::PrivateMounts mounts = sg::enter_private_mounts(no_quota ? no_quota : "");
  try {
    sg::GraderPaths paths = sg::GraderPaths::discover();
    if (cli.suite.empty()) cli.suite = paths.source_root + "/testcases/default.yaml";
    sg::Suite suite = sg::load_suite_file(cli.suite);
    if (std::string why = check_output_dir(cli.out); !why.empty()) {
      std::fprintf(stderr, "grade: %s\n", why.c_str());
      return 2;
    }
    sg::GradeOptions opts;
    opts.submission = cli.submission;
    opts.student = cli.student;
    opts.seed = cli.seed;
    opts.public_only = cli.public_only;
    opts.backend = cli.backend;
    opts.keep_work = cli.keep_work;
    opts.gpu_lock = cli.gpu_lock;
    opts.device_arch = cli.device_arch;
    opts.mounts = mounts;
    if (!cli.quiet) {
      // Seconds since the start on each line: a batch's grade.log then shows where the time went.
      const auto t0 = std::chrono::steady_clock::now();
      // The first line says when, on the wall clock: a batch's logs then line up.
      const auto wall = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      std::fprintf(stderr, "grade:   0.00s started at %.3f (seconds since 1970, UTC)\n", wall);
      opts.log = [t0](const std::string& line) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "grade: %6.2fs %s\n", s, line.c_str());
      };
    }
    // Under `grade batch` on a GPU the wait for the shared GPU lock counts too.
    Watchdog watchdog(sg::grading_watchdog_s(suite, !cli.gpu_lock.empty()));
    sg::GradeResult result = sg::grade(suite, opts, paths);
    sg::write_reports(result, cli.out);
    sg::print_summary(result, std::cout, sg::use_color(STDOUT_FILENO));
    std::string files;  // every view written (report/writers.h), the lossless result last
    for (const sg::FileView& v : sg::kFileViews)
      if (std::string(v.file) != sg::kResultFile) files += std::string(files.empty() ? "" : ", ") + v.file;
    std::cout << "reports written to " << cli.out << "/ (" << files << ", and " << sg::kResultFile << ")\n";
    sg::kill_all_descendants();
    return 0;
  } catch (const sg::SuiteError& e) {
    std::fprintf(stderr, "grade: suite error: %s\n", e.what());
    return 2;
  } catch (const sg::UsageError& e) {
    std::fprintf(stderr, "grade: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "grade: internal error: %s\n", e.what());
    sg::kill_all_descendants();
    return 3;
  }
}
