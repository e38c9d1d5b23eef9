#include "cli/batch_cli.h"

#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "batch/batch_options.h"
#include "batch/batch_run.h"

namespace sg {
namespace {

// The grade binary each submission is graded by: this very program, unless
// --grader names another one.
std::string this_program() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

}  // namespace

int batch_main(int argc, char** argv) {
  batch::BatchOptions opts;
  std::string error;
  if (!batch::parse_batch_args(argc, argv, opts, error)) {
    std::fprintf(stderr, "grade batch: %s\n\n%s", error.c_str(), batch::batch_usage().c_str());
    return 2;
  }
  if (opts.help) {
    std::fputs(batch::batch_usage().c_str(), stdout);
    return 0;
  }
  const std::string grader = opts.grader.empty() ? this_program() : opts.grader;
  if (grader.empty()) {
    std::fprintf(stderr, "grade batch: cannot find this program's path (/proc/self/exe); give --grader PATH\n");
    return 3;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a closed terminal or log pipe must not kill the batch mid-journal
  return batch::run_batch(opts, grader, stderr);
}

int merge_main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string merge_flag = "--merge";
  args.insert(args.begin() + (argc > 0 ? 1 : 0), merge_flag.data());
  return batch_main(static_cast<int>(args.size()), args.data());
}

}  // namespace sg
