#include "backends/gpu/runner_files.h"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "backends/gpu/cuda_connections.h"
#include "words/build_report.h"

namespace sg {
namespace {

constexpr std::size_t kLogCap = 64 << 10;
constexpr double kLinkTimeout = 120;

}  // namespace

ToolRun link_student_runner(const GraderPaths& paths, const std::string& object, const WorkDir& work) {
  const std::string& o = paths.runner_objects;
  // --wrap: the runner notes the shape of the submission's first launch of
  // each checked case, for the report when the case faults (runner_main.cu).
  ToolRun link = run_tool({paths.nvcc, "-o", work.sub("build/runner"), o + "/runner_main.o", o + "/runner_selftest.o",
                           o + "/protocol.o", object, "-cudart", "static", "-Xlinker", "--wrap=__cudaPushCallConfiguration"},
                          scrubbed_environment(work.sub("build")), work.sub("build"), work.sub("logs/link.txt"),
                          kLinkTimeout, false, kLogCap);
  if (link.ok()) ::chmod(work.sub("build/runner").c_str(), 0755);
  return link;
}

std::string copy_baseline_runner(const GraderPaths& paths, const WorkDir& work, std::string& log) {
  const std::string from = paths.runner_objects + "/baseline_runner";
  const std::string to = work.sub("baseline/baseline_runner");
  std::error_code error;
  std::filesystem::create_directories(work.sub("baseline"), error);
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, error);
  if (error) {
    log += baseline_runner_missing_log(from, error.message());
    return "";
  }
  ::chmod(to.c_str(), 0755);
  return to;
}

std::vector<std::string> runner_environment(const std::string& scratch) {
  std::vector<std::string> env = scrubbed_environment(scratch);
  env.push_back("CUDA_MODULE_LOADING=EAGER");
  env.push_back(std::string(kCudaConnectionsVariable) + "=" + kCudaConnections);
  return env;
}

}  // namespace sg
