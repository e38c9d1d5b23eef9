// `grade`: grades one submission and writes the reports (grader/ARCHITECTURE.md).
// Exit codes: 0 graded (whatever the score), 2 usage or suite error, 3 internal error.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "backends/gpu/cuda_connections.h"
#include "cli/batch_cli.h"
#include "cli/grade_one.h"
#include "cli/grade_worker.h"
#include "cli/options.h"

int main(int argc, char** argv) {
  // Before any thread (setenv is not thread-safe) and before CUDA starts
  // here: the judge's own context asks for one work queue, as its runners do
  // (backends/gpu/cuda_connections.h); a batch's workers inherit it.
  ::setenv(sg::kCudaConnectionsVariable, sg::kCudaConnections, 1);
  if (argc > 1 && std::string(argv[1]) == "batch") return sg::batch_main(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "merge") return sg::merge_main(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "worker") return sg::worker_main(argc - 1, argv + 1);
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
  const sg::PrivateMounts mounts = sg::prepare_judge_process();
  return sg::grade_one(cli, mounts, nullptr);
}
