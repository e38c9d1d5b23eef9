#include "cli/grade_one.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

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

#include "pipeline/grade.h"
#include "process/process.h"
#include "report/writers.h"
#include "services/limits.h"
#include "services/submission.h"
#include "suite/suite_loader.h"

namespace fs = std::filesystem;

namespace sg {
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
    kill_all_descendants();
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

PrivateMounts prepare_judge_process() {
  ::signal(SIGPIPE, SIG_IGN);
  become_subreaper();
  const char* no_quota = std::getenv("SG_NO_DISK_QUOTA");
  return enter_private_mounts(no_quota ? no_quota : "");
}

int grade_one(CliOptions cli, const PrivateMounts& mounts, BackendKeep* keep) {
  try {
    GraderPaths paths = GraderPaths::discover();
    if (cli.suite.empty()) cli.suite = paths.source_root + "/testcases/default.yaml";
    Suite suite = load_suite_file(cli.suite);
    if (std::string why = check_output_dir(cli.out); !why.empty()) {
      std::fprintf(stderr, "grade: %s\n", why.c_str());
      return 2;
    }
    GradeOptions opts;
    opts.submission = cli.submission;
    opts.student = cli.student;
    opts.seed = cli.seed;
    opts.public_only = cli.public_only;
    opts.backend = cli.backend;
    opts.keep_work = cli.keep_work;
    opts.gpu_lock = cli.gpu_lock;
    opts.device_arch = cli.device_arch;
    opts.mounts = mounts;
    opts.keep = keep;
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
    Watchdog watchdog(grading_watchdog_s(suite, !cli.gpu_lock.empty()));
    GradeResult result = grade(suite, opts, paths);
    write_reports(result, cli.out);
    print_summary(result, std::cout, use_color(STDOUT_FILENO));
    std::string files;  // every view written (report/writers.h), the lossless result last
    for (const FileView& v : kFileViews)
      if (std::string(v.file) != kResultFile) files += std::string(files.empty() ? "" : ", ") + v.file;
    std::cout << "reports written to " << cli.out << "/ (" << files << ", and " << kResultFile << ")\n";
    kill_all_descendants();
    return 0;
  } catch (const SuiteError& e) {
    std::fprintf(stderr, "grade: suite error: %s\n", e.what());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "grade: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "grade: internal error: %s\n", e.what());
    kill_all_descendants();
    return 3;
  }
}

}  // namespace sg
